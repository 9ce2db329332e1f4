/**
 * Three replicas, proven: three `marketplace-server serve` processes (the built `dist/`) on one
 * PostgreSQL database, reached through PgBouncer in transaction mode (started here from a
 * configuration of its own; directly, saying so, when PgBouncer is not installed), and one S3
 * store (s3rver), behind HAProxy checking `/ready`. An SDK
 * workload runs through HAProxy while one replica is SIGKILLed and restarted and another is
 * stopped with SIGTERM. Every idempotent call must complete, every acknowledged write must be in
 * the database, no POST may fail or be stored twice or unacknowledged, and every stored image must be served identically by
 * every replica. The figures go to docs/reliability.md ("Three replicas behind HAProxy").
 *
 * Every wait is for an event: a replica's "listening on" line, HAProxy's "Server api/rN is
 * UP/DOWN" line, a process's exit, a number of calls done.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Marketplace } from '@app/sdk';
import { freePort } from '@app/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { S3RVER_CREDENTIALS, startS3, type TestS3 } from '../s3-store.js';
import { PGBOUNCER_MISSING, type PgBouncer, startPgBouncer } from './pgbouncer.js';

const SERVER_DIR = new URL('../..', import.meta.url).pathname;
const ROOT = join(SERVER_DIR, '../..');
/** The Node 24 the repository's scripts run on; the machine's own `node` may be older. */
const NODE = existsSync(join(ROOT, 'node_modules/node/bin/node'))
  ? join(ROOT, 'node_modules/node/bin/node')
  : process.execPath;
const CLI = join(SERVER_DIR, 'dist/cli.js');
/** HAProxy (Debian's `haproxy`, in /usr/sbin); `HAPROXY_PATH` overrides. */
const HAPROXY =
  process.env.HAPROXY_PATH ?? (existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : 'haproxy');
const WORKERS = 8;
const MIN_CALLS = 1_000;

const sha = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
const png = () => Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(1_500)]);
const nameOf = (url: string | null | undefined) => (url ? url.slice(url.lastIndexOf('/') + 1) : null);

/** Calls `onLine` for each line the process writes, on stdout and stderr. */
function lines(child: ChildProcess, onLine: (line: string) => void) {
  for (const stream of [child.stdout, child.stderr])
    if (stream) createInterface({ input: stream }).on('line', onLine);
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve({ code: child.exitCode, signal: child.signalCode })
    : new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.once('exit', (code, signal) => resolve({ code, signal })),
      );

interface Replica {
  name: string;
  port: number;
  url: string;
  child?: ChildProcess;
}

let databaseUrl: string;
/**
 * What the replicas connect to: PgBouncer in transaction mode in front of the database (as
 * hosted PostgreSQL is mostly reached), or the database itself when PgBouncer is not installed.
 */
let replicaDatabaseUrl: string;
let bouncer: PgBouncer | null = null;
let admin: pg.Client;
let databaseName: string;
let s3: TestS3;
let dataDir: string;
let haproxy: ChildProcess;
let proxyUrl: string;
const replicas: Replica[] = [];
const haproxyEvents: Array<{ server: string; state: 'UP' | 'DOWN'; at: number }> = [];
const haproxyWaiters: Array<() => void> = [];

function serverEnv(replica: Replica): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...S3RVER_CREDENTIALS,
    DATABASE_URL: replicaDatabaseUrl,
    ...(bouncer && { MARKETPLACE_DATABASE_POOLER: 'transaction' }),
    MARKETPLACE_STORAGE_URL: s3.url,
    MARKETPLACE_DATA_DIR: join(dataDir, replica.name),
    MARKETPLACE_BASE_URL: proxyUrl,
    HOST: '127.0.0.1',
    PORT: String(replica.port),
    LOG_LEVEL: 'info',
  };
}

