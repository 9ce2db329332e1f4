/**
 * An application that loads the SDK twice (its ESM build through `import` in one module, its
 * CommonJS build through `require` in another) has two of each error class: `instanceof` still
 * recognises one copy's errors by the other's classes, by kind, and not by another kind. The
 * second copy here is the same module loaded again under another id.
 */
import { describe, expect, test } from 'vitest';
import * as one from '../src/core/error.js';

const other = (await import(`../src/core/error.js?${'another-copy'}`)) as typeof one;

describe('errors of another copy of the SDK', () => {
  test('are a second set of classes (the premise of the test)', () => {
    expect(other.NotFoundError).not.toBe(one.NotFoundError);
  });

  test('instanceof: the same kind and the kinds above it, not another kind', () => {
    const notFound = new other.NotFoundError(404, new Headers(), { error: 'Not found' });
    expect(notFound instanceof one.NotFoundError).toBe(true);
    expect(notFound instanceof one.APIError).toBe(true);
    expect(notFound instanceof one.MarketplaceError).toBe(true);
    expect(notFound instanceof Error).toBe(true);
    expect(notFound instanceof one.AuthenticationError).toBe(false);
    expect(notFound instanceof one.APIConnectionError).toBe(false);

    const timeout = new other.APIConnectionTimeoutError('No response within 5 ms');
    expect(timeout instanceof one.APIConnectionTimeoutError).toBe(true);
    expect(timeout instanceof one.APIConnectionError).toBe(true);
    expect(timeout instanceof one.APIError).toBe(false);

    const option = new other.ClientOptionError('token', 'is empty');
    expect(option instanceof one.ClientOptionError).toBe(true);
    expect(option instanceof TypeError).toBe(true);
    expect(option instanceof one.MarketplaceError).toBe(false);
  });

  test('a value that only looks like one is not one', () => {
    for (const value of [
      null,
      undefined,
      'NotFoundError',
      { name: 'NotFoundError', status: 404 },
      new Error('x'),
    ])
      expect(value instanceof one.NotFoundError).toBe(false);
  });
});
