/** The hints `describeError` gives the CLI and the MCP tools, for the cases the trials found wrong. */
import { IDEMPOTENCY_KEY_REUSED_MESSAGE } from '@app/schemas';
import { describe, expect, it } from 'vitest';
import { makeAPIError, RequestValidationError } from '../src/core/error.js';
import { describeError } from '../src/describe-error.js';

const apiError = (status: number, body: unknown) => makeAPIError(status, new Headers(), body);

describe('describeError', () => {
  it('says of a repeated delete of a thing without an id that there is none, naming no id', () => {
    const { hint } = describeError(apiError(404, undefined), undefined, { kind: 'delete', pathParams: [] });
    expect(hint).toBe(
      'Nothing to delete: there is none for this user (never made, or deleted already); or the base URL does not point at the API.',
    );
    const withId = describeError(apiError(404, { error: 'Not found' }), undefined, {
      kind: 'delete',
      pathParams: ['organization_id', 'id'],
    });
    expect(withId.hint).toMatch(/^Nothing to delete: it is gone already .*or the id is unknown/);
  });

  it('tells a caller whose idempotency key was used with another request to send a new one', () => {
    const reused = describeError(
      apiError(422, { errors: { base: [IDEMPOTENCY_KEY_REUSED_MESSAGE] } }),
      new Set(['name', 'idempotency_key']),
      { kind: 'create', pathParams: [] },
    );
    expect(reused.errors).toEqual({ base: [IDEMPOTENCY_KEY_REUSED_MESSAGE] });
    expect(reused.hint).toBe(
      'This idempotency key was used with another request: send this request with a new key (or none), or the first request again with this key.',
    );
  });

  it('says of an argument refused before sending, also one the operation does not take, to fix it', () => {
    const refused = new RequestValidationError({
      organization_id: ["can't be blank"],
      nmae: ['is not an argument of collabs.create: did you mean name?'],
    });
    const { status, hint } = describeError(refused, new Set(['organization_id', 'name']), {
      kind: 'create',
      pathParams: ['organization_id'],
    });
    expect(status).toBeNull();
    expect(hint).toBe(
      "Fix these fields and call again: organization_id can't be blank; nmae is not an argument of collabs.create: did you mean name?",
    );
  });
});
