/**
 * The SDK bench's cases, shared by `sdk.ts` (timed) and `instructions.ts` (counted): the baseline a
 * ky-based client is held to, ky alone with the SDK's retry policy and timeout, and the SDK's
 * calls it is compared with.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { acceptsAsIs, endpoints, OrganizationId, PAGINATION_HEADERS } from '@app/schemas';
import type { Marketplace } from '@app/sdk';
import ky from 'ky';
import { retryPolicy } from '../src/core/retry.js';

const here = dirname(fileURLToPath(import.meta.url));
export const token = 'mkt_bench';
/** The stub's organization with an ETag, and its list of collabs. */
export const ORG = OrganizationId.parse('OrgBench00000001');
/** The stub's organization without an ETag (every retrieve is a `200`). */
export const PLAIN_ORG = OrganizationId.parse('OrgBench00000002');
export const stubHeaders = { authorization: `Bearer ${token}`, accept: 'application/json' };

/** A GET with ky alone, configured as the SDK configures it (its retry policy and timeout). */
export const kyAlone = (headers: Record<string, string>) => {
  const retry = retryPolicy('GET', 3, Math.random);
  return (url: string) => ky(url, { headers, retry, timeout: 30_000 });
};

/**
 * A hand-written loop over every page of `listUrl` with `get` (ky, configured as the SDK): the
 * items counted. With `check`, each page must pass it (see {@link checkedPage}).
 */
export const handLoop =
  (get: (url: string) => ReturnType<typeof ky>, listUrl: string, check?: (items: unknown) => boolean) =>
  async () => {
    let n = 0;
    for (let page = 1, pages = 1; page <= pages; page++) {
      const res = get(`${listUrl}?page=${page}`);
      pages = Number((await res).headers.get(PAGINATION_HEADERS.totalPages));
      const items = JSON.parse(await res.text()) as unknown[];
      if (check && !check(items)) throw new Error(`page ${page} of ${listUrl} failed its check`);
      n += items.length;
    }
    return n;
  };

/**
 * A page of collabs checked as the SDK checks every answer (decisions: every answer is validated):
 * the fast check of the list's response schema, which the stub's pages pass. With it, a
 * {@link handLoop} is a reference for the SDK's iteration, not the baseline.
 */
export const checkedPage = (items: unknown) => {
  const schema = endpoints.collabs.list.response;
  return schema !== undefined && acceptsAsIs(schema, items);
};

/** The SDK's auto-pagination over every collab of `organization`: the items counted. */
export const iterate = (client: Marketplace, organization: OrganizationId) => async () => {
  let n = 0;
  for await (const _ of client.collabs.list(organization)) n++;
  return n;
};

/** The stub's list of collabs (`handLoop`'s `listUrl`). */
export const stubListUrl = (base: string) => `${base}/organizations/${ORG}/collabs.json`;
/** The stub's organization without an ETag. */
export const stubPlainUrl = (base: string) => `${base}/organizations/${PLAIN_ORG}.json`;

/** The processes started by {@link spawnScript}, to stop at the end. */
export const children: ChildProcess[] = [];

/** Starts `script` (TypeScript, through tsx) in its own process; resolves with the first match of `line` in its output. */
export function spawnScript(script: string, env: Record<string, string>, line: RegExp): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@app/source', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = line.exec(output);
      if (match) resolve(match[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

/** The stub server (stub-server.ts) in its own process; resolves with its base URL. */
export const stub = (env: Record<string, string>) =>
  spawnScript(join(here, 'stub-server.ts'), env, /listening on (\S+)/);

/** Stops every process {@link spawnScript} started (the reference server drops its database first). */
export const stopChildren = () =>
  Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined);
          child.once('exit', resolve);
          child.kill();
        }),
    ),
  );
