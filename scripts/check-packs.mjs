// CI's `install:packs`: the tarballs of `pnpm pack:all`, installed the way a user installs them,
// outside this workspace, with plain npm, and used:
//
//   - `npm install .packs/*.tgz vitest` in a fresh directory (third-party dependencies from the
//     registry; the server's optional peers, the AWS SDK and OpenTelemetry, are not installed);
//   - every package has a README, whose relative links reach files the package ships;
//   - one copy each of PGlite and zod, which the packages hand to one another;
//   - the server's bin (`marketplace-server serve`, in-memory PGlite, test helpers on) answers
//     `GET /ready` 200; without the optional peers, asking for S3 or tracing stops it with one line;
//   - an ESM and a CommonJS program on `@app/sdk` create and list organizations on it;
//   - an editor's hover over a field the SDK sends or returns shows its description, from the
//     published declarations (ESM and CommonJS);
//   - a vitest file uses the test kit (`@app/testing`), and a CommonJS script too (it must exit by itself);
//   - `marketplace --version` prints the CLI's version;
//   - `marketplace-mcp` answers `tools/list` over stdio.
//
// Run with the Node it is to be checked on first on PATH (CI: the project's Node 24). Usage:
// `node scripts/check-packs.mjs [packs dir]` (default `.packs`). Prints the sizes of what was
// installed; exits non-zero on any failure.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';

const packs = resolve(process.argv[2] ?? join(import.meta.dirname, '..', '.packs'));
const tarballs = readdirSync(packs)
  .filter((f) => f.endsWith('.tgz'))
  .map((f) => join(packs, f));
if (tarballs.length === 0) throw new Error(`no tarballs in ${packs}: run pnpm pack:all first`);

const dir = mkdtempSync(join(tmpdir(), 'packs-'));
const bin = (name) => join(dir, 'node_modules', '.bin', name);
const step = (text) => console.log(`\n== ${text}`);
const sh = (command, args, options = {}) => {
  console.log(`$ ${[command, ...args].join(' ')}`);
  return execFileSync(command, args, {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'inherit'],
    ...options,
  });
};
const check = (ok, message) => {
  if (!ok) throw new Error(message);
  console.log(`ok: ${message}`);
};
const children = [];

