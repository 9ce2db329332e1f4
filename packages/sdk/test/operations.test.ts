import { publicEndpoints, testHelperEndpointList } from '@app/schemas';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { Marketplace } from '../src/index.js';
import { operations, sdkMethod } from '../src/operations.js';

const client = new Marketplace({ token: 'mkt_test', baseUrl: 'http://127.0.0.1:1' });

describe('operations', () => {
  test('one operation per public endpoint, none for the test helpers', () => {
    expect(operations.map((op) => op.name)).toEqual(publicEndpoints.map((e) => e.name));
    for (const helper of testHelperEndpointList)
      expect(operations.some((op) => op.endpoint.path === helper.path)).toBe(false);
  });

  test('names follow the SDK (decisions.md §5) and are unique', () => {
    const byName = Object.fromEntries(operations.map((op) => [op.name, op]));
    expect(byName['socialAccounts.list']).toMatchObject({
      sdkPath: ['me', 'socialAccounts', 'list'],
      toolName: 'me_social_accounts_list',
      command: ['me', 'social-accounts', 'list'],
    });
    expect(byName['address.update']).toMatchObject({ toolName: 'me_address_update', kind: 'update' });
    expect(byName['collabs.list']).toMatchObject({ toolName: 'collabs_list', kind: 'list' });
    expect(byName['collabs.submit']?.kind).toBe('transition');
    expect(new Set(operations.map((op) => op.toolName)).size).toBe(operations.length);
    expect(new Set(operations.map((op) => op.command.join(' '))).size).toBe(operations.length);
  });

  test('every operation has its method on a client, taking ids, body, query, options in that order', () => {
    for (const op of operations) {
      const method = sdkMethod(client, op);
      const arity = op.pathParams.length + (op.endpoint.body ? 1 : 0) + (op.queryParams.length > 0 ? 1 : 0);
      expect(method.length, op.name).toBe(arity + 1);
    }
  });

  test('flat inputs: path params, query and body fields; a query field named like a body field gets query_', () => {
    const create = operations.find((op) => op.name === 'collabs.create');
    expect(create?.pathParams).toEqual(['organization_id']);
    expect(create?.queryNames).toEqual({ query_website: 'website' });
    expect(Object.keys(create?.input.shape ?? {})).toEqual(
      expect.arrayContaining(['organization_id', 'name', 'website', 'banner_image', 'query_website']),
    );
    const list = operations.find((op) => op.name === 'collabs.list');
    expect(Object.keys(list?.input.shape ?? {})).toEqual(['organization_id', 'page']);
  });

  test('every input and response converts to JSON Schema', () => {
    for (const op of operations) {
      expect(z.toJSONSchema(op.input, { io: 'input' }).type, op.name).toBe('object');
      if (op.response) expect(() => z.toJSONSchema(op.response as z.ZodType, { io: 'output' })).not.toThrow();
    }
  });
});
