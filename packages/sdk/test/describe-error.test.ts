/** The hints `describeError` gives the CLI and the MCP tools, for the cases the trials found wrong. */
import { IDEMPOTENCY_KEY_REUSED_MESSAGE } from '@app/schemas';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { APIConnectionError, RequestValidationError } from '../src/core/error.js';
import { makeAPIError } from '../src/core/make-api-error.js';
import { describeError } from '../src/describe-error.js';
import { callOperation, type Operation, operations } from '../src/operations.js';
import { BASE, client, mockServer } from './fixtures.js';

const server = mockServer();

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

  it('with fieldNamesOnly, names the fields of `errors` without repeating their messages (an MCP result holds both)', () => {
    const { errors, hint } = describeError(
      apiError(422, {
        errors: { max_payout_amount: ['must be greater than 0'], role: ['cannot be changed for the owner'] },
      }),
      new Set(['max_payout_amount', 'role']),
      { kind: 'update', pathParams: ['organization_id', 'id'] },
      { fieldNamesOnly: true },
    );
    expect(hint).toBe(
      "Fix these fields and call again: max_payout_amount. Not possible as things are (errors: role): no value of this call's arguments changes that.",
    );
    for (const message of Object.values(errors ?? {}).flat()) expect(hint).not.toContain(message);
  });

  it('says of a campaign without a budget that the budget is funded outside the API, not by an argument', () => {
    const { hint } = describeError(
      apiError(422, { errors: { total_budget_amount: ['must be greater than 0 to publish'] } }),
      new Set(['organization_id', 'id']),
      { kind: 'transition', pathParams: ['organization_id', 'id'] },
    );
    expect(hint).toBe(
      'Not possible as things are: total_budget_amount must be greater than 0 to publish. The budget is funded outside the API: no call or argument of it sets total_budget_amount, so publish once the campaign is funded.',
    );
  });

  describe('given the operation but no settable set, its arguments are what the caller can set', () => {
    const unfunded = () =>
      apiError(422, { errors: { total_budget_amount: ['must be greater than 0 to publish'] } });
    const situation =
      'Not possible as things are: total_budget_amount must be greater than 0 to publish. The budget is funded outside the API: no call or argument of it sets total_budget_amount, so publish once the campaign is funded.';

    it("the operation's input (campaigns.publish takes ids only)", () => {
      const publish = operations.find((o) => o.name === 'campaigns.publish') as Operation;
      expect(describeError(unfunded(), undefined, publish).hint).toBe(situation);
    });

    it('a transition named by its kind and ids alone takes nothing else', () => {
      const call = { kind: 'transition', pathParams: ['organization_id', 'id'] };
      expect(describeError(unfunded(), undefined, call).hint).toBe(situation);
    });

    it("a field of the operation's input is still one to fix", () => {
      const update = operations.find((o) => o.name === 'campaigns.update') as Operation;
      const { hint } = describeError(
        apiError(422, { errors: { cpm_amount: ['must be an integer'], state: ['cannot be changed'] } }),
        undefined,
        update,
      );
      expect(hint).toBe(
        'Fix these fields and call again: cpm_amount must be an integer. Not possible as things are: state cannot be changed.',
      );
    });
  });

  describe('a 404 on a call that takes no id is a wrong route: the hint is about the base URL', () => {
    const wrongBase = `${BASE}/api/v1`;
    const hint = `No such route: check the base URL (MARKETPLACE_BASE_URL, here ${wrongBase}): it should be the API's origin, not a path under it.`;
    const notFound = () =>
      server.use(
        http.all(`${wrongBase}/*`, () => HttpResponse.json({ error: 'Not found' }, { status: 404 })),
      );

    it('from the error alone (the SDK records the request it answers)', async () => {
      notFound();
      const error = await client({ baseUrl: wrongBase })
        .organizations.list()
        .catch((e: unknown) => e);
      expect(describeError(error)).toEqual({ status: 404, error: 'Not found', hint });
      const create = await client({ baseUrl: wrongBase })
        .organizations.create({ name: 'Acme' })
        .catch((e: unknown) => e);
      expect(describeError(create).hint).toBe(hint);
    });

    it('with the operation that failed', async () => {
      notFound();
      const list = operations.find((o) => o.name === 'organizations.list') as Operation;
      const error = await callOperation(client({ baseUrl: wrongBase }), list, {}).catch((e: unknown) => e);
      expect(describeError(error, new Set(Object.keys(list.input.shape)), list).hint).toBe(hint);
    });

    it('an error made by hand, with the operation: the same hint, without the base URL', () => {
      expect(
        describeError(apiError(404, { error: 'Not found' }), undefined, { kind: 'list', pathParams: [] })
          .hint,
      ).toBe(
        "No such route: check the base URL (MARKETPLACE_BASE_URL): it should be the API's origin, not a path under it.",
      );
    });

    it('a call with an id keeps the hint about the id', async () => {
      server.use(
        http.get(`${BASE}/organizations/:id`, () =>
          HttpResponse.json({ error: 'Not found' }, { status: 404 }),
        ),
      );
      const error = await client()
        .organizations.retrieve('Org0000000001' as never)
        .catch((e: unknown) => e);
      expect(describeError(error).hint).toBe(
        'The id is unknown or not visible to this user: list the collection to find a valid id.',
      );
    });
  });

  describe('told where the token and the base URL came from, the hints name that place', () => {
    const from = {
      token: '`marketplace auth login` (/home/u/.config/marketplace/config.json)',
      baseUrl: '--base-url',
    };
    const request = (url: string, route: string) => ({ method: 'GET', url, route });

    it('a 401 names where the token came from (not MARKETPLACE_TOKEN, which was not used)', () => {
      const error = makeAPIError(401, new Headers(), 'HTTP Token: Access denied.');
      expect(describeError(error, undefined, undefined, { from }).hint).toBe(
        'The token is missing, revoked or read-only: use a valid token in place of the one from `marketplace auth login` (/home/u/.config/marketplace/config.json) (a write token for changes).',
      );
      // Not told: as before.
      expect(describeError(error).hint).toBe(
        'The token is missing, revoked or read-only: use a valid token (MARKETPLACE_TOKEN; a write token for changes).',
      );
    });

    it('a 404 at a wrong route names where the base URL came from', () => {
      const error = makeAPIError(
        404,
        new Headers(),
        { error: 'Not found' },
        request(`${BASE}/api/organizations.json`, '/organizations.json'),
      );
      expect(describeError(error, undefined, undefined, { from }).hint).toBe(
        `No such route: check the base URL (from --base-url, here ${BASE}/api): it should be the API's origin, not a path under it.`,
      );
    });

    it('no answer names where the base URL came from', () => {
      const error = new APIConnectionError('Connection refused: GET http://127.0.0.1:1/organizations.json');
      expect(describeError(error, undefined, undefined, { from }).hint).toBe(
        'Check the base URL (from --base-url): the API did not answer.',
      );
      expect(describeError(error).hint).toBe('Check MARKETPLACE_BASE_URL: the API did not answer.');
    });
  });

  it('a 404 on a call with ids under a base URL with a path says to check the base URL first (an unknown route answers the same 404)', () => {
    const route = '/organizations/:organization_id/collabs.json';
    const at = (base: string) =>
      makeAPIError(
        404,
        new Headers(),
        { error: 'Not found' },
        {
          method: 'GET',
          url: `${base}/organizations/Org0000000001/collabs.json?page=1`,
          route,
        },
      );
    expect(
      describeError(at(`${BASE}/api`), undefined, undefined, { from: { baseUrl: '--base-url' } }).hint,
    ).toBe(
      `Check the base URL (from --base-url, here ${BASE}/api): an unknown route answers the same 404 as an unknown id, and its path /api may be one the API does not have. If the base URL is right, the id is unknown or not visible to this user: list the collection to find a valid id.`,
    );
    // At the origin, the id is what to check.
    expect(describeError(at(BASE)).hint).toBe(
      'The id is unknown or not visible to this user: list the collection to find a valid id.',
    );
  });
});