/** Starts a replica; resolves once it listens. */
async function start(replica: Replica): Promise<number> {
  const started = performance.now();
  const child = spawn(NODE, [CLI, 'serve'], {
    cwd: SERVER_DIR,
    env: serverEnv(replica),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  replica.child = child;
  const tail: string[] = [];
  await new Promise<void>((resolve, reject) => {
    lines(child, (line) => {
      tail.push(line);
      if (tail.length > 20) tail.shift();
      if (line.includes('listening on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`${replica.name} exited (${code}):\n${tail.join('\n')}`)));
  });
  return performance.now() - started;
}

/** Resolves once HAProxy has reported `server` in `state` since `since`. */
function haproxySays(server: string, state: 'UP' | 'DOWN', since: number): Promise<number> {
  return new Promise((resolve) => {
    const check = () => {
      const event = haproxyEvents.find((e) => e.server === server && e.state === state && e.at >= since);
      if (!event) return false;
      resolve(event.at);
      return true;
    };
    if (check()) return;
    const waiter = () => {
      if (check()) haproxyWaiters.splice(haproxyWaiters.indexOf(waiter), 1);
    };
    haproxyWaiters.push(waiter);
  });
}

beforeAll(async () => {
  if (spawnSync(HAPROXY, ['-v']).error)
    throw new Error('This test needs HAProxy on the PATH (Debian: apt-get install -y haproxy).');
  // The replicas run the build, as deployed.
  execFileSync(join(SERVER_DIR, 'node_modules/.bin/tsup'), ['--silent'], {
    cwd: SERVER_DIR,
    stdio: 'inherit',
  });

  // An empty database of its own: the replicas' migrations build it, as in a deployment.
  const { url } = inject('postgres');
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
  databaseName = `mkt_rel_replicas_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${databaseName}`);
  const u = new URL(url);
  u.pathname = `/${databaseName}`;
  databaseUrl = u.toString();
  bouncer = await startPgBouncer(databaseUrl);
  if (!bouncer) console.warn(`replicas: ${PGBOUNCER_MISSING}; the replicas connect to PostgreSQL directly`);
  replicaDatabaseUrl = bouncer ? bouncer.urlFor(databaseUrl) : databaseUrl;

  s3 = await startS3('replicas');
  dataDir = mkdtempSync(join(tmpdir(), 'mkt-rel-replicas-'));
  const proxyPort = await freePort();
  proxyUrl = `http://127.0.0.1:${proxyPort}`;
  for (const name of ['r1', 'r2', 'r3']) {
    const port = await freePort();
    replicas.push({ name, port, url: `http://127.0.0.1:${port}` });
  }

  // Migrations before the rollout (docs/deploy.md), then the replicas.
  execFileSync(NODE, [CLI, 'migrate'], { cwd: SERVER_DIR, env: serverEnv(replicas[0] as Replica) });
  await Promise.all(replicas.map(start));

  const config = join(dataDir, 'haproxy.cfg');
  writeFileSync(
    config,
    `global
  log stderr format raw local0 notice
defaults
  mode http
  log global
  option log-health-checks
  timeout connect 1s
  timeout client 30s
  timeout server 30s
  retries 3
  option redispatch 1
frontend api
  bind 127.0.0.1:${proxyPort}
  default_backend api
backend api
  balance roundrobin
  option httpchk GET /ready
  http-check expect status 200
  default-server check inter 250ms fastinter 100ms downinter 250ms fall 2 rise 2
${replicas.map((r) => `  server ${r.name} 127.0.0.1:${r.port}`).join('\n')}
`,
  );
  haproxy = spawn(HAPROXY, ['-db', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  lines(haproxy, (line) => {
    const match = /Server api\/(r\d) is (UP|DOWN)/.exec(line);
    if (!match) return;
    haproxyEvents.push({
      server: match[1] as string,
      state: match[2] as 'UP' | 'DOWN',
      at: performance.now(),
    });
    for (const waiter of [...haproxyWaiters]) waiter();
  });
  // The replicas listen already; HAProxy only has to bind its port (it tells nothing when it has,
  // so this is the one poll: a refused connection is retried 50 ms later, up to 10 s).
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await fetch(`${proxyUrl}/ready`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      break;
    } catch (error) {
      if (attempt >= 200 || haproxy.exitCode !== null) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}, 120_000);

afterAll(async () => {
  for (const r of replicas) {
    if (r.child && r.child.exitCode === null && r.child.signalCode === null) {
      r.child.kill('SIGTERM');
      await exited(r.child);
    }
  }
  if (haproxy && haproxy.exitCode === null) {
    haproxy.kill('SIGTERM');
    await exited(haproxy);
  }
  await s3?.remove();
  await bouncer?.stop();
  if (admin) {
    await admin.query(`drop database if exists ${databaseName} with (force)`);
    await admin.end();
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** What the client was told: the state each resource must have in the database. */
interface Expected {
  name: string;
  image: string | null;
  /** sha256 of the bytes sent for `image`. */
  imageSha: string | null;
  deleted: boolean;
  /** The state a transition acknowledged; undefined when none was sent, null when unknown. */
  state?: string | null;
}

describe('three replicas behind HAProxy on one database and one S3 store', () => {
  it('lose no acknowledged write, duplicate no POST, and serve every image from every replica while one is killed and one stopped', async () => {
    const [r1, r2] = replicas as [Replica, Replica, Replica];
    const sql = async <T>(query: string, params: unknown[] = []) => {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        return (await client.query(query, params)).rows as T[];
      } finally {
        await client.end();
      }
    };
    const created = JSON.parse(
      execFileSync(NODE, [CLI, 'users', 'create', '--name', 'Load', '--email', 'load@example.com'], {
        cwd: SERVER_DIR,
        env: serverEnv(r1),
      }).toString(),
    );
    const token: string = created.access_token.token;

    // Every attempt, as the transport saw it: the SDK's retries show as attempts beyond calls.
    const stats = { calls: 0, attempts: 0, statuses: new Map<number, number>(), transportErrors: 0 };
    const idempotentFailures: string[] = [];
    const postFailures: string[] = [];
    let lastFailureAt = 0;
    const client = new Marketplace({
      token,
      baseUrl: proxyUrl,
      logger: { debug: () => {}, warn: () => {} },
      fetch: async (input, init) => {
        stats.attempts += 1;
        try {
          const res = await fetch(input, init);
          stats.statuses.set(res.status, (stats.statuses.get(res.status) ?? 0) + 1);
          if (res.status >= 500) lastFailureAt = performance.now();
          return res;
        } catch (error) {
          stats.transportErrors += 1;
          lastFailureAt = performance.now();
          throw error;
        }
      },
    });

    const calls: Array<() => void> = [];
    const onCalls = (n: number) =>
      new Promise<void>((resolve) => calls.push(() => stats.calls >= n && resolve()));
    const call = async <T>(kind: 'idempotent' | 'post', label: string, run: () => Promise<T>) => {
      try {
        return await run();
      } catch (error) {
        (kind === 'idempotent' ? idempotentFailures : postFailures).push(`${label}: ${String(error)}`);
        return undefined;
      } finally {
        stats.calls += 1;
        for (const check of calls) check();
      }
    };

    const organizations = new Map<string, Expected>();
    const collabs = new Map<string, Expected & { org: string }>();
    const campaigns = new Map<string, Expected & { org: string }>();
    const posted = { organizations: 0, collabs: 0, campaigns: 0, transitions: 0 };
    let faultsDone = false;

    // The faults, each when the workload reaches a number of calls.
    const figures = { killToDown: 0, restartToListening: 0, listeningToUp: 0, sigtermExit: '' as string };
    const faults = (async () => {
      await onCalls(250);
      const killed = performance.now();
      r1.child?.kill('SIGKILL');
      await exited(r1.child as ChildProcess);
      figures.killToDown = (await haproxySays('r1', 'DOWN', killed)) - killed;
      figures.restartToListening = await start(r1);
      const listening = performance.now();
      figures.listeningToUp = (await haproxySays('r1', 'UP', listening)) - listening;

      await onCalls(Math.max(stats.calls + 150, 600));
      r2.child?.kill('SIGTERM');
      const { code, signal } = await exited(r2.child as ChildProcess);
      figures.sigtermExit = signal ?? `exit code ${code}`;
      faultsDone = true;
    })();

    const started = performance.now();
    const worker = async (w: number) => {
      const logo = png();
      const org = await call('post', 'organizations.create', () =>
        client.organizations.create({ name: `w${w}`, logo: new Blob([logo], { type: 'image/png' }) }),
      );
      posted.organizations += 1;
      if (!org) throw new Error(`worker ${w} could not create its organization`);
      organizations.set(org.id, {
        name: org.name,
        image: nameOf(org.logo_url),
        imageSha: sha(logo),
        deleted: false,
      });
      for (let i = 0; !faultsDone || stats.calls < MIN_CALLS; i++) {
        const tag = `w${w}-${i}`;
        const banner = png();
        posted.collabs += 1;
        const collab = await call('post', 'collabs.create', () =>
          client.collabs.create(org.id, {
            name: `collab ${tag}`,
            banner_image: new Blob([banner], { type: 'image/png' }),
          }),
        );
        if (collab) {
          const expected = {
            org: org.id,
            name: collab.name,
            image: nameOf(collab.banner_image_url),
            imageSha: sha(banner),
            deleted: false,
          } as Expected & { org: string };
          collabs.set(collab.id, expected);
          await call('idempotent', 'collabs.retrieve', () => client.collabs.retrieve(org.id, collab.id));
          const newBanner = png();
          const updated = await call('idempotent', 'collabs.update', () =>
            client.collabs.update(org.id, collab.id, {
              name: `collab ${tag} updated`,
              banner_image: new Blob([newBanner], { type: 'image/png' }),
            }),
          );
          if (updated)
            Object.assign(expected, {
              name: updated.name,
              image: nameOf(updated.banner_image_url),
              imageSha: sha(newBanner),
            });
          await call('idempotent', 'collabs.list', () => client.collabs.list(org.id));
          if (i % 2 === 0) {
            posted.transitions += 1;
            const submitted = await call('post', 'collabs.submit', () =>
              client.collabs.submit(org.id, collab.id),
            );
            expected.state = submitted ? submitted.state : null;
          } else {
            const deleted = await call('idempotent', 'collabs.delete', () =>
              client.collabs.delete(org.id, collab.id).then(() => true),
            );
            if (deleted) expected.deleted = true;
          }
        }
        posted.campaigns += 1;
        const campaign = await call('post', 'campaigns.create', () =>
          client.campaigns.create(org.id, { name: `campaign ${tag}` }),
        );
        if (campaign) {
          const expected = { org: org.id, name: campaign.name, image: null, imageSha: null, deleted: false };
          campaigns.set(campaign.id, expected);
          const updated = await call('idempotent', 'campaigns.update', () =>
            client.campaigns.update(org.id, campaign.id, { name: `campaign ${tag} updated` }),
          );
          if (updated) expected.name = updated.name;
          if (i % 3 === 0) {
            const deleted = await call('idempotent', 'campaigns.delete', () =>
              client.campaigns.delete(org.id, campaign.id).then(() => true),
            );
            if (deleted) expected.deleted = true;
          }
        }
        await call('idempotent', 'organizations.retrieve', () => client.organizations.retrieve(org.id));
        if (i % 4 === 0) {
          const newLogo = png();
          const updated = await call('idempotent', 'organizations.update', () =>
            client.organizations.update(org.id, {
              name: `w${w} (${i})`,
              logo: new Blob([newLogo], { type: 'image/png' }),
            }),
          );
          if (updated)
            organizations.set(org.id, {
              name: updated.name,
              image: nameOf(updated.logo_url),
              imageSha: sha(newLogo),
              deleted: false,
            });
        }
        await call('idempotent', 'organizations.list', () => client.organizations.list());
      }
    };
    await Promise.all([faults, ...Array.from({ length: WORKERS }, (_, w) => worker(w))]);
    const elapsed = performance.now() - started;

    // The stopped replica comes back, so that every replica is asked for every image.
    await start(r2);

    // Every idempotent call completed (POSTs are counted below).
    expect(idempotentFailures).toEqual([]);

    // Every acknowledged write is in the database.
    const orgRows = await sql<{ id: string; name: string; logo: string | null }>(
      'select id, name, logo from organizations',
    );
    for (const [id, want] of organizations) {
      expect(orgRows.find((r) => r.id === id)).toEqual({ id, name: want.name, logo: want.image });
    }
    const collabRows = await sql<{ id: string; name: string; banner_image: string | null; state: string }>(
      'select id, name, banner_image, state from collabs',
    );
    for (const [id, want] of collabs) {
      const row = collabRows.find((r) => r.id === id);
      if (want.deleted) {
        expect(row).toBeUndefined();
        continue;
      }
      expect(row).toMatchObject({ name: want.name, banner_image: want.image });
      if (want.state) expect(row?.state).toBe(want.state);
    }
    const campaignRows = await sql<{ id: string; name: string }>('select id, name from campaigns');
    for (const [id, want] of campaigns) {
      const row = campaignRows.find((r) => r.id === id);
      if (want.deleted) expect(row).toBeUndefined();
      else expect(row).toMatchObject({ name: want.name });
    }

    // No POST stored twice: every create had a name of its own.
    const twice = await sql(
      `select name from collabs group by name having count(*) > 1
       union all select name from campaigns group by name having count(*) > 1
       union all select name from organizations group by name having count(*) > 1`,
    );
    expect(twice).toEqual([]);
    // Creates that failed for the client but were committed (a replica killed after its commit).
    const unacknowledged =
      collabRows.filter((r) => !collabs.has(r.id)).length +
      campaignRows.filter((r) => !campaigns.has(r.id)).length;

    // Every stored image, served identically by every replica (and the acknowledged ones are the
    // bytes sent); no row names a missing object.
    const images = new Map<string, string | null>();
    for (const want of [...organizations.values(), ...collabs.values()])
      if (want.image && !want.deleted) images.set(want.image, want.imageSha);
    for (const row of [...orgRows.map((r) => r.logo), ...collabRows.map((r) => r.banner_image)])
      if (row && !images.has(row)) images.set(row, null);
    for (const [image, wantSha] of images) {
      const served = await Promise.all(
        replicas.map(async (r) => {
          const res = await fetch(`${r.url}/uploads/${image}`);
          expect(res.status).toBe(200);
          expect(res.headers.get('content-type')).toBe('image/png');
          return sha(new Uint8Array(await res.arrayBuffer()));
        }),
      );
      expect(new Set(served).size).toBe(1);
      if (wantSha) expect(served[0]).toBe(wantSha);
    }

    const figuresLine = {
      calls: stats.calls,
      attempts: stats.attempts,
      // A transition is two requests (its POST, then the show its 303 names): those are no retries.
      retries: stats.attempts - stats.calls - (stats.statuses.get(303) ?? 0),
      statuses: Object.fromEntries(stats.statuses),
      transportErrors: stats.transportErrors,
      postFailures: postFailures.length,
      posted,
      unacknowledgedButStored: unacknowledged,
      images: images.size,
      seconds: Number((elapsed / 1000).toFixed(1)),
      killToDownMs: Math.round(figures.killToDown),
      restartToListeningMs: Math.round(figures.restartToListening),
      database: bouncer ? 'PgBouncer (transaction mode)' : 'PostgreSQL directly',
      listeningToUpMs: Math.round(figures.listeningToUp),
      sigterm: figures.sigtermExit,
      lastFailureAfterStartMs: lastFailureAt ? Math.round(lastFailureAt - started) : null,
    };
    console.log(`replicas: ${JSON.stringify(figuresLine)}`);
    if (postFailures.length) console.log(`replicas: failed POSTs:\n  ${postFailures.join('\n  ')}`);

    expect(stats.calls).toBeGreaterThanOrEqual(MIN_CALLS);
    // Exactly once (issue #30): every POST carries an Idempotency-Key taken in its write's
    // transaction, so a killed replica's key and write vanish together and the SDK's retry runs
    // it once; no POST fails, and none is stored without its client knowing.
    expect(postFailures).toEqual([]);
    expect(unacknowledged).toBe(0);
    expect(figures.sigtermExit).toBe('exit code 0');
  }, 150_000);
});
