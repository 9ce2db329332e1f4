/**
 * `typedFromText` on schemas the tools do not have yet: nested objects, arrays, variants. The
 * tools' own arguments are called end to end in tools.test.ts.
 */
import { describe, expect, test } from 'vitest';
import { typedFromText } from '../src/from-text.js';

const schema = {
  type: 'object',
  properties: {
    amount: { type: 'number' },
    count: { type: 'integer' },
    on: { type: 'boolean' },
    name: { type: 'string' },
    either: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    maybe: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
    listed: { type: ['boolean', 'null'] },
    code: { type: 'string', enum: ['0', '1'] },
    nested: {
      type: 'object',
      properties: {
        deeper: { type: 'object', properties: { flag: { type: 'boolean' } } },
        sizes: { type: 'array', items: { type: 'integer' } },
      },
    },
    rows: { type: 'array', items: { type: 'object', properties: { price: { type: 'number' } } } },
  },
};

describe('typedFromText', () => {
  test('a string that is exactly a finite JSON number or true/false becomes one where the schema takes it and no string, at any depth', () => {
    expect(
      typedFromText(schema, {
        amount: '-2.5',
        count: '1e3',
        on: 'false',
        maybe: '7',
        listed: 'true',
        nested: { deeper: { flag: 'true' }, sizes: ['1', 2, '30'] },
        rows: [{ price: '9.99' }, { price: 1 }],
      }),
    ).toEqual({
      amount: -2.5,
      count: 1000,
      on: false,
      maybe: 7,
      listed: true,
      nested: { deeper: { flag: true }, sizes: [1, 2, 30] },
      rows: [{ price: 9.99 }, { price: 1 }],
    });
  });

  test('where a string is a value of the field it stays one; anything but exactly a number or true/false stays as it was sent', () => {
    const same = {
      name: '42',
      either: '42',
      code: '1',
      amount: '5OO',
      count: '1e999',
      on: 'True',
      maybe: 'null',
      unknown: '5',
      nested: { sizes: [' 1', '0x10', ''] },
    };
    expect(typedFromText(schema, same)).toEqual(same);
    // A number where a string is wanted is not turned into text either: the check refuses it.
    expect(typedFromText(schema, { name: 42 })).toEqual({ name: 42 });
  });

  test('keys such as __proto__ stay plain data', () => {
    const given = JSON.parse('{"__proto__": {"polluted": "1"}, "amount": "1"}') as object;
    const typed = typedFromText(schema, given) as Record<string, unknown>;
    expect(Object.getPrototypeOf(typed)).toBe(Object.prototype);
    expect(Object.hasOwn(typed, '__proto__')).toBe(true);
    expect(typed.amount).toBe(1);
  });
});
