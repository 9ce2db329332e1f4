import { IDEMPOTENCY_KEY_PATTERN } from '@app/schemas';
import { operations } from '@app/sdk/operations';
import { describe, expect, test } from 'vitest';
import { idempotencyKeyOf, inputSchemaOf } from '../src/server.js';

const create = operations.find((op) => op.toolName === 'organizations_create');
const submit = operations.find((op) => op.toolName === 'collabs_submit');
const update = operations.find((op) => op.toolName === 'organizations_update');

describe('the Idempotency-Key of a POST tool call', () => {
  test('POST tools take an idempotency_key argument; other tools do not', () => {
    expect(create && Object.keys(inputSchemaOf(create).shape)).toContain('idempotency_key');
    expect(submit && Object.keys(inputSchemaOf(submit).shape)).toContain('idempotency_key');
    expect(update && Object.keys(inputSchemaOf(update).shape)).not.toContain('idempotency_key');
    expect(create && inputSchemaOf(create).safeParse({ name: 'x', idempotency_key: '' }).success).toBe(false);
  });

  test('the argument wins; else the same _meta request id gives the same key, per tool', () => {
    if (!create || !submit) throw new Error('tools missing');
    expect(idempotencyKeyOf(create, 'mine', { requestId: 'r1' })).toBe('mine');
    const key = idempotencyKeyOf(create, undefined, { requestId: 'r1' });
    expect(key).toMatch(IDEMPOTENCY_KEY_PATTERN);
    expect(idempotencyKeyOf(create, undefined, { requestId: 'r1' })).toBe(key);
    expect(idempotencyKeyOf(create, undefined, { requestId: 'r2' })).not.toBe(key);
    expect(idempotencyKeyOf(submit, undefined, { requestId: 'r1' })).not.toBe(key);
    expect(idempotencyKeyOf(create, undefined, { requestId: 7 })).toMatch(IDEMPOTENCY_KEY_PATTERN);
    expect(idempotencyKeyOf(create, undefined, undefined)).toBeUndefined();
  });
});
