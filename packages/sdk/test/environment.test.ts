/** `new Marketplace()` from the environment, `withOptions`, and `MARKETPLACE_LOG`. */
import { HttpResponse, http } from 'msw';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { ClientOptionError, Marketplace } from '../src/index.js';
import { BASE, client, mockServer, ORG_ID, organization, recordRequests, TOKEN } from './fixtures.js';

const server = mockServer();
const seen = recordRequests(server);
const orgUrl = `${BASE}/organizations/${ORG_ID}.json`;

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

/** Runs `fn` as in a browser, where there is no `process`. */
function withoutProcess<T>(fn: () => T): T {
  const saved = globalThis.process;
  Reflect.deleteProperty(globalThis, 'process');
  try {
    return fn();
  } finally {
    globalThis.process = saved;
  }
}

describe('new Marketplace() reads the environment', () => {
  test('MARKETPLACE_TOKEN and MARKETPLACE_BASE_URL', async () => {
    vi.stubEnv('MARKETPLACE_TOKEN', TOKEN);
    vi.stubEnv('MARKETPLACE_BASE_URL', `${BASE}/`);
    server.use(http.get(orgUrl, () => HttpResponse.json(organization)));
    await expect(new Marketplace().organizations.retrieve(ORG_ID)).resolves.toEqual(organization);
    expect(seen.map((r) => [r.url, r.headers.get('authorization')])).toEqual([[orgUrl, `Bearer ${TOKEN}`]]);
  });

  test('options win over the environment', async () => {
    vi.stubEnv('MARKETPLACE_TOKEN', 'from-env');
    vi.stubEnv('MARKETPLACE_BASE_URL', 'https://elsewhere.test');
    server.use(http.get(orgUrl, () => HttpResponse.json(organization)));
    await new Marketplace({ token: TOKEN, baseUrl: BASE }).organizations.retrieve(ORG_ID);
    expect(seen.map((r) => [r.url, r.headers.get('authorization')])).toEqual([[orgUrl, `Bearer ${TOKEN}`]]);
  });

  test('a clear error naming both when neither is set (empty counts as unset)', () => {
    vi.stubEnv('MARKETPLACE_TOKEN', '');
    vi.stubEnv('MARKETPLACE_BASE_URL', undefined);
    expect(() => new Marketplace()).toThrow(
      new TypeError(
        'Marketplace: `token` (or MARKETPLACE_TOKEN) and `baseUrl` (or MARKETPLACE_BASE_URL) required: pass them as options or set the environment variables',
      ),
    );
  });

  test('names the one that is missing', () => {
    vi.stubEnv('MARKETPLACE_TOKEN', TOKEN);
    vi.stubEnv('MARKETPLACE_BASE_URL', undefined);
    expect(() => new Marketplace()).toThrow(
      new TypeError(
        'Marketplace: `baseUrl` (or MARKETPLACE_BASE_URL) required: pass it as an option or set the environment variable',
      ),
    );
    expect(() => new Marketplace()).not.toThrow(/MARKETPLACE_TOKEN/);
  });

  test('in a browser (no `process`) options work, and their absence is the same clear error', () => {
    expect(withoutProcess(() => new Marketplace({ token: TOKEN, baseUrl: BASE }))).toBeInstanceOf(
      Marketplace,
    );
    expect(() => withoutProcess(() => new Marketplace())).toThrow(/MARKETPLACE_TOKEN.*MARKETPLACE_BASE_URL/);
  });
});

