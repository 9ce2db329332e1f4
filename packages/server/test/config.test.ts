import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  configWarnings,
  defaultMaxConnections,
  describeDatabase,
  FALLBACK_MAX_CONNECTIONS,
  loadConfig,
  openFileLimit,
} from '../src/config.js';

describe('loadConfig', () => {
  it('has the defaults of decisions.md §3', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      databasePoolSize: 10,
      databasePooler: 'none',
      databaseCheckIntervalMs: 1000,
      baseUrl: 'http://127.0.0.1:3000',
      testHelpersKey: undefined,
      chaos503Rate: 0,
      logLevel: 'info',
      logFormat: 'auto',
      maxUploadBytes: 5 * 1024 * 1024,
      sendTimeoutMs: 60_000,
      bodyBudgetBytes: 128 * 1024 * 1024,
      pageCacheBytes: 16 * 1024 * 1024,
      prefillAllowPrivate: false,
    });
    expect(config.dataDir.endsWith('.data')).toBe(true);
  });

  it('reads every setting', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'pglite://memory',
      MARKETPLACE_BASE_URL: 'https://api.example.com/',
      MARKETPLACE_TEST_HELPERS_KEY: 'a-key-of-32-characters-or-longer',
      MARKETPLACE_CHAOS_503_RATE: '0.3',
      MARKETPLACE_DATABASE_CHECK_INTERVAL_MS: '0',
      MARKETPLACE_DATABASE_POOLER: 'transaction',
      MARKETPLACE_SEND_TIMEOUT_MS: '5000',
      MARKETPLACE_BODY_BUDGET_BYTES: '33554432',
      MARKETPLACE_PAGE_CACHE_BYTES: '0',
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'pretty',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: 'pglite://memory',
      baseUrl: 'https://api.example.com',
      testHelpersKey: 'a-key-of-32-characters-or-longer',
      chaos503Rate: 0.3,
      databaseCheckIntervalMs: 0,
      databasePooler: 'transaction',
      sendTimeoutMs: 5000,
      bodyBudgetBytes: 32 * 1024 * 1024,
      pageCacheBytes: 0,
      logLevel: 'warn',
      logFormat: 'pretty',
    });
  });

  it('keeps uploads in the data directory unless MARKETPLACE_STORAGE_URL names a bucket', () => {
    expect(loadConfig({ MARKETPLACE_DATA_DIR: '/srv/data' }).storage).toEqual({
      driver: 'directory',
      dir: '/srv/data/uploads',
    });
    expect(
      loadConfig({
        MARKETPLACE_STORAGE_URL:
          's3://media/market/uploads/?endpoint=http://127.0.0.1:9000/&region=eu-north-1&force_path_style=true',
      }).storage,
    ).toEqual({
      driver: 's3',
      bucket: 'media',
      prefix: 'market/uploads',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-north-1',
      forcePathStyle: true,
    });
    expect(loadConfig({ MARKETPLACE_STORAGE_URL: 's3://media', AWS_REGION: 'us-west-2' }).storage).toEqual({
      driver: 's3',
      bucket: 'media',
      prefix: '',
      endpoint: undefined,
      region: 'us-west-2',
      forcePathStyle: false,
    });
  });

  it.each([
    ['DATABASE_URL', 'mysql://x'],
    ['MARKETPLACE_TEST_HELPERS_KEY', 'short'],
    ['MARKETPLACE_TEST_HELPERS_KEY', 'k'.repeat(31)],
    ['MARKETPLACE_CHAOS_503_RATE', '1.5'],
    ['PORT', 'eighty'],
    ['LOG_FORMAT', 'xml'],
    ['MARKETPLACE_DATABASE_POOL_SIZE', '0'],
    ['MARKETPLACE_DATABASE_POOLER', 'statement'],
    ['MARKETPLACE_PAGE_CACHE_BYTES', '-1'],
    ['MARKETPLACE_PAGE_CACHE_BYTES', 'lots'],
    ['MARKETPLACE_STORAGE_URL', 'https://bucket.example/'],
    ['MARKETPLACE_STORAGE_URL', 's3://'],
    ['MARKETPLACE_STORAGE_URL', 's3://key:secret@bucket'],
    ['MARKETPLACE_STORAGE_URL', 's3://bucket?endpoint=ftp://x'],
    ['MARKETPLACE_STORAGE_URL', 's3://bucket?force_path_style=yes'],
    ['MARKETPLACE_STORAGE_URL', 's3://bucket?acl=public'],
  ])('refuses a bad %s with a message naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it("says what a number or a choice must be in the project's words, not zod's (`Too big: expected number to be <=1`)", () => {
    const refusal = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(
      refusal({
        MARKETPLACE_CHAOS_503_RATE: '2',
        PORT: 'eighty',
        MARKETPLACE_DATABASE_POOL_SIZE: '0',
        MARKETPLACE_RECEIVE_TIMEOUT_MS: '1.5',
        MARKETPLACE_DATABASE_POOLER: 'statement',
      }),
    ).toBe(
      [
        'Invalid configuration:',
        '  PORT: must be a number',
        '  MARKETPLACE_DATABASE_POOL_SIZE: must be at least 1',
        '  MARKETPLACE_DATABASE_POOLER: must be one of none, transaction',
        '  MARKETPLACE_CHAOS_503_RATE: must be at most 1',
        '  MARKETPLACE_RECEIVE_TIMEOUT_MS: must be a whole number',
      ].join('\n'),
    );
  });

  it('MARKETPLACE_MAX_CONNECTIONS as given; unset, from the open-file limit, with room for the database and what requests open', () => {
    expect(loadConfig({ MARKETPLACE_MAX_CONNECTIONS: '500' })).toMatchObject({ maxConnections: 500 });
    expect(loadConfig({ MARKETPLACE_MAX_CONNECTIONS: '500' }).openFileLimit).toBeUndefined();
    expect(() => loadConfig({ MARKETPLACE_MAX_CONNECTIONS: '0' })).toThrow('MARKETPLACE_MAX_CONNECTIONS');
    const limits = `Limit                     Soft Limit           Hard Limit           Units
Max processes             63431                63431                processes
Max open files            1024                 524288               files
Max locked memory         8388608              8388608              bytes`;
    expect(openFileLimit(limits)).toBe(1024);
    expect(openFileLimit('no such line')).toBeUndefined();
    // (1024 - 64 for the process - the database's) / 2: a connection may hold a file too.
    const pool = { databasePoolSize: 10 };
    expect(defaultMaxConnections(1024, { databaseUrl: 'postgres://db/x', ...pool })).toBe(474);
    expect(defaultMaxConnections(1024, { databaseUrl: 'pglite://memory', ...pool })).toBe(480);
    expect(defaultMaxConnections(1024, { databaseUrl: undefined, ...pool })).toBe(352);
    expect(defaultMaxConnections(256, { databaseUrl: undefined, ...pool })).toBe(16);
    expect(defaultMaxConnections(undefined, { databaseUrl: undefined, ...pool })).toBe(
      FALLBACK_MAX_CONNECTIONS,
    );
    if (process.platform === 'linux') {
      const config = loadConfig({ DATABASE_URL: 'pglite://memory' });
      expect(config.openFileLimit).toBe(openFileLimit());
      expect(config.maxConnections).toBe(defaultMaxConnections(openFileLimit(), config));
    }
  });

  it('MARKETPLACE_MAX_IN_PROGRESS_PER_CLIENT: half of the cap of 64 unless set; 0 turns the share off', () => {
    expect(loadConfig({}).maxInProgressPerClient).toBe(32);
    expect(loadConfig({ MARKETPLACE_MAX_IN_PROGRESS_PER_CLIENT: '4' }).maxInProgressPerClient).toBe(4);
    expect(loadConfig({ MARKETPLACE_MAX_IN_PROGRESS_PER_CLIENT: '0' }).maxInProgressPerClient).toBe(0);
    expect(() => loadConfig({ MARKETPLACE_MAX_IN_PROGRESS_PER_CLIENT: '-1' })).toThrow(
      'MARKETPLACE_MAX_IN_PROGRESS_PER_CLIENT',
    );
  });

  it('MARKETPLACE_IDEMPOTENCY_KEYS_PER_USER: 1 000 unless set, at least 1', () => {
    expect(loadConfig({}).idempotencyKeysPerUser).toBe(1_000);
    expect(loadConfig({ MARKETPLACE_IDEMPOTENCY_KEYS_PER_USER: '50' }).idempotencyKeysPerUser).toBe(50);
    expect(() => loadConfig({ MARKETPLACE_IDEMPOTENCY_KEYS_PER_USER: '0' })).toThrow(
      'MARKETPLACE_IDEMPOTENCY_KEYS_PER_USER',
    );
  });

  it('MARKETPLACE_TRUST_PROXY: unset, no proxy; a number of proxies or their addresses and ranges; never "true"', () => {
    expect(loadConfig({}).trustProxy).toBeUndefined();
    expect(loadConfig({ MARKETPLACE_TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(
      loadConfig({ MARKETPLACE_TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,fd00::/8,::1,loopback' }).trustProxy,
    ).toEqual(['127.0.0.1', '10.0.0.0/8', 'fd00::/8', '::1', 'loopback']);
    for (const bad of [
      'true',
      '0',
      '11',
      'proxy.internal',
      '10.0.0.0/33',
      '::1/129',
      '10.0.0.1/8/8',
      '127.0.0.1,',
    ])
      expect(() => loadConfig({ MARKETPLACE_TRUST_PROXY: bad }), bad).toThrow(
        'MARKETPLACE_TRUST_PROXY: must be the number of proxies in front (1-10) or a comma-separated list',
      );
  });

  it('MARKETPLACE_BASE_URL: an http(s) origin with a path prefix at most; a query or a fragment is refused (it landed inside every url field)', () => {
    expect(loadConfig({ MARKETPLACE_BASE_URL: 'https://api.example.com/v1/' }).baseUrl).toBe(
      'https://api.example.com/v1',
    );
    for (const bad of [
      'https://api.example.com/?x=1',
      'https://api.example.com/#top',
      'ftp://api.example.com',
    ])
      expect(() => loadConfig({ MARKETPLACE_BASE_URL: bad }), bad).toThrow('MARKETPLACE_BASE_URL');
    expect(() => loadConfig({ MARKETPLACE_BASE_URL: 'https://api.example.com/?x=1' })).toThrow(
      'must have no query (?…) or fragment (#…)',
    );
  });

  it('MARKETPLACE_BASE_URL with a user name or password is refused without repeating it (it was copied into every url field); another scheme is named as such, not "Invalid URL"', () => {
    for (const bad of ['https://user:pw@api.example.com', 'https://user@api.example.com/v1']) {
      const refusal = () => loadConfig({ MARKETPLACE_BASE_URL: bad });
      expect(refusal, bad).toThrow(
        /^Invalid configuration:\n {2}MARKETPLACE_BASE_URL: must have no user name or password \(user:password@\): it would be copied into every url field$/,
      );
    }
    expect(() => loadConfig({ MARKETPLACE_BASE_URL: 'ftp://api.example.com' })).toThrow(
      /^Invalid configuration:\n {2}MARKETPLACE_BASE_URL: must be an http:\/\/ or https:\/\/ URL \(not ftp\)$/,
    );
    expect(() => loadConfig({ MARKETPLACE_BASE_URL: 'api.example.com' })).toThrow(
      /^Invalid configuration:\n {2}MARKETPLACE_BASE_URL: must be an http:\/\/ or https:\/\/ URL \(https:\/\/host\[:port\]\[\/prefix\]\)$/,
    );
  });

  it('MARKETPLACE_CORS_ORIGINS: names the variable and the entry that is not an origin (not MARKETPLACE_CORS_ORIGINS.0)', () => {
    expect(() => loadConfig({ MARKETPLACE_CORS_ORIGINS: 'app.example.com' })).toThrow(
      /^Invalid configuration:\n {2}MARKETPLACE_CORS_ORIGINS: "app\.example\.com" is not an origin: must be a comma-separated list of origins \(https:\/\/host\[:port\]\) or \*$/,
    );
    expect(() =>
      loadConfig({ MARKETPLACE_CORS_ORIGINS: 'https://ok.example.com, app.example.com,ftp://x.example.com' }),
    ).toThrow('MARKETPLACE_CORS_ORIGINS: "app.example.com", "ftp://x.example.com" are not origins: ');
    expect(loadConfig({ MARKETPLACE_CORS_ORIGINS: 'https://a.example.com/, *' }).corsOrigins).toEqual([
      'https://a.example.com',
      '*',
    ]);
  });

  it('HOST: an IPv6 address in brackets, as in a URL, is the address ([::1] was "no such host name")', () => {
    expect(loadConfig({ HOST: '[::1]' }).host).toBe('::1');
    expect(loadConfig({ HOST: '[::1]', PORT: '3000' }).baseUrl).toBe('http://[::1]:3000');
    expect(loadConfig({ HOST: '::1' }).host).toBe('::1');
    expect(loadConfig({ HOST: '[not-an-address]' }).host).toBe('[not-an-address]');
  });

  it("DATABASE_URL without a database name is refused naming it (it was MikroORM's stack trace); libpq's Unix-socket forms are accepted", () => {
    for (const bad of ['postgres://postgres@127.0.0.1:5432/', 'postgres://postgres@127.0.0.1:5432']) {
      expect(() => loadConfig({ DATABASE_URL: bad }), bad).toThrow(
        /^Invalid configuration:\n {2}DATABASE_URL: names no database \(postgres:\/\/user:password@host:5432\/database, or through a Unix socket postgres:\/\/user@\/database\?host=\/var\/run\/postgresql\)$/,
      );
    }
    for (const [url, where] of [
      ['postgres://postgres@/mydb?host=/var/run/postgresql', 'PostgreSQL /var/run/postgresql:5432/mydb'],
      ['postgres:///mydb?host=/var/run/postgresql&user=postgres', 'PostgreSQL /var/run/postgresql:5432/mydb'],
      ['postgres://postgres@%2Fvar%2Frun%2Fpostgresql/mydb', 'PostgreSQL /var/run/postgresql:5432/mydb'],
      [
        'postgres://app@/mydb?host=/cloudsql/project:region:instance',
        'PostgreSQL /cloudsql/project:region:instance:5432/mydb',
      ],
      ['postgres://app:s3cret@db.internal:6432/prod', 'PostgreSQL db.internal:6432/prod'],
      ['postgresql://app@[::1]/prod', 'PostgreSQL [::1]:5432/prod'],
    ])
      expect(describeDatabase(loadConfig({ DATABASE_URL: url })), url).toBe(where);
  });

  it('names every bad setting in one message, the storage URL among them', () => {
    const bad = { PORT: 'eighty', LOG_FORMAT: 'xml', MARKETPLACE_STORAGE_URL: 'https://bucket.example/' };
    expect(() => loadConfig(bad)).toThrow(
      /^Invalid configuration:\n {2}PORT: .*\n {2}LOG_FORMAT: .*\n {2}MARKETPLACE_STORAGE_URL: .*$/,
    );
  });
});

describe('configWarnings: what a server logs at warn once it listens', () => {
  it('an open-file limit that leaves room for few connections', () => {
    const config = loadConfig({ MARKETPLACE_MAX_CONNECTIONS: '16' });
    expect(configWarnings(config)).toEqual([]);
    expect(configWarnings({ ...config, openFileLimit: 256 })).toEqual([
      'the open-file limit of this process (256) leaves room for 16 connections: raise it (ulimit -n, LimitNOFILE=) or set MARKETPLACE_MAX_CONNECTIONS',
    ]);
  });

  it('an upload limit the body budget holds fewer than four of at once, or none (it was taken silently)', () => {
    expect(configWarnings(loadConfig({ MARKETPLACE_MAX_UPLOAD_BYTES: String(32 * 1024 * 1024) }))).toEqual(
      [],
    );
    expect(configWarnings(loadConfig({ MARKETPLACE_MAX_UPLOAD_BYTES: '200000000' }))).toEqual([
      'MARKETPLACE_MAX_UPLOAD_BYTES (200000000) is above MARKETPLACE_BODY_BUDGET_BYTES (134217728): an upload larger than the budget is refused 413 whatever its limit; raise the budget well above the upload limit',
    ]);
    expect(configWarnings(loadConfig({ MARKETPLACE_MAX_UPLOAD_BYTES: '50000000' }))).toEqual([
      'MARKETPLACE_BODY_BUDGET_BYTES (134217728) holds 2 uploads of MARKETPLACE_MAX_UPLOAD_BYTES (50000000) at once; the next is 503 until one is done: raise the budget well above the upload limit',
    ]);
  });

  it('none with the defaults, nor with HOST=0.0.0.0 and a MARKETPLACE_BASE_URL', () => {
    expect(configWarnings(loadConfig({}))).toEqual([]);
    expect(
      configWarnings(loadConfig({ HOST: '0.0.0.0', MARKETPLACE_BASE_URL: 'https://api.example.com' })),
    ).toEqual([]);
  });

  it('the test helpers on, a chaos rate, and url fields no client can open (HOST=0.0.0.0 or ::, no MARKETPLACE_BASE_URL)', () => {
    const warnings = configWarnings(
      loadConfig({
        HOST: '0.0.0.0',
        MARKETPLACE_TEST_HELPERS_KEY: 'a-key-of-32-characters-or-longer',
        MARKETPLACE_CHAOS_503_RATE: '0.3',
      }),
    );
    expect(warnings).toEqual([
      expect.stringMatching(
        /^the test helpers are on \(MARKETPLACE_TEST_HELPERS_KEY\): .*never set it in production$/,
      ),
      'MARKETPLACE_CHAOS_503_RATE is 0.3: that share of API requests is answered 503 on purpose',
      expect.stringMatching(
        /say http:\/\/0\.0\.0\.0:3000, which no client can open: set MARKETPLACE_BASE_URL/,
      ),
    ]);
    expect(configWarnings(loadConfig({ HOST: '::' }))).toEqual([expect.stringContaining('http://[::]:3000')]);
  });
});
