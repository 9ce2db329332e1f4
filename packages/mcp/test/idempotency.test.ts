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

  test("the argument's description says what a model must do for a retried call to count once: no MCP field gives a retry's identity", () => {
    const description =
      create && (inputSchemaOf(create).shape.idempotency_key?.meta()?.description as string);
    expect(description).toMatch(/send the same key when retrying/);
    expect(description).toMatch(/Without it every call has a new random key: a retried call may run twice/);
    expect(description).not.toMatch(/_meta/);
  });

  test('the argument wins; else the same _meta request id, session and arguments give the same key, per tool', () => {
    if (!create || !submit) throw new Error('tools missing');
    const args = { name: 'Acme' };
    expect(idempotencyKeyOf(create, 'mine', { requestId: 'r1' }, 's1', args)).toBe('mine');
    const key = idempotencyKeyOf(create, undefined, { requestId: 'r1' }, 's1', args);
    expect(key).toMatch(IDEMPOTENCY_KEY_PATTERN);
    expect(idempotencyKeyOf(create, undefined, { requestId: 'r1' }, 's1', { name: 'Acme' })).toBe(key);
    expect(idempotencyKeyOf(create, undefined, { requestId: 'r2' }, 's1', args)).not.toBe(key);
    expect(idempotencyKeyOf(submit, undefined, { requestId: 'r1' }, 's1', args)).not.toBe(key);
    // Hosts number their requests from 1 in every session: another session's request 1 is another call.
    expect(idempotencyKeyOf(create, undefined, { requestId: 'r1' }, 's2', args)).not.toBe(key);
    // The same request id for other arguments is another call, not a conflict the server refuses.
    expect(idempotencyKeyOf(create, undefined, { requestId: 'r1' }, 's1', { name: 'Beta' })).not.toBe(key);
    // The number 7 and the string "7" are two request ids.
    expect(idempotencyKeyOf(create, undefined, { requestId: 7 }, 's1', args)).not.toBe(
      idempotencyKeyOf(create, undefined, { requestId: '7' }, 's1', args),
    );
    expect(idempotencyKeyOf(create, undefined, { requestId: 7 }, 's1', args)).toMatch(
      IDEMPOTENCY_KEY_PATTERN,
    );
    expect(idempotencyKeyOf(create, undefined, undefined, 's1', args)).toBeUndefined();
  });
});