describe('new Marketplace() refuses a token or base URL it could not send, without echoing a secret', () => {
  // A token is sent in a header: undici's own error for one that cannot be quoted the header with
  // the token in it (a password manager's entry piped whole has more lines than the token).
  test.each([
    ['a second line', `${TOKEN}\nurl: https://example.test`],
    ['a space', `${TOKEN} x`],
    ['a non-ASCII character', `${TOKEN}é`],
    ['a control character', `${TOKEN}\u0000`],
  ])('a token with %s: a TypeError that does not hold the token', (_what, token) => {
    let error: unknown;
    try {
      new Marketplace({ token, baseUrl: BASE });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(
      'Marketplace: `token` holds a character an HTTP header cannot carry (a space, a line break, a control or non-ASCII character); a token is one word of printable ASCII',
    );
    expect(String((error as Error).stack)).not.toContain(TOKEN);
  });

  test.each([
    ['ends with a line break (a file read whole)', `${TOKEN}\n`, '`token` ends with a line break: trim it'],
    ['ends with CRLF', `${TOKEN}\r\n`, '`token` ends with a line break: trim it'],
    [
      "starts with 'Bearer ' (a header's value)",
      `Bearer ${TOKEN}`,
      "`token` starts with 'Bearer ': pass the token without the 'Bearer ' prefix (the SDK adds it)",
    ],
    [
      "starts with 'bearer ' and ends with a line break",
      `bearer ${TOKEN}\n`,
      "`token` starts with 'Bearer ': pass the token without the 'Bearer ' prefix (the SDK adds it)",
    ],
  ])('a token that %s: a message saying what to fix, without the token', (_what, token, problem) => {
    let error: unknown;
    try {
      new Marketplace({ token, baseUrl: BASE });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ClientOptionError);
    expect((error as Error).message).toBe(`Marketplace: ${problem}`);
    expect(String((error as Error).stack)).not.toContain(TOKEN);
  });

  test('from MARKETPLACE_TOKEN too', () => {
    vi.stubEnv('MARKETPLACE_TOKEN', `${TOKEN}\nsecond line`);
    vi.stubEnv('MARKETPLACE_BASE_URL', BASE);
    expect(() => new Marketplace()).toThrow(/`token` holds a character an HTTP header cannot carry/);
  });

  test.each([
    ['not a URL', 'notaurl', 'Marketplace: `baseUrl` is not an absolute URL: "notaurl"'],
    [
      'another scheme',
      'ftp://127.0.0.1:3000',
      'Marketplace: `baseUrl` must be an http or https URL, not ftp:',
    ],
    [
      'a host and port without the scheme',
      'localhost:4870',
      'Marketplace: `baseUrl` must start with http:// or https:// (http://localhost:4870?)',
    ],
    [
      'a user and password',
      'http://user:secret@127.0.0.1:3000',
      'Marketplace: `baseUrl` must not hold a user name or password (the token is the credential): http://***:***@127.0.0.1:3000/',
    ],
    [
      'a query',
      'http://127.0.0.1:3000/?a=1',
      'Marketplace: `baseUrl` must not have a query or fragment: http://127.0.0.1:3000/?a=1',
    ],
    // `URL` gives an empty `?` or `#` no `search` or `hash`: every path went into the fragment.
    [
      'an empty fragment',
      'http://127.0.0.1:3000/docs#',
      'Marketplace: `baseUrl` must not have a query or fragment: http://127.0.0.1:3000/docs#',
    ],
    [
      'an empty query',
      'http://127.0.0.1:3000/?',
      'Marketplace: `baseUrl` must not have a query or fragment: http://127.0.0.1:3000/?',
    ],
  ])('a base URL that is %s: a TypeError saying so', (_what, baseUrl, message) => {
    expect(() => new Marketplace({ token: TOKEN, baseUrl })).toThrow(new TypeError(message));
  });

  test('a base URL with a path prefix and a trailing slash is taken', async () => {
    const prefixed = `${BASE}/api/`;
    server.use(http.get(`${BASE}/api/organizations/${ORG_ID}.json`, () => HttpResponse.json(organization)));
    await expect(
      new Marketplace({ token: TOKEN, baseUrl: prefixed }).organizations.retrieve(ORG_ID),
    ).resolves.toEqual(organization);
  });
});

describe('new Marketplace() refuses a userAgent a User-Agent header could not carry', () => {
  const HEADER_CHARACTER =
    '`userAgent` holds a character an HTTP header cannot carry (a line break, a control character or one above U+00FF)';

  test.each([
    [
      'ends with a line break (a file read whole)',
      'acme-sync/2.3\n',
      '`userAgent` ends with a line break: trim it',
    ],
    ['ends with CRLF', 'acme-sync/2.3\r\n', '`userAgent` ends with a line break: trim it'],
    ['holds a line break', 'acme-sync\n2.3', HEADER_CHARACTER],
    ['holds a NUL', 'acme-sync/2.3\u0000', HEADER_CHARACTER],
    ['holds a character above U+00FF', 'acme-sync/2.3 ✓', HEADER_CHARACTER],
  ])('one that %s: a ClientOptionError saying what to fix', (_what, userAgent, problem) => {
    let error: unknown;
    try {
      new Marketplace({ token: TOKEN, baseUrl: BASE, userAgent });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ClientOptionError);
    expect((error as Error).message).toBe(`Marketplace: ${problem}`);
    expect(error).toMatchObject({ option: 'userAgent' });
  });

  test('withOptions checks it too', () => {
    expect(() => client().withOptions({ userAgent: 'acme\r\nX-Injected: 1' })).toThrow(ClientOptionError);
  });

  test('Latin-1 and a tab are taken, as HTTP allows them', async () => {
    server.use(http.get(orgUrl, () => HttpResponse.json(organization)));
    await client({ userAgent: 'café-sync/1\t(+https://café.example)' }).organizations.retrieve(ORG_ID);
    expect(seen[0]?.headers.get('user-agent')).toMatch(
      /^café-sync\/1\t\(\+https:\/\/café\.example\) marketplace-sdk\//,
    );
  });
});

describe('withOptions', () => {
  test('changes the options given and keeps the others', async () => {
    let calls = 0;
    server.use(
      http.get(orgUrl, () =>
        ++calls === 1 ? new HttpResponse(null, { status: 500 }) : HttpResponse.json(organization),
      ),
    );
    const base = client({ maxRetries: 0, userAgent: 'base-app/1' });
    const retrying = base.withOptions({ maxRetries: 1 });
    await expect(retrying.organizations.retrieve(ORG_ID)).resolves.toEqual(organization);
    expect(seen).toHaveLength(2);
    expect(seen.every((r) => r.headers.get('user-agent')?.startsWith('base-app/1 '))).toBe(true);
    calls = 0;
    await expect(base.organizations.retrieve(ORG_ID)).rejects.toMatchObject({ status: 500 });
  });

  test('an option given as undefined is not changed', async () => {
    server.use(http.get(orgUrl, () => new HttpResponse(null, { status: 500 })));
    const unset: number | undefined = undefined;
    const c = client({ maxRetries: 0, userAgent: 'base-app/1' }).withOptions({
      maxRetries: unset,
      userAgent: undefined,
    });
    await expect(c.organizations.retrieve(ORG_ID)).rejects.toMatchObject({ status: 500 });
    // One attempt: the client's `maxRetries: 0` was kept, not reset to the default (3).
    expect(seen).toHaveLength(1);
    expect(seen[0]?.headers.get('user-agent')).toMatch(/^base-app\/1 /);
  });

  test('the new client shares the ETag cache of its own token, a new token gets none of it', async () => {
    server.use(
      http.get(orgUrl, ({ request }) =>
        request.headers.get('if-none-match') === 'W/"1"'
          ? new HttpResponse(null, { status: 304, headers: { ETag: 'W/"1"' } })
          : HttpResponse.json(organization, { headers: { ETag: 'W/"1"' } }),
      ),
    );
    const base = client();
    await base.organizations.retrieve(ORG_ID);
    await base.withOptions({ timeout: 5_000 }).organizations.retrieve(ORG_ID);
    await base.withOptions({ token: 'another-token' }).organizations.retrieve(ORG_ID);
    expect(seen.map((r) => r.headers.get('if-none-match'))).toEqual([null, 'W/"1"', null]);
  });

  test('checks the changed options as the constructor does', () => {
    expect(() => client().withOptions({ maxRetries: -1 })).toThrow(RangeError);
  });
});

describe('MARKETPLACE_LOG', () => {
  test('debug writes every request and response to stderr, the token redacted', async () => {
    vi.stubEnv('MARKETPLACE_LOG', 'debug');
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
    server.use(http.get(orgUrl, () => HttpResponse.json(organization)));
    await client().organizations.retrieve(ORG_ID);
    const lines = stderr.mock.calls.map((c) => String(c[0]));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[marketplace\] debug marketplace request \{/);
    expect(lines[0]).toContain('"authorization":"[redacted]"');
    expect(lines[1]).toMatch(/^\[marketplace\] debug marketplace response \{.*"status":200/);
    expect(lines.join('\n')).not.toContain(TOKEN);
  });

  test.each(['info', 'warn', 'WARN', ' Info '])('%s writes failures and 5xx only', async (level) => {
    vi.stubEnv('MARKETPLACE_LOG', level);
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
    let calls = 0;
    server.use(
      http.get(orgUrl, () =>
        ++calls === 1 ? new HttpResponse(null, { status: 503 }) : HttpResponse.json(organization),
      ),
    );
    await client({ maxRetries: 1 }).organizations.retrieve(ORG_ID);
    const lines = stderr.mock.calls.map((c) => String(c[0]));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[marketplace\] warn marketplace response \{.*"status":503/);
    expect(lines[0]).not.toContain(TOKEN);
  });

  test('unset: nothing is written; a logger given wins over the variable', async () => {
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
    server.use(http.get(orgUrl, () => HttpResponse.json(organization)));
    await client().organizations.retrieve(ORG_ID);
    vi.stubEnv('MARKETPLACE_LOG', 'debug');
    const debug = vi.fn();
    await client({ logger: { debug, warn: vi.fn() } }).organizations.retrieve(ORG_ID);
    expect(stderr).not.toHaveBeenCalled();
    expect(debug).toHaveBeenCalledTimes(2);
  });

  test('another value is a clear error', () => {
    vi.stubEnv('MARKETPLACE_LOG', 'verbose');
    expect(() => client()).toThrow(
      'Marketplace: MARKETPLACE_LOG must be one of debug, info, warn, got "verbose"',
    );
  });
});
