/**
 * What the benches share: starting a target in its own process, and the data every show and page
 * is measured on, made through the API.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { freePort } from '@app/testing';
import pg from 'pg';

export const HELPERS_KEY = 'bench-test-helpers-key-0123456789abcdef';

/** Collabs of the small organization, made through the API (three pages). */
export const SMALL_LIST = 45;

export interface Target {
  url: string;
  pid: number;
  /** CPU time (user + system) the target's process has used so far, in ms (Linux `/proc`). */
  cpuMs: () => number;
  stop: () => Promise<void>;
}

const TICKS_PER_SECOND = 100;

/** A process's name (`comm`) and the CPU time (user + system) it has used so far, in ms (Linux `/proc`). */
function statOf(pid: number | string | undefined): { name: string; cpuMs: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    return { name, cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND };
  } catch {
    return undefined;
  }
}

const cpuMsOf = (pid: number | undefined): number => statOf(pid)?.cpuMs ?? Number.NaN;

/** The CPU time (ms) each PostgreSQL process on this machine has used so far, by pid. */
export type DatabaseCpu = Map<string, number>;

/** Reads the CPU time of every PostgreSQL process (the backends share the cores with the targets). */
export function readDatabaseCpu(): DatabaseCpu {
  const reading: DatabaseCpu = new Map();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = statOf(pid);
    if (stat?.name === 'postgres') reading.set(pid, stat.cpuMs);
  }
  return reading;
}

/**
 * The CPU time (ms) PostgreSQL's processes have used since `earlier`. What a process used before it
 * exited is not counted; the pools' backends live through a case and are counted whole.
 */
export function databaseCpuMsSince(earlier: DatabaseCpu): number {
  let ms = 0;
  for (const [pid, cpuMs] of readDatabaseCpu()) ms += cpuMs - (earlier.get(pid) ?? 0);
  return ms;
}

/** A database of its own on the PostgreSQL server of `databaseUrl`, created now; `drop` removes it. */
export async function freshDatabase(
  databaseUrl: string,
  prefix: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  const name = `${prefix}_${process.pid}_${Date.now()}`;
  try {
    await admin.query(`create database ${name}`);
  } catch (error) {
    await admin.end();
    throw error;
  }
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  const drop = async () => {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  };
  return { url: url.href, drop };
}

export interface StartOptions {
  /** A command the `node` process runs under (`['valgrind', '--tool=callgrind', …]`). */
  under?: string[];
  /** How long it may take to answer its probe (under valgrind, minutes). */
  startupMs?: number;
}

/** Starts `node <args>` with `env` and waits until `GET url + probe` answers. */
export async function start(
  args: string[],
  env: Record<string, string>,
  probe: string,
  { under = [], startupMs = 60_000 }: StartOptions = {},
): Promise<Target> {
  const port = await freePort();
  const [command, ...prefix] = [...under, process.execPath];
  const child: ChildProcess = spawn(command as string, [...prefix, ...args], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', under.length > 0 ? 'ignore' : 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + startupMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
    try {
      const res = await fetch(url + probe, { headers: { authorization: 'Bearer x' } });
      await res.arrayBuffer();
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${args.join(' ')} did not start`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { url, pid: child.pid as number, cpuMs: () => cpuMsOf(child.pid), stop };
}

export async function json(res: Response) {
  if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
  return res.json();
}

/** A user with a token, an organization and {@link SMALL_LIST} collabs on the server, made through the API. */
export async function seed(url: string) {
  const created = await json(
    await fetch(`${url}/test_helpers/users.json`, {
      method: 'POST',
      headers: { authorization: `Bearer ${HELPERS_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ user: { name: 'Bench', email: `bench-${Date.now()}@example.com` } }),
    }),
  );
  const token = created.access_token.token as string;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const org = await json(
    await fetch(`${url}/organizations.json`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ organization: { name: 'Bench' } }),
    }),
  );
  for (let i = 0; i < SMALL_LIST; i++)
    await json(
      await fetch(`${url}/organizations/${org.id}/collabs.json`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ collab: { name: `Collab ${i}`, brief: `# Collab ${i}\n\nA **brief**.` } }),
      }),
    );
  const showPath = `/organizations/${org.id}.json`;
  const show = await fetch(url + showPath, { headers });
  const body = await show.text();
  return {
    token,
    headers,
    showPath,
    listPath: `/organizations/${org.id}/collabs.json?page=2`,
    smallListPath: `/organizations/${org.id}/collabs.json`,
    body,
    etag: show.headers.get('etag') as string,
  };
}

/** `GET url` with `headers`, answered `200` (the checks that targets answer alike read these). */
export async function fetchOk(url: string, headers: Record<string, string>): Promise<Response> {
  const res = await fetch(url, { headers });
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return res;
}

/** Both anchors' shows answer the server's body, byte for byte. */
export async function checkAnchorShows(
  serverUrl: string,
  anchorUrl: string,
  showPath: string,
  headers: Record<string, string>,
) {
  const read = async (url: string) => (await fetchOk(url, headers)).text();
  const ours = await read(serverUrl + showPath);
  for (const path of [showPath, `/one-statement${showPath}`]) {
    const byHand = await read(anchorUrl + path);
    if (byHand !== ours)
      throw new Error(`the anchor's ${path} differs from the server's:\n${byHand}\n${ours}`);
  }
}