try {
  step(`npm install (Node ${process.version}, npm ${sh('npm', ['--version']).trim()}) in ${dir}`);
  writeFileSync(join(dir, 'package.json'), '{ "name": "packs-consumer", "private": true }\n');
  sh('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs, 'vitest@^5.1.1'], {
    stdio: 'inherit',
  });
  const installed = (name) => existsSync(join(dir, 'node_modules', ...name.split('/'), 'package.json'));
  for (const optional of ['@aws-sdk/client-s3', '@opentelemetry/sdk-node', '@fastify/otel'])
    check(!installed(optional), `${optional} (an optional peer of the server) is not installed`);
  console.log(`node_modules: ${sh('du', ['-sh', 'node_modules']).split('\t')[0]}`);
  // One copy each of what the packages hand to one another (a PGlite instance from the test kit
  // to the server and MikroORM's driver; zod schemas from @app/schemas to the SDK and the server).
  for (const shared of ['@electric-sql/pglite', 'zod']) {
    const copies = sh('find', ['node_modules', '-path', `*node_modules/${shared}/package.json`])
      .split('\n')
      .filter(Boolean);
    check(
      copies.length === 1,
      `one copy of ${shared} is installed${copies.length === 1 ? '' : `, not ${copies.length}: ${copies.join(', ')}`}`,
    );
  }

  step('every package has a README whose links reach files it ships');
  for (const tarball of tarballs) {
    const name = JSON.parse(sh('tar', ['-xzOf', tarball, 'package/package.json'])).name;
    const home = join(dir, 'node_modules', ...name.split('/'));
    const readme = join(home, 'README.md');
    check(existsSync(readme), `${name} ships a README.md`);
    const broken = [...readFileSync(readme, 'utf8').matchAll(/\]\(([^)\s]+)\)/g)]
      .map((match) => match[1])
      .filter((target) => !/^(https?:|mailto:|#)/.test(target))
      .filter((target) => !existsSync(join(home, decodeURIComponent(target.split('#')[0]))));
    check(
      broken.length === 0,
      `${name}'s README links only to files it ships${broken.length ? `: not ${broken.join(', ')}` : ''}`,
    );
  }

  step('marketplace-server serve answers /ready');
  const helpersKey = randomBytes(24).toString('hex');
  const server = spawn(bin('marketplace-server'), ['serve'], {
    cwd: dir,
    env: {
      ...process.env,
      PORT: '0',
      DATABASE_URL: 'pglite://memory',
      MARKETPLACE_DATA_DIR: join(dir, '.data'),
      MARKETPLACE_TEST_HELPERS_KEY: helpersKey,
      LOG_FORMAT: 'json',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(server);
  const origin = await new Promise((resolveOrigin, reject) => {
    let output = '';
    server.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/[^"\s]+)/.exec(output);
      if (match) resolveOrigin(match[1]);
    });
    server.on('exit', (code) => reject(new Error(`marketplace-server exited with ${code}:\n${output}`)));
  });
  const ready = await fetch(`${origin}/ready`);
  check(ready.status === 200, `GET ${origin}/ready is ${ready.status} ${JSON.stringify(await ready.json())}`);

  const created = await fetch(`${origin}/test_helpers/users.json`, {
    method: 'POST',
    headers: { authorization: `Bearer ${helpersKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ user: { name: 'Packs', email: 'packs@example.com' } }),
  });
  check(created.status === 201, `a user made through the test helpers (${created.status})`);
  const token = (await created.json()).access_token.token;
  const env = { ...process.env, MARKETPLACE_TOKEN: token, MARKETPLACE_BASE_URL: origin };

  step('an ESM and a CommonJS program on @app/sdk');
  writeFileSync(
    join(dir, 'esm.mjs'),
    `import { Marketplace, NotFoundError, VERSION } from '@app/sdk';
const client = new Marketplace({ token: process.env.MARKETPLACE_TOKEN, baseUrl: process.env.MARKETPLACE_BASE_URL });
const org = await client.organizations.create({ name: 'From ESM' });
const names = [];
for await (const o of client.organizations.list()) names.push(o.name);
const missing = await client.organizations.retrieve('nope').catch((e) => e);
if (!names.includes(org.name) || !(missing instanceof NotFoundError)) throw new Error('unexpected: ' + names);
console.log('ESM ok: @app/sdk ' + VERSION + ', ' + names.join(', '));
`,
  );
  writeFileSync(
    join(dir, 'cjs.cjs'),
    `const { Marketplace, NotFoundError, VERSION } = require('@app/sdk');
(async () => {
  const client = new Marketplace({ token: process.env.MARKETPLACE_TOKEN, baseUrl: process.env.MARKETPLACE_BASE_URL });
  const org = await client.organizations.create({ name: 'From CommonJS' });
  const page = await client.organizations.list();
  const missing = await client.organizations.retrieve('nope').catch((e) => e);
  if (!page.data.some((o) => o.id === org.id) || !(missing instanceof NotFoundError)) throw new Error('unexpected');
  console.log('CommonJS ok: @app/sdk ' + VERSION + ', ' + page.data.map((o) => o.name).join(', '));
})().catch((e) => { console.error(e); process.exit(1); });
`,
  );
  console.log(sh(process.execPath, ['esm.mjs'], { env }).trim());
  console.log(sh(process.execPath, ['cjs.cjs'], { env }).trim());

  step("an editor's hover over @app/sdk's types says what a field sent and a field returned mean");
  // The published declarations, not the sources: TypeScript (the workspace's) asked as an editor asks.
  for (const file of ['hover.mts', 'hover.cts']) {
    const text = `import { Marketplace } from '@app/sdk';
const client = new Marketplace({ token: 't', baseUrl: 'http://x' });
export async function shown() {
  await client.campaigns.create('o' as never, { cpm_amount: 500 });
  const campaign = await client.campaigns.retrieve('o' as never, 'c' as never);
  for await (const member of client.members.list('o' as never)) return [campaign.unused_amount, member.user.email];
}
`;
    writeFileSync(join(dir, file), text);
    const path = join(dir, file);
    const service = ts.createLanguageService({
      getScriptFileNames: () => [path],
      getScriptVersion: () => '1',
      getScriptSnapshot: (f) =>
        existsSync(f) ? ts.ScriptSnapshot.fromString(readFileSync(f, 'utf8')) : undefined,
      getCurrentDirectory: () => dir,
      getCompilationSettings: () => ({
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        strict: true,
        types: [],
      }),
      getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
      fileExists: ts.sys.fileExists,
      readFile: ts.sys.readFile,
      readDirectory: ts.sys.readDirectory,
      directoryExists: ts.sys.directoryExists,
      getDirectories: ts.sys.getDirectories,
    });
    const doc = (needle) => {
      const info = service.getQuickInfoAtPosition(path, text.indexOf(needle) + needle.lastIndexOf('.') + 1);
      return ts.displayPartsToString(info?.documentation);
    };
    const pay = doc('cpm_amount: 500');
    check(pay.includes('minor unit of `currency`'), `${file}: cpm_amount (sent): ${pay}`);
    const amount = doc('campaign.unused_amount');
    const email = doc('member.user.email');
    check(amount.includes('total_budget_amount - used_amount'), `${file}: unused_amount: ${amount}`);
    check(email.includes('e-mail address'), `${file}: user.email: ${email}`);
  }

  step('marketplace --version');
  const cliVersion = JSON.parse(
    readFileSync(join(dir, 'node_modules/@app/cli/package.json'), 'utf8'),
  ).version;
  const printed = sh(bin('marketplace'), ['--version']).trim();
  check(printed === cliVersion, `marketplace --version printed ${printed}`);
  const orgs = JSON.parse(sh(bin('marketplace'), ['organizations', 'list', '--output', 'json'], { env }));
  check(orgs.length === 2, `marketplace organizations list: ${orgs.map((o) => o.name).join(', ')}`);

  step('marketplace-mcp answers tools/list');
  const tools = await mcpToolsList(env);
  check(
    tools.length > 10,
    `marketplace-mcp lists ${tools.length} tools (${tools.slice(0, 3).join(', ')}, …)`,
  );

  step('the test kit in a vitest file');
  const kit = '@app/testing';
  writeFileSync(
    join(dir, 'kit.test.mjs'),
    `import { startTestServer } from '${kit}';
import { afterAll, beforeAll, expect, test } from 'vitest';

let server;
// As the kit's README says: the first start makes the snapshot, longer than vitest's default 10 s.
beforeAll(async () => { server = await startTestServer(); }, 60_000);
afterAll(() => server.close());

test('a user of the test kit creates and lists an organization', async () => {
  const client = server.client(await server.createUser());
  await client.organizations.create({ name: 'Acme' });
  expect((await client.organizations.list()).data).toMatchObject([{ name: 'Acme' }]);
  await server.reset();
});
`,
  );
  sh(bin('vitest'), ['run', 'kit.test.mjs'], { stdio: 'inherit' });
  console.log(`ok: ${kit} in vitest`);

  step(
    'the test kit from CommonJS, as node:test runs it (jest, with --experimental-vm-modules: its README): the same Marketplace class, and the process exits by itself',
  );
  writeFileSync(
    join(dir, 'kit.cjs'),
    `const { startTestServer } = require('${kit}');
const { Marketplace } = require('@app/sdk');
(async () => {
  const server = await startTestServer();
  const client = server.client(await server.createUser());
  const org = await client.organizations.create({ name: 'Acme' });
  await client.collabs.create(org.id, { name: 'Launch' });
  await server.close();
  process.stdout.write(String(client instanceof Marketplace));
})();
`,
  );
  // A handle left open (a worker thread, a socket) would keep it running: the timeout fails it.
  const sameClass = sh(process.execPath, ['kit.cjs'], { timeout: 60_000 });
  check(sameClass === 'true', `client() instanceof the project's Marketplace: ${sameClass}`);
  console.log(`ok: ${kit} from CommonJS`);

  step('without the optional peers, S3 and tracing stop the server with one line');
  for (const [name, value] of [
    ['MARKETPLACE_STORAGE_URL', 's3://bucket?endpoint=http://127.0.0.1:9&force_path_style=true'],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'http://127.0.0.1:4318'],
  ]) {
    const result = await exitOf(bin('marketplace-server'), ['serve'], {
      ...process.env,
      PORT: '0',
      DATABASE_URL: 'pglite://memory',
      MARKETPLACE_DATA_DIR: join(dir, '.data'),
      [name]: value,
    });
    const lines = result.stderr.trim().split('\n');
    check(
      result.code === 1 && lines.length === 1 && /npm install @/.test(lines[0]),
      `${name} set: exit ${result.code}, "${lines[0]}"`,
    );
  }
  console.log('\ninstall:packs ok');
} finally {
  for (const child of children) child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}

/** `tools/list` of `marketplace-mcp` over stdio (newline-delimited JSON-RPC), after the handshake. */
async function mcpToolsList(env) {
  const child = spawn(bin('marketplace-mcp'), ['--read-only'], {
    cwd: dir,
    env,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  const answers = new Map();
  let buffer = '';
  const waiting = new Map();
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      answers.set(message.id, message);
      waiting.get(message.id)?.(message);
    }
  });
  const request = (id, method, params) =>
    new Promise((resolveAnswer, reject) => {
      waiting.set(id, resolveAnswer);
      child.once('exit', (code) => reject(new Error(`marketplace-mcp exited with ${code}`)));
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  await request(1, 'initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'check-packs', version: '1.0.0' },
  });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  const listed = await request(2, 'tools/list', {});
  child.kill('SIGTERM');
  return listed.result.tools.map((tool) => tool.name);
}

/** Runs a command to its end: its exit code and its output. */
function exitOf(command, args, env) {
  return new Promise((resolveExit) => {
    const child = spawn(command, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    // `close`, not `exit`: the child's last output can still be in its pipes when it has exited.
    child.on('close', (code) => resolveExit({ code, stdout, stderr }));
  });
}
