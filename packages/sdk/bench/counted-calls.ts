/**
 * One side of an SDK case for `instructions.ts`, in a process of its own under callgrind:
 * `counted-calls.ts <case> <base URL> <warm-up calls> <counted calls>`. It makes the warm-up calls,
 * prints `warm`, waits for a line on stdin (the counts zeroed), makes the counted calls, prints
 * `done`, and exits when stdin ends.
 */
import { createInterface } from 'node:readline';
import { Marketplace } from '@app/sdk';
import {
  checkedPage,
  handLoop,
  iterate,
  kyAlone,
  ORG,
  PLAIN_ORG,
  stubHeaders,
  stubListUrl,
  stubPlainUrl,
  token,
} from './cases.js';

const [name, base = '', warmUp = '0', counted = '0'] = process.argv.slice(2);
const client = new Marketplace({ baseUrl: base, token, cache: false });
const kyGet = kyAlone(stubHeaders);
const cases: Record<string, () => Promise<unknown>> = {
  'ky retrieve': async () => JSON.parse(await kyGet(stubPlainUrl(base)).text()),
  'sdk retrieve': () => client.organizations.retrieve(PLAIN_ORG),
  'ky iterate': handLoop(kyGet, stubListUrl(base)),
  'ky checked iterate': handLoop(kyGet, stubListUrl(base), checkedPage),
  'sdk iterate': iterate(client, ORG),
};
const call = cases[name ?? ''];
if (!call) throw new Error(`no case ${name} (cases: ${Object.keys(cases).join(', ')})`);

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
for (let i = 0; i < Number(warmUp); i++) await call();
// Both sides' counts start from a collected heap (`--expose-gc`, given by instructions.ts).
(globalThis as { gc?: () => void }).gc?.();
process.stdout.write('warm\n');
await lines.next();
for (let i = 0; i < Number(counted); i++) await call();
process.stdout.write('done\n');
await lines.next();
