/**
 * The CLI against the real server, started in-process by the SDK's e2e harness; its config home is
 * a scratch directory. Most tests call `main()`, what `dist/bin.js` runs, in this process with the
 * IO of a command in a pipe (stdout and stdin not terminals): a command costs milliseconds, not a
 * process start (0.3-0.6 s, about 140 of them). What only a process has (the bin's own wiring, a
 * pipe its reader closes, a pseudo-terminal, a working directory) spawns the built bin: `runBin`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publicEndpoints } from '@app/schemas';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { download, png, runChild, type TestUser, useServer } from '../../sdk/test/e2e/harness.js';
import { runInProcess } from './run.js';

const server = useServer();
const bin = join(import.meta.dirname, '../dist/bin.js');
const scratch = mkdtempSync(join(tmpdir(), 'cli-e2e-'));
// It holds config files with tokens in them (auth login): gone with the suite.
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const { NODE_PATH: _hoisted, MARKETPLACE_TOKEN: _t, MARKETPLACE_BASE_URL: _b, ...inherited } = process.env;

let user: TestUser;

/** The environment of a command: this user's token and the server, unless `env` says otherwise. */
const environmentOf = (env: Record<string, string | undefined>) => ({
  ...inherited,
  XDG_CONFIG_HOME: join(scratch, 'config'),
  MARKETPLACE_TOKEN: user.token,
  MARKETPLACE_BASE_URL: server.url,
  ...env,
});

/** Runs `marketplace …args` in this process, as the built bin runs it in a pipe (test/run.ts). */
const run = (args: string[], env: Record<string, string | undefined> = {}, input = '') =>
  runInProcess(args, environmentOf(env), input);

/** Runs the built bin, `node dist/bin.js …args`, in a child process (same environment as `run`). */
const runBin = (args: string[], env: Record<string, string | undefined> = {}, input = '') =>
  runChild(process.execPath, [bin, ...args], { env: environmentOf(env), input });

/** Runs a command that must succeed and print JSON; returns it parsed. */
async function json<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const result = await run(args);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as T;
}

beforeAll(async () => {
  user = await server.newUser('Shell User');
});

describe('the built bin', () => {
  test('is main() in a process: the same output and exit code for help, a usage error, a call, a body on stdin', async () => {
    for (const args of [['--help'], ['collabs', 'list'], ['nope'], ['organizations', 'list']]) {
      const [child, inProcess] = [await runBin(args), await run(args)];
      expect(child, args.join(' ')).toEqual(inProcess);
    }
    const piped = await runBin(['organizations', 'create', '--body', '@-'], {}, '{"name":"From a pipe"}');
    expect([piped.code, piped.stderr]).toEqual([0, '']);
    expect(JSON.parse(piped.stdout)).toMatchObject({ name: 'From a pipe' });
    const login = await runBin(
      ['auth', 'login', '--base-url', server.url],
      { MARKETPLACE_TOKEN: undefined, XDG_CONFIG_HOME: join(scratch, 'bin-login') },
      `${user.token}\n`,
    );
    expect([login.code, login.stderr]).toEqual([0, '']);
    expect(statSync(join(scratch, 'bin-login', 'marketplace', 'config.json')).mode & 0o777).toBe(0o600);
  });
});

describe('help and usage', () => {
  test('--help on every level comes from the table', async () => {
    const top = await run(['--help']);
    expect(top.code).toBe(0);
    for (const group of ['organizations', 'collabs', 'campaigns', 'members', 'me', 'auth', 'completion'])
      expect(top.stdout).toMatch(new RegExp(`^  ${group} `, 'm'));
    const group = await run(['collabs', '--help']);
    for (const e of publicEndpoints.filter((x) => x.name.startsWith('collabs.')))
      expect(group.stdout).toContain(e.summary);
    const me = await run(['me', '--help']);
    expect(me.stdout).toMatch(/^ {2}social-accounts +list, retrieve, create, delete$/m);
    const method = await run(['me', 'address', 'update', '--help']);
    expect(method.code).toBe(0);
    expect(method.stdout).toContain('Create or update the shipping address');
    expect(method.stdout).toContain('--city <string>');
    expect(method.stdout).toContain('PATCH /me/address.json');
    // The table's prose under the summary: who may call, what the answer is.
    expect(method.stdout).toMatch(
      /Needs a `write` token \(a read token gets `401`\)\. Any authenticated\s+user\./,
    );
  });

  test('usage errors exit 2 with a message on stderr', async () => {
    for (const args of [
      [],
      ['nope'],
      ['collabs', 'list'],
      ['collabs', 'list', 'a', 'b'],
      ['organizations', 'create', '--nope', 'x'],
      ['organizations', 'list', '--output', 'xml'],
    ]) {
      const result = await run(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).not.toBe('');
    }
    expect((await run(['collabs', 'list'])).stderr).toContain('takes <organization_id>');
    // parseArgs' own wording (its syntax, a quote left open) is said in the CLI's words.
    expect((await run(['organizations', 'create', '--nmae', 'x'])).stderr.split('\n')[0]).toBe(
      'marketplace: organizations create: unknown option --nmae. Did you mean "--name"?',
    );
    expect(
      (await run(['collabs', 'create', 'o1', '--name', '--currency', 'eur'])).stderr.split('\n')[0],
    ).toBe(
      'marketplace: collabs create: --name needs a value (--name VALUE; a value that starts with "-" as --name=-VALUE)',
    );
    // An option with a short alias: named as an option, each form given as it is typed.
    for (const args of [
      ['organizations', 'list', '-o'],
      ['organizations', 'list', '--output'],
      ['organizations', 'list', '-o', '-y'],
    ])
      expect((await run(args)).stderr.split('\n')[0], args.join(' ')).toBe(
        'marketplace: organizations list: --output needs a value (--output VALUE or -o VALUE; a value that starts with "-" as --output=-VALUE)',
      );
    expect((await run(['--bogus', 'organizations', 'list'])).stderr.split('\n')[0]).toBe(
      'marketplace: unknown option --bogus.',
    );
    expect((await run(['--outptu', 'json', 'organizations', 'list'])).stderr.split('\n')[0]).toBe(
      'marketplace: unknown option --outptu. Did you mean "--output"?',
    );
    expect((await run([], { MARKETPLACE_TOKEN: '' })).code).toBe(2);
    const noToken = await run(['organizations', 'list'], { MARKETPLACE_TOKEN: '' });
    expect([noToken.code, noToken.stderr]).toEqual([2, expect.stringContaining('auth login')]);
  });

  test('a file field that is not a readable file is a usage error (exit 2), not a stack trace', async () => {
    const dir = await run(['organizations', 'create', '--name', 'X', '--logo', scratch]);
    expect([dir.code, dir.stdout]).toEqual([2, '']);
    expect(dir.stderr).toMatch(/^marketplace: --logo: cannot read .*: it is a directory\n/);
    expect(dir.stderr).not.toMatch(/\n\s+at /);
    // --body @file says it the same way.
    const body = await run(['organizations', 'create', '--body', '@missing.json']);
    expect([body.code, body.stderr.split('\n')[0]]).toEqual([
      2,
      'marketplace: --body: cannot read missing.json: no such file',
    ]);
  });

  test("a file is read up to the API's limit, no further: /dev/zero or a huge file is a usage error (exit 2), nothing sent (it read until memory ran out)", async () => {
    const huge = join(scratch, 'huge.png');
    writeFileSync(huge, '');
    truncateSync(huge, 6 * 1024 * 1024); // sparse: 6 MiB that take no disk
    const limit = 'more than the API takes; nothing was sent';
    for (const path of ['/dev/zero', huge]) {
      const refused = await run(['organizations', 'create', '--name', 'X', '--logo', path]);
      expect([refused.code, refused.stdout, refused.stderr.split('\n')[0]]).toEqual([
        2,
        '',
        `marketplace: --logo: cannot read ${path}: it is over 5242880 bytes, ${limit}`,
      ]);
    }
    // A server whose limit is raised: the same variable raises the CLI's.
    const raised = await run(['organizations', 'create', '--name', 'X', '--logo', huge], {
      MARKETPLACE_MAX_UPLOAD_BYTES: String(8 * 1024 * 1024),
    });
    expect(raised.stderr).not.toContain('cannot read');
    // A value that is no number of bytes is said where a file is read, and only there.
    const wrong = await run(['organizations', 'create', '--name', 'X', '--logo', huge], {
      MARKETPLACE_MAX_UPLOAD_BYTES: '5MB',
    });
    expect([wrong.code, wrong.stderr.split('\n')[0]]).toEqual([
      2,
      'marketplace: MARKETPLACE_MAX_UPLOAD_BYTES must be a number of bytes (got 5MB)',
    ]);
    expect((await run(['organizations', 'list'], { MARKETPLACE_MAX_UPLOAD_BYTES: '5MB' })).code).toBe(0);
    const body = await run(['organizations', 'create', '--body', '@/dev/zero']);
    expect([body.code, body.stderr.split('\n')[0]]).toEqual([
      2,
      'marketplace: --body: cannot read /dev/zero: it is over 1048576 bytes, more than the API takes; nothing was sent',
    ]);
    expect((await run(['organizations', 'list', '-o', 'json'])).stdout).not.toContain('"X"');
  });

  test('-o is --output, before or after the command', async () => {
    const after = await run(['me', 'notification-settings', 'retrieve', '-o', 'table']);
    expect([after.code, after.stderr]).toEqual([0, '']);
    expect(after.stdout).toMatch(/^push_notifications_enabled +(true|false)$/m);
    const before = await run(['-o', 'table', 'me', 'notification-settings', 'retrieve']);
    expect([before.code, before.stdout]).toEqual([0, after.stdout]);
    expect((await run(['--help'])).stdout).toContain('-o, --output json|table');
  });

  test('marketplace help [words…] is marketplace [words…] --help', async () => {
    for (const words of [[], ['collabs'], ['collabs', 'list'], ['auth'], ['completion']]) {
      const help = await run(['help', ...words]);
      const asked = await run([...words, '--help']);
      expect([help.code, help.stdout, help.stderr], words.join(' ')).toEqual([0, asked.stdout, '']);
    }
    const unknown = await run(['help', 'colabs']);
    expect([unknown.code, unknown.stderr.split('\n')[0]]).toEqual([
      2,
      'marketplace: unknown command "colabs". Did you mean "collabs"?',
    ]);
  });

  test('completion with a word after the shell is a usage error', async () => {
    const extra = await run(['completion', 'bash', 'extra']);
    expect([extra.code, extra.stdout, extra.stderr.split('\n')[0]]).toEqual([
      2,
      '',
      'marketplace: completion bash: unexpected "extra"',
    ]);
  });

  test('--body with a mistyped field suggests the field, as a mistyped flag does', async () => {
    const typo = await run(['organizations', 'create', '--body', '{"nmae":"x"}']);
    expect([typo.code, typo.stdout, typo.stderr.split('\n')[0]]).toEqual([
      2,
      '',
      'marketplace: --body: unknown field "nmae". Did you mean "name"?',
    ]);
  });

  test('an empty file flag says the value is empty, not that a file named "" is missing', async () => {
    const empty = await run(['organizations', 'create', '--name', 'X', '--logo', '']);
    expect([empty.code, empty.stdout, empty.stderr.split('\n')[0]]).toEqual([
      2,
      '',
      'marketplace: --logo is empty: give a file path or a data: URL',
    ]);
  });

  test('--body @- reads stdin; JSON it cannot parse says where; a UTF-8 BOM is skipped', async () => {
    const piped = await run(['organizations', 'create', '--body', '@-'], {}, '{"name":"From stdin"}');
    expect([piped.code, piped.stderr]).toEqual([0, '']);
    expect(JSON.parse(piped.stdout).name).toBe('From stdin');
    const both = await run(['organizations', 'create', '--body', '@-', '--token-stdin'], {}, '{}');
    expect([both.code, both.stderr.split('\n')[0]]).toEqual([
      2,
      'marketplace: --body @- and --token-stdin both read stdin: give the body from a file or the token another way',
    ]);
    // The parser's own words: where it stopped, or the text around it.
    const broken = await run(['organizations', 'create', '--body', '{"name" "x"}']);
    expect(broken.code).toBe(2);
    expect(broken.stderr.split('\n')[0]).toMatch(/^marketplace: --body is not valid JSON: .*position 8\b/);
    const token = await run(['organizations', 'create', '--body', '{"name":}']);
    expect(token.stderr.split('\n')[0]).toMatch(
      /^marketplace: --body is not valid JSON: Unexpected token '}'/,
    );
    const list = await run(['organizations', 'create', '--body', '["x"]']);
    expect(list.stderr.split('\n')[0]).toBe(
      'marketplace: --body must be a JSON object (or @file holding one), not an array',
    );
    writeFileSync(join(scratch, 'bom.json'), '\uFEFF{"name":"With a BOM"}\n');
    const bom = await run(['organizations', 'create', '--body', `@${join(scratch, 'bom.json')}`]);
    expect([bom.code, bom.stderr]).toEqual([0, '']);
    expect(JSON.parse(bom.stdout).name).toBe('With a BOM');
  });

  test('a boolean flag alone is true, --no-<flag> false; a single-valued flag given twice is a usage error', async () => {
    const on = await run(['me', 'notification-settings', 'update', '--push-notifications-enabled']);
    expect([on.code, on.stderr]).toEqual([0, '']);
    expect(JSON.parse(on.stdout).push_notifications_enabled).toBe(true);
    const off = await run(['me', 'notification-settings', 'update', '--no-push-notifications-enabled']);
    expect(JSON.parse(off.stdout).push_notifications_enabled).toBe(false);
    const spelled = await run([
      'me',
      'notification-settings',
      'update',
      '--push-notifications-enabled',
      'true',
    ]);
    expect(JSON.parse(spelled.stdout).push_notifications_enabled).toBe(true);
    const twice = await run(['organizations', 'create', '--name', 'A', '--name', 'B']);
    expect([twice.code, twice.stdout, twice.stderr.split('\n')[0]]).toEqual([
      2,
      '',
      'marketplace: organizations create: --name is given more than once (A, B); give it once',
    ]);
    // A list takes its flag again: the values add up.
    const org = await json<{ id: string }>(['organizations', 'create', '--name', 'Lists']);
    const collab = await json([
      'collabs',
      'create',
      org.id,
      '--name',
      'C',
      '--countries',
      'NO',
      '--countries',
      'SE',
    ]);
    expect(collab.countries).toEqual(['NO', 'SE']);
  });

  test('a number flag takes a number as JSON writes it; other text (hex, spaces, a sign, Infinity) is refused before sending, not read as a number', async () => {
    const org = await user.client.organizations.create({ name: 'Numbers' });
    const written = await json([
      'campaigns',
      'create',
      org.id,
      '--name',
      'N',
      '--cpm-amount',
      '1e3',
      '--min-payout-amount',
      '0',
    ]);
    expect([written.cpm_amount, written.min_payout_amount]).toEqual([1000, 0]);
    const before = (await user.client.campaigns.list(org.id)).totalCount;
    for (const text of ['0x1F4', ' 500', '500 ', '+500', 'Infinity', '1e999', '0b11', '']) {
      const refused = await run(['campaigns', 'create', org.id, '--name', 'N', '--cpm-amount', text]);
      expect([refused.code, refused.stdout, refused.stderr.split('\n')[0]], JSON.stringify(text)).toEqual([
        2,
        '',
        'marketplace: Invalid request: --cpm-amount must be an integer',
      ]);
    }
    expect((await user.client.campaigns.list(org.id)).totalCount).toBe(before);
    // A negative number is a number flag's value as the next word too (`-2` is no option), not
    // only after `=`: here the field's own check refuses it, as it does `--cpm-amount=-2`.
    const campaign = await user.client.campaigns.create(org.id, { name: 'Negative' });
    for (const args of [['--cpm-amount', '-2'], ['--cpm-amount=-2'], ['--min-payout-amount', '-2.5e1']]) {
      const negative = await run(['campaigns', 'update', org.id, campaign.id, ...args]);
      expect([negative.code, negative.stdout, negative.stderr.split('\n')[0]], args.join(' ')).toEqual([
        2,
        '',
        `marketplace: Invalid request: ${args[0]?.replace(/=.*/, '')} must be greater than or equal to 0`,
      ]);
    }
    // A word after it that is no number is still a missing value.
    const word = await run(['campaigns', 'update', org.id, campaign.id, '--cpm-amount', '-x']);
    expect(word.stderr.split('\n')[0]).toBe(
      'marketplace: campaigns update: --cpm-amount needs a value (--cpm-amount VALUE; a value that starts with "-" as --cpm-amount=-VALUE)',
    );
  });

  test('a required flag left out says it is required (it said "can\'t be blank", as for a blank value)', async () => {
    const missing = await run(['organizations', 'create']);
    expect([missing.code, missing.stdout, ...missing.stderr.split('\n').slice(0, 2)]).toEqual([
      2,
      '',
      'marketplace: Invalid request: --name is required',
      'marketplace: hint: Fix these fields and call again: --name is required.',
    ]);
    const role = await run(['members', 'update', 'o1', 'm1']);
    expect(role.stderr.split('\n')[0]).toBe('marketplace: Invalid request: --role is required');
    // A value given blank: the API's rule, "can't be blank", checked before sending (exit 2).
    const blank = await run(['organizations', 'create', '--name', '']);
    expect([blank.code, blank.stdout, blank.stderr.split('\n')[0]]).toEqual([
      2,
      '',
      "marketplace: Invalid request: --name can't be blank",
    ]);
  });

  test('--purge-logo alone is "1", --no-purge-logo "0"; a purge with a new file of the same field is a usage error', async () => {
    writeFileSync(join(scratch, 'purge.png'), png(2, 2, [200, 0, 0]));
    const org = await json<{ id: string; logo_url?: string }>([
      'organizations',
      'create',
      '--name',
      'Purged',
      '--logo',
      join(scratch, 'purge.png'),
    ]);
    expect(org.logo_url).toBeDefined();
    const kept = await run(['organizations', 'update', org.id, '--no-purge-logo']);
    expect([kept.code, kept.stderr]).toEqual([0, '']);
    expect(JSON.parse(kept.stdout).logo_url).toBeDefined();
    const purged = await run(['organizations', 'update', org.id, '--purge-logo']);
    expect([purged.code, purged.stderr]).toEqual([0, '']);
    expect(JSON.parse(purged.stdout).logo_url).toBeUndefined();
    const spelled = await run(['organizations', 'update', org.id, '--purge-logo', 'true', '--name', 'P2']);
    expect([spelled.code, spelled.stderr]).toEqual([0, '']);
    for (const purge of [['--purge-logo'], ['--purge-logo', '1'], ['--body', '{"purge_logo":"1"}']]) {
      const both = await run([
        'organizations',
        'update',
        org.id,
        ...purge,
        '--logo',
        join(scratch, 'purge.png'),
      ]);
      expect([both.code, both.stdout, both.stderr.split('\n')[0]], purge.join(' ')).toEqual([
        2,
        '',
        'marketplace: organizations update: --purge-logo 1 removes the logo and --logo gives a new one: give one of them (with both, the server keeps the new file)',
      ]);
    }
    const banner = await run([
      'collabs',
      'update',
      org.id,
      'AAAAAAAAAAAAAAAA',
      '--purge-banner-image',
      '--banner-image',
      join(scratch, 'purge.png'),
    ]);
    expect([banner.code, banner.stderr.split('\n')[0]]).toEqual([
      2,
      'marketplace: collabs update: --purge-banner-image 1 removes the banner image and --banner-image gives a new one: give one of them (with both, the server keeps the new file)',
    ]);
  });

  test("the README's examples work as written; a file flag's help says a data: URL works too", async () => {
    const readme = readFileSync(join(import.meta.dirname, '../README.md'), 'utf8');
    const fresh = await server.newUser('Address From The README');
    const lines = [...readme.matchAll(/^marketplace (me address update .*?)\s*(?:#.*)?$/gm)];
    expect(lines.length).toBeGreaterThan(0);
    for (const [, line] of lines) {
      const args = [...(line as string).matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '');
      const result = await run(args, { MARKETPLACE_TOKEN: fresh.token });
      expect([result.code, result.stderr], line).toEqual([0, '']);
    }
    const help = await run(['organizations', 'create', '--help']);
    expect(help.stdout).toMatch(/^ {2}--logo <\S+> +a file path, or a data: URL$/m);
  });

  test('a malformed config file: unused when flags and environment give both; otherwise one line, exit 2', async () => {
    const home = join(scratch, 'broken');
    mkdirSync(join(home, 'marketplace'), { recursive: true });
    writeFileSync(join(home, 'marketplace', 'config.json'), '{bad');
    const fromEnv = await run(['organizations', 'list'], { XDG_CONFIG_HOME: home });
    expect([fromEnv.code, fromEnv.stderr]).toEqual([0, '']);
    const needed = await run(['organizations', 'list'], {
      XDG_CONFIG_HOME: home,
      MARKETPLACE_TOKEN: undefined,
    });
    expect(needed.code).toBe(2);
    expect(needed.stderr).toMatch(
      /^marketplace: cannot read .*config\.json: .*JSON.*\nRun `marketplace organizations list --help`/s,
    );
    expect(needed.stderr).not.toMatch(/\n\s+at /);
  });

  test('auth logout with a config file it cannot read says so (exit 2), never "no token is stored"', async () => {
    const home = join(scratch, 'broken-logout');
    mkdirSync(join(home, 'marketplace'), { recursive: true, mode: 0o700 });
    const file = join(home, 'marketplace', 'config.json');
    const text = '{"token":"mkt_secret","base_url":"http://127.0.0.1:1",}';
    writeFileSync(file, text, { mode: 0o600 });
    const logout = await run(['auth', 'logout'], { XDG_CONFIG_HOME: home });
    expect([logout.code, logout.stdout]).toEqual([2, '']);
    expect(logout.stderr).toMatch(/^marketplace: cannot read .*config\.json: .*\(fix or delete it/);
    expect(logout.stderr).not.toContain('mkt_secret');
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  test('--version, on any level', async () => {
    const version = (await run(['--version'])).stdout;
    expect(version.trim()).toMatch(/^\d+\.\d+\.\d+/);
    for (const args of [
      ['-v'],
      ['organizations', '--version'],
      ['me', 'address', '-v'],
      ['organizations', 'list', '-v'],
      ['auth', '--version'],
      ['auth', 'status', '-v'],
      ['completion', '--version'],
    ]) {
      const result = await run(args);
      expect([result.code, result.stdout], args.join(' ')).toEqual([0, version]);
    }
  });

  test('global options may come before the command', async () => {
    const table = await run(['--output', 'table', 'me', 'notification-settings', 'retrieve']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^push_notifications_enabled +(true|false)$/m);
    const included = await run(['--include', '--output=json', 'organizations', 'list']);
    expect([included.code, included.stdout]).toEqual([0, expect.stringMatching(/^HTTP 200/)]);
    const refused = await run(['--token', 'mkt_not_a_real_token', 'organizations', 'list']);
    expect(refused.code).toBe(1);
  });
});

describe('every group', () => {
  test('organizations: create with a logo from a file, list, retrieve, update, delete', async () => {
    const logo = png(3, 3, [0, 120, 255]);
    writeFileSync(join(scratch, 'logo.png'), logo);
    const created = await json([
      'organizations',
      'create',
      '--name',
      'Acme',
      '--logo',
      join(scratch, 'logo.png'),
    ]);
    expect(created).toMatchObject({ name: 'Acme', privacy_setting: 'private' });
    expect((await download(created.logo_url as string)).bytes).toEqual(logo);
    expect((await json<{ id: string }[]>(['organizations', 'list'])).map((o) => o.id)).toContain(created.id);
    expect((await json(['organizations', 'retrieve', created.id as string])).name).toBe('Acme');
    const updated = await json([
      'organizations',
      'update',
      created.id as string,
      '--body',
      '{"name":"Acme 2"}',
    ]);
    expect(updated.name).toBe('Acme 2');
    const gone = await json(['organizations', 'create', '--name', 'Gone']);
    const deleted = await run(['organizations', 'delete', gone.id as string, '--yes']);
    expect([deleted.code, deleted.stdout, deleted.stderr]).toEqual([0, '', '']);
    await expect(user.client.organizations.retrieve(gone.id as never)).rejects.toMatchObject({ status: 404 });
  });

  test('collabs: --all walks every page; one page otherwise; a transition', async () => {
    const org = await user.client.organizations.create({ name: 'Many collabs' });
    for (let i = 0; i < 22; i++) await user.client.collabs.create(org.id, { name: `C${i}` });
    const first = await run(['collabs', 'list', org.id]);
    expect(JSON.parse(first.stdout)).toHaveLength(20);
    expect(first.stderr).toMatch(/^marketplace: 20 of 22 collabs shown .*--page 2.*--all/);
    expect(await json<unknown[]>(['collabs', 'list', org.id, '--page', '2'])).toHaveLength(2);
    const all = await json<{ id: string }[]>(['collabs', 'list', org.id, '--all']);
    expect(all).toHaveLength(22);
    expect(new Set(all.map((c) => c.id)).size).toBe(22);
    expect(JSON.parse((await run(['collabs', 'list', org.id, '--max-items', '21'])).stdout)).toHaveLength(21);
    const both = await run(['collabs', 'list', org.id, '--all', '--max-items', '3']);
    expect([both.code, both.stdout]).toEqual([2, '']);
    expect(both.stderr).toMatch(/^marketplace: give --all or --max-items, not both$/m);
    const draft = await json(['collabs', 'create', org.id, '--name', 'Launch', '--countries', 'no,se']);
    expect(draft.countries).toEqual(['NO', 'SE']);
    expect((await json(['collabs', 'submit', org.id, draft.id as string, '--yes'])).state).toBe(
      'submitted_for_review',
    );
  });

  test('campaigns and members', async () => {
    const org = await user.client.organizations.create({ name: 'Campaigner' });
    const campaign = await json(['campaigns', 'create', org.id, '--name', 'Reels', '--cpm-amount', '250']);
    expect(campaign.cpm_amount).toBe(250);
    const updated = await json([
      'campaigns',
      'update',
      org.id,
      campaign.id as string,
      '--platform-ids',
      'youtube',
    ]);
    expect(updated.platform_ids).toEqual(['youtube']);
    const members = await json<{ role: string }[]>(['members', 'list', org.id]);
    expect(members.map((m) => m.role)).toEqual(['admin']);
  });

  test('me: address, social accounts, notification settings, notifications, access tokens', async () => {
    const address = await json([
      'me',
      'address',
      'update',
      '--address-one',
      '1 Main St',
      '--city',
      'Oslo',
      '--state',
      'Oslo',
      '--postal-code',
      '0150',
      '--country-code',
      'NO',
    ]);
    expect(address.city).toBe('Oslo');
    expect((await json(['me', 'address', 'update', '--city', 'Bergen'])).city).toBe('Bergen');
    expect((await json(['me', 'address', 'retrieve'])).address_one).toBe('1 Main St');
    const account = await json([
      'me',
      'social-accounts',
      'create',
      '--platform-id',
      'x',
      '--account-url',
      'https://x.com/shelluser',
    ]);
    expect((await json<unknown[]>(['me', 'social-accounts', 'list'])).length).toBe(1);
    expect((await run(['me', 'social-accounts', 'delete', account.id as string, '-y'])).code).toBe(0);
    const settings = await json([
      'me',
      'notification-settings',
      'update',
      '--push-notifications-enabled',
      'true',
    ]);
    expect(settings.push_notifications_enabled).toBe(true);
    expect(await json(['me', 'notifications', 'list'])).toEqual([]);
    const token = await json([
      'me',
      'access-tokens',
      'create',
      '--description',
      'cli',
      '--permission',
      'read',
    ]);
    expect(token.token).toMatch(/^mkt_/);
    expect((await json<{ id: string }[]>(['me', 'access-tokens', 'list'])).map((t) => t.id)).toContain(
      token.id,
    );
  });
});

describe('collabs create --query-website', () => {
  test('a page that cannot be read for the prefill is said on stderr: the API still creates the draft, from the defaults', async () => {
    const org = await user.client.organizations.create({ name: 'Prefill' });
    // The test server refuses private addresses for the prefill (as a production one does).
    const refused = await run(['collabs', 'create', org.id, '--query-website', 'http://127.0.0.1:9/product']);
    expect(refused.code).toBe(0);
    expect(JSON.parse(refused.stdout)).toMatchObject({ name: 'Untitled collab', website: null });
    expect(refused.stderr).toBe(
      'marketplace: --query-website http://127.0.0.1:9/product: the page could not be read for the prefill (refused as a private or local address, no answer within 3 s, not an HTML page, or one without a title or Open Graph tags), so the draft has the defaults; set its fields with `collabs update`\n',
    );
    // Without it, or with the fields given, nothing more is said.
    expect((await run(['collabs', 'create', org.id, '--name', 'Plain'])).stderr).toBe('');
  });
});

describe('output, errors and exit codes', () => {
  test('--output table prints rows; --include prints the status and headers', async () => {
    const org = await user.client.organizations.create({ name: 'Tabular' });
    const table = await run(['organizations', 'list', '--output', 'table']);
    expect(table.code).toBe(0);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID +NAME +PRIVACY_SETTING/);
    expect(rows.some((r) => r.startsWith(`${org.id}  `) && r.includes('Tabular'))).toBe(true);
    const one = await run(['organizations', 'retrieve', org.id, '--output', 'table']);
    expect(one.stdout).toMatch(/^name +Tabular$/m);

    const included = await run(['organizations', 'retrieve', org.id, '--include']);
    const [head, body] = included.stdout.split('\n\n');
    expect(head).toMatch(/^HTTP 200/);
    expect(head).toMatch(/^etag: W\//m);
    expect(head).toMatch(/^x-request-id: /m);
    expect(JSON.parse(body as string).id).toBe(org.id);
    const listed = await run(['organizations', 'list', '--include']);
    expect(listed.stdout).toMatch(/^total-count: \d+$/m);
  });

  test('JSON output shows DEL, C1 and bidi characters as \\u escapes: the same value, nothing that drives a terminal', async () => {
    const name = 'Mirror\u202egnp.exe\u009b2J\u007f end';
    const org = await user.client.organizations.create({ name });
    const shown = await run(['organizations', 'retrieve', org.id]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).not.toMatch(/[^\P{Cc}\n]|[\u202a-\u202e\u2066-\u2069]/u);
    expect(shown.stdout).toContain('"name": "Mirror\\u202Egnp.exe\\u009B2J\\u007F end"');
    expect(JSON.parse(shown.stdout).name).toBe(name);
  });

  test('a table shows control characters escaped (a name cannot drive the terminal); wide text stays aligned', async () => {
    const evil = await user.client.organizations.create({ name: 'Evil\u001b[2J\u001b]0;pwned\u0007\u202e!' });
    const wide = await user.client.organizations.create({ name: `日本語の組織 🚀${'Ж'.repeat(46)}` });
    const table = await run(['organizations', 'list', '--output', 'table']);
    expect(table.code).toBe(0);
    expect(table.stdout).not.toMatch(/[^\P{Cc}\n]|[\u202a-\u202e\u2066-\u2069]/u);
    expect(table.stdout).toContain('Evil\\x1B[2J\\x1B]0;pwned\\x07\\u202E!');
    const rows = table.stdout.trimEnd().split('\n');
    const at = (id: string) => rows.find((r) => r.startsWith(id)) as string;
    // No width known (a pipe, no COLUMNS): nothing is cut.
    expect(at(wide.id)).toContain(`日本語の組織 🚀${'Ж'.repeat(46)}  `);
    const column = (row: string, text: string) => {
      const before = row.slice(0, row.indexOf(text));
      return [...before].reduce(
        (width, c) => width + (/[\u3000-\u9fff]|\p{Extended_Pictographic}/u.test(c) ? 2 : 1),
        0,
      );
    };
    const header = rows[0] as string;
    expect(column(at(wide.id), 'private')).toBe(column(header, 'PRIVACY_SETTING'));
    expect(column(at(evil.id), 'private')).toBe(column(header, 'PRIVACY_SETTING'));
    // 50 columns: the name is cut to what is left beside the id, never inside a character.
    const narrow = await run(['organizations', 'list', '--output', 'table'], { COLUMNS: '50' });
    const cut = narrow.stdout.split('\n').find((r) => r.startsWith(wide.id)) as string;
    expect(cut).toBe(`${wide.id}  日本語の組織 🚀${'Ж'.repeat(16)}…`);
    expect(cut).not.toContain('\ufffd');
  });

  test('an API error exits 1 with the error body on stderr', async () => {
    const org = await user.client.organizations.create({ name: 'Errors' });
    const missing = await run(['collabs', 'retrieve', org.id, 'AAAAAAAAAAAAAAAA']);
    expect([missing.code, missing.stdout]).toEqual([1, '']);
    expect(missing.stderr).toContain('404');
    expect(missing.stderr).toContain('"error": "Not found"');
    expect(missing.stderr.split('\n')[0]).toBe('marketplace: 404 Not found'); // the status once
    // The hint of describeError, the one the MCP server gives a model.
    expect(missing.stderr.split('\n')[1]).toBe(
      'marketplace: hint: The id is unknown or not visible to this user: list the collection to find a valid id.',
    );

    // Ids are URL-safe base64: one may start with "-" and is still an id, not an option.
    const dashed = await run([
      'collabs',
      'retrieve',
      '-AAAAAAAAAAAAAAA',
      '-BBBBBBBBBBBBBBB',
      '--output',
      'json',
    ]);
    expect([dashed.code, dashed.stderr]).toEqual([1, expect.stringContaining('404')]);

    const campaign = await user.client.campaigns.create(org.id, { name: 'Unfunded' });
    const refused = await run(['campaigns', 'publish', org.id, campaign.id, '--yes']);
    expect(refused.code).toBe(1);
    expect(
      JSON.parse(refused.stderr.slice(refused.stderr.indexOf('{'))).errors.total_budget_amount,
    ).toBeDefined();

    const denied = await run(['organizations', 'list'], { MARKETPLACE_TOKEN: 'mkt_not_a_real_token' });
    expect([denied.code, denied.stderr]).toEqual([1, expect.stringContaining('HTTP Token: Access denied.')]);
  });

  test('a field refused before sending or by a 422 is named by the flag that set it (--query-website, not website)', async () => {
    const api = await recorder((_path, res) => {
      res.writeHead(422, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ errors: { privacy_setting: ['is not included in the list'] } }));
    });
    const env = { MARKETPLACE_TOKEN: 'mkt_x', MARKETPLACE_BASE_URL: api.url };
    try {
      const query = await run(['collabs', 'create', 'o1', '--name', 'X', '--query-website', 'notaurl'], env);
      expect([query.code, query.stderr.split('\n').slice(0, 2)]).toEqual([
        2,
        [
          'marketplace: Invalid request: --query-website must be an http or https URL',
          'marketplace: hint: Fix these fields and call again: --query-website must be an http or https URL.',
        ],
      ]);
      const body = await run(['collabs', 'create', 'o1', '--name', 'X', '--website', 'notaurl'], env);
      expect(body.stderr.split('\n')[0]).toBe(
        'marketplace: Invalid request: --website must be an http or https URL',
      );
      // --name left out: "is required" (a blank one is "can't be blank").
      const blank = await run(['organizations', 'create', '--privacy-setting', 'x'], env);
      expect(blank.stderr.split('\n')[0]).toBe(
        'marketplace: Invalid request: --name is required; --privacy-setting must be one of public, private, restricted',
      );
      expect(api.seen).toEqual([]);
      const refused = await run(['organizations', 'update', 'o1', '--privacy-setting', 'public'], env);
      expect([refused.code, refused.stderr.split('\n')[0]]).toEqual([
        1,
        'marketplace: 422 --privacy-setting is not included in the list',
      ]);
      // The body printed under it is the server's, as sent.
      expect(JSON.parse(refused.stderr.slice(refused.stderr.indexOf('{')))).toEqual({
        errors: { privacy_setting: ['is not included in the list'] },
      });
    } finally {
      await api.close();
    }
  });

  test('publishing a campaign without a budget: the hint and the help say the budget is funded outside the API', async () => {
    const org = await user.client.organizations.create({ name: 'Unfunded publisher' });
    const campaign = await user.client.campaigns.create(org.id, { name: 'No budget' });
    const refused = await run(['campaigns', 'publish', org.id, campaign.id, '--yes']);
    expect([refused.code, refused.stderr.split('\n').slice(0, 2)]).toEqual([
      1,
      [
        'marketplace: 422 total_budget_amount must be greater than 0 to publish',
        'marketplace: hint: Not possible as things are: total_budget_amount must be greater than 0 to publish. The budget is funded outside the API: no call or argument of it sets total_budget_amount, so publish once the campaign is funded.',
      ],
    ]);
    const help = await run(['campaigns', 'publish', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      '`422` too when `total_budget_amount` is 0: the budget is funded outside the API (no call of the API sets it).',
    );
  });

  test('me address retrieve with no address says so on stderr; stdout is null (JSON), exit 0', async () => {
    const fresh = await server.newUser('No Address Yet');
    const none = await run(['me', 'address', 'retrieve'], { MARKETPLACE_TOKEN: fresh.token });
    expect(none).toEqual({
      code: 0,
      stdout: 'null\n',
      stderr: 'marketplace: No address is set (`marketplace me address update` sets one)\n',
    });
    const table = await run(['me', 'address', 'retrieve', '--output', 'table'], {
      MARKETPLACE_TOKEN: fresh.token,
    });
    expect([table.code, table.stdout, table.stderr]).toEqual([0, '(none)\n', none.stderr]);
    const help = await run(['me', 'address', 'retrieve', '--help']);
    expect(help.stdout).toContain('None set: `null` (JSON) and a line on stderr, exit 0.');
  });

  test('the hint fits the call: a guard no value can pass, a delete repeated, a call that takes no id', async () => {
    const org = await user.client.organizations.create({ name: 'Hints' });
    const [owner] = await user.client.members.list(org.id).toArray();
    const demoted = await run(['members', 'update', org.id, String(owner?.id), '--role', 'member']);
    expect(demoted.code).toBe(1);
    // decisions §2: the demotion guard is on `role`, yet no value of --role passes it.
    expect(demoted.stderr.split('\n')[1]).toBe(
      'marketplace: hint: Not possible as things are: --role cannot be changed for the organization owner, cannot be changed for the only remaining admin.',
    );
    const invalid = await run(['members', 'update', org.id, String(owner?.id), '--role', 'boss']);
    expect(invalid.stderr).toMatch(/^marketplace: hint: Fix these fields and call again: --role /m);

    const collab = await user.client.collabs.create(org.id, { name: 'Twice' });
    expect((await run(['collabs', 'delete', org.id, collab.id, '--yes'])).code).toBe(0);
    const again = await run(['collabs', 'delete', org.id, collab.id, '--yes']);
    expect(again.code).toBe(1);
    expect(again.stderr.split('\n')[1]).toBe(
      'marketplace: hint: Nothing to delete: it is gone already (a delete repeated after it took effect answers 404), or the id is unknown or not visible to this user.',
    );
    const home = { XDG_CONFIG_HOME: join(scratch, 'no-address') };
    await run(['me', 'address', 'delete', '--yes'], home);
    const none = await run(['me', 'address', 'delete', '--yes'], home);
    // The command takes no id: the hint names none.
    expect(none.stderr.split('\n')[1]).toBe(
      'marketplace: hint: Nothing to delete: there is none for this user (never made, or deleted already); or the base URL does not point at the API.',
    );
  });
});

describe('auth and completion', () => {
  test('auth login stores the token (mode 0600) after checking it; auth status checks it', async () => {
    const env = { MARKETPLACE_TOKEN: undefined, XDG_CONFIG_HOME: join(scratch, 'auth') };
    const refused = await run(['auth', 'login', '--token', 'mkt_wrong', '--base-url', server.url], env);
    expect(refused.code).toBe(1);
    expect(() => statSync(join(scratch, 'auth', 'marketplace', 'config.json'))).toThrow();

    const login = await run(['auth', 'login', '--base-url', server.url], env, `${user.token}\n`);
    expect(login.code).toBe(0);
    const file = join(scratch, 'auth', 'marketplace', 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const status = await run(['auth', 'status'], { ...env, MARKETPLACE_BASE_URL: undefined });
    expect([status.code, status.stdout]).toEqual([0, expect.stringContaining('The token works.')]);
    expect((await run(['organizations', 'list'], { ...env, MARKETPLACE_BASE_URL: undefined })).code).toBe(0);

    // `-v` answers the version and logs nothing out.
    expect((await run(['auth', 'logout', '-v'], env)).stdout).toMatch(/^\d+\.\d+\.\d+/);
    expect(JSON.parse(readFileSync(file, 'utf8')).token).toBe(user.token);
    const logout = await run(['auth', 'logout'], env);
    expect([logout.code, logout.stdout]).toEqual([0, `The token is removed from ${file}\n`]);
    expect((await run(['auth', 'status'], { ...env, MARKETPLACE_BASE_URL: undefined })).code).toBe(1);
    const again = await run(['auth', 'logout'], env);
    expect([again.code, again.stdout]).toEqual([0, `No token is stored in ${file}; nothing to remove\n`]);
  });

  test('a relative XDG_CONFIG_HOME is ignored (the XDG spec): the login goes to ~/.config', async () => {
    const home = join(scratch, 'relative-home');
    mkdirSync(home, { recursive: true });
    const login = await runChild(process.execPath, [bin, 'auth', 'login', '--base-url', server.url], {
      env: { ...inherited, HOME: home, XDG_CONFIG_HOME: 'relative-config', MARKETPLACE_TOKEN: undefined },
      cwd: home,
      input: `${user.token}\n`,
    });
    const file = join(home, '.config', 'marketplace', 'config.json');
    expect([login.code, login.stdout]).toEqual([
      0,
      `Logged in to ${server.url}; the token is stored in ${file}\n`,
    ]);
    expect(readdirSync(home)).toEqual(['.config']);
  });

  test('auth login in a terminal does not echo the token (a pseudo-terminal made by script(1))', async () => {
    const home = join(scratch, 'pty');
    const command = `${process.execPath} ${bin} auth login --base-url ${server.url}`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { ...inherited, XDG_CONFIG_HOME: home, MARKETPLACE_TOKEN: undefined, TERM: 'dumb' },
    });
    let screen = '';
    child.stdout.setEncoding('utf8');
    const prompted = new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: string) => {
        screen += chunk;
        if (screen.includes('Token')) resolve();
      });
    });
    await prompted;
    child.stdin.write(`${user.token}\r`);
    const [code] = await once(child, 'close');
    expect(code).toBe(0);
    expect(screen).not.toContain(user.token);
    expect(screen).not.toContain(user.token.slice(4, 20));
    expect(statSync(join(home, 'marketplace', 'config.json')).mode & 0o777).toBe(0o600);
  });

  test('bash and zsh completion scripts, and the words they offer', async () => {
    const bash = await run(['completion', 'bash']);
    expect(bash.stdout).toContain('complete -o default -F _marketplace marketplace');
    expect((await run(['completion', 'zsh'])).stdout).toContain('#compdef marketplace');
    expect((await run(['__complete', 'co'])).stdout.split('\n')).toEqual(['collabs', 'completion']);
    expect((await run(['__complete', 'me', 'so'])).stdout).toBe('social-accounts');
    expect((await run(['__complete', 'me', 'address', 'update', '--ci'])).stdout).toBe('--city');
    // Values: --output's, an enum field's, a boolean's; the shells; the global and per-call flags.
    const complete = async (...words: string[]) => (await run(['__complete', ...words])).stdout.split('\n');
    expect(await complete('organizations', 'list', '--output', '')).toEqual(['json', 'table']);
    expect(await complete('organizations', 'create', '--privacy-setting', '')).toEqual([
      'public',
      'private',
      'restricted',
    ]);
    expect(await complete('collabs', 'create', 'o1', '--require-boosted-ads', '')).toEqual(['true', 'false']);
    expect(await complete('completion', '')).toEqual(['bash', 'zsh']);
    expect(await complete('collabs', 'create', 'o1', '--idem')).toEqual(['--idempotency-key']);
    expect(await complete('collabs', 'list', 'o1', '--base')).toEqual(['--base-url']);
    expect(await complete('collabs', 'list', 'o1', '--token-')).toEqual(['--token-stdin']);
    // --yes on every command (README), the top level's options, `--output=` (zsh: one word; bash:
    // `--output`, `=`, ``), the values of a list of named ones.
    expect(await complete('organizations', 'create', '--y')).toEqual(['--yes']);
    expect(await complete('organizations', 'list', '--y')).toEqual(['--yes']);
    expect(await complete('--')).toEqual(expect.arrayContaining(['--help', '--version', '--output']));
    expect(await complete('--ver')).toEqual(['--version']);
    expect(await complete('organizations', 'list', '--output=')).toEqual(['--output=json', '--output=table']);
    expect(await complete('organizations', 'list', '--output', '=', '')).toEqual(['json', 'table']);
    expect(await complete('campaigns', 'create', 'o1', '--platform-ids', 'you')).toEqual(['youtube']);
    expect(await complete('organizations', 'create', '--privacy-setting=pu')).toEqual([
      '--privacy-setting=public',
    ]);
    // Global options (and their values) before or between the command words are passed over, as
    // the CLI takes them there; `-o` is `--output`; a list's next item after a comma.
    const methods = ['list', 'retrieve', 'create', 'update', 'delete'];
    expect(await complete('--include', 'organizations', '')).toEqual(methods);
    expect(await complete('-o', 'json', 'organizations', '')).toEqual(methods);
    expect(await complete('--output=table', 'organizations', 'l')).toEqual(['list']);
    expect(await complete('organizations', '-o', 'table', 'l')).toEqual(['list']);
    expect(await complete('-o', 'json', 'organizations', 'list', '--al')).toEqual(['--all']);
    expect(await complete('organizations', 'list', '-o', '')).toEqual(['json', 'table']);
    expect(await complete('-o', '')).toEqual(['json', 'table']);
    expect(await complete('campaigns', 'create', 'o1', '--platform-ids', 'youtube,')).toEqual([
      'youtube,x',
      'youtube,twitch',
      'youtube,tiktok',
      'youtube,instagram',
    ]);
    expect(await complete('campaigns', 'create', 'o1', '--platform-ids', 'youtube,x,t')).toEqual([
      'youtube,x,twitch',
      'youtube,x,tiktok',
    ]);
    expect(await complete('campaigns', 'create', 'o1', '--platform-ids=x,y')).toEqual([
      '--platform-ids=x,youtube',
    ]);
    // `help` takes the command words of what it helps with (not their flags).
    expect(await complete('help', 'co')).toEqual(['collabs', 'completion']);
    expect(await complete('help', 'collabs', 'l')).toEqual(['list']);
    expect(await complete('help', 'collabs', 'list', '--')).toEqual(['']);
  });
});

/**
 * A stand-in for "another server": a loopback HTTP listener that records every request's headers
 * and answers with `respond` (by default an empty page of a list).
 */
async function recorder(
  respond: (path: string, res: ServerResponse) => void = (_path, res) => {
    const page = { 'current-page': '1', 'page-items': '20', 'total-count': '0', 'total-pages': '1' };
    res.writeHead(200, { 'content-type': 'application/json', ...page });
    res.end('[]');
  },
) {
  const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
  const listener = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', () => respond(req.url ?? '', res));
  });
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  const url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise((resolve) => listener.close(resolve)) };
}

describe('--all as JSON: each page as it comes', () => {
  test('the bytes are those of the whole array; a reader that stops after the first page ends the walk', async () => {
    const org = await user.client.organizations.create({ name: 'Streamed' });
    const auth = { authorization: `Bearer ${user.token}` };
    const one = await (await fetch(`${server.url}/organizations/${org.id}.json`, { headers: auth })).text();
    const pages = 50;
    // Page 2 is answered only once the reader has gone: the first page was written before it.
    let readerGone: () => void = () => undefined;
    const gone = new Promise<void>((resolve) => {
      readerGone = resolve;
    });
    const stub = await recorder((path, res) => {
      const page = Number(new URL(path, 'http://x').searchParams.get('page') ?? 1);
      const answer = () => {
        res.writeHead(200, {
          'content-type': 'application/json',
          'current-page': String(page),
          'page-items': '20',
          'total-count': String(pages * 20),
          'total-pages': String(pages),
        });
        res.end(`[${Array(20).fill(one).join(',')}]`);
      };
      if (page === 1) answer();
      else void gone.then(answer);
    });
    try {
      const child = spawn(process.execPath, [bin, 'organizations', 'list', '--all'], {
        env: { ...inherited, MARKETPLACE_TOKEN: user.token, MARKETPLACE_BASE_URL: stub.url },
      });
      let first = '';
      child.stdout.once('data', (chunk: Buffer) => {
        first = chunk.toString();
        child.stdout.destroy();
        readerGone();
      });
      const [code] = await once(child, 'close');
      expect(code).toBe(0);
      expect(first).toMatch(/^\[\n {2}\{\n {4}"id": /);
      expect(stub.seen.map((r) => r.path)).toEqual([
        '/organizations.json?page=1',
        '/organizations.json?page=2',
      ]);
    } finally {
      await stub.close();
    }
    // Read to the end, the output is JSON.stringify(list, null, 2), the empty list too.
    const all = await run(['collabs', 'list', org.id, '--all']);
    expect(all.stdout).toBe('[]\n');
    await user.client.collabs.create(org.id, { name: 'A' });
    await user.client.collabs.create(org.id, { name: 'B' });
    const two = await run(['collabs', 'list', org.id, '--all']);
    expect(two.stdout).toBe(`${JSON.stringify(JSON.parse(two.stdout), null, 2)}\n`);
    expect(JSON.parse(two.stdout)).toHaveLength(2);
  });
});

/** An organization as the server writes it, `extra` fields added. */
const organizationOf = (id: string, name: string, extra: Record<string, unknown> = {}) => ({
  id,
  name,
  privacy_setting: 'private',
  website: null,
  created_at: '2026-11-21T10:15:30.123Z',
  updated_at: '2026-11-21T10:15:30.123Z',
  url: `https://marketplace.example/organizations/${id}.json`,
  ...extra,
});

/**
 * A stand-in for `organizations list` answering `pages` (2 items a page, where the server has 20)
 * and logging each page asked for in `log` (`GET page 2`); page `failing` is answered 500.
 */
function pagesOf(pages: Record<string, unknown>[][], log: string[], failing?: number) {
  return recorder((path, res) => {
    const page = Number(new URL(path, 'http://x').searchParams.get('page') ?? 1);
    log.push(`GET page ${page}`);
    if (page === failing) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":"Internal Server Error"}');
      return;
    }
    res.writeHead(200, {
      'content-type': 'application/json',
      'current-page': String(page),
      'page-items': '2',
      'total-count': String(pages.flat().length),
      'total-pages': String(pages.length),
    });
    res.end(JSON.stringify(pages[page - 1] ?? []));
  });
}

describe('--all as a table: each page as it comes', () => {
  const three = [
    [organizationOf('a1', 'Acme'), organizationOf('a2', 'Beta')],
    [organizationOf('b1', 'Cobalt'), organizationOf('b2', 'Delta')],
    [organizationOf('c1', 'Echo'), organizationOf('c2', 'Foxtrot')],
  ];

  /** `marketplace organizations list …args` against `stub`; `log` gets each write to stdout, by its rows' first words. */
  const against = (stub: { url: string }, args: string[], log: string[], env: Record<string, string> = {}) =>
    runInProcess(
      ['organizations', 'list', ...args],
      {
        ...inherited,
        COLUMNS: undefined,
        MARKETPLACE_TOKEN: user.token,
        MARKETPLACE_BASE_URL: stub.url,
        ...env,
      },
      '',
      {},
      (stream, text) => {
        if (stream === 'stdout')
          log.push(
            `stdout: ${text
              .split('\n')
              .filter(Boolean)
              .map((line) => line.split(' ')[0])
              .join(' ')}`,
          );
      },
    );

  test("the first page's rows are printed before the second page is asked for (the table waited for every page)", async () => {
    const log: string[] = [];
    const stub = await pagesOf(three, log);
    try {
      const result = await against(stub, ['--all', '--output', 'table'], log);
      expect([result.code, result.stderr]).toEqual([0, '']);
      expect(log).toEqual([
        'GET page 1',
        'stdout: ID a1 a2',
        'GET page 2',
        'stdout: b1 b2',
        'GET page 3',
        'stdout: c1 c2',
      ]);
      // No width (a pipe, no COLUMNS): the first page's widths, and a later cell wider than its
      // column is whole, past it, as no cell is cut without a width.
      const lines = result.stdout.split('\n');
      expect(lines[0]).toMatch(/^ID {2}NAME {2}PRIVACY_SETTING {2}WEBSITE {2}CREATED_AT/);
      expect(lines.slice(1, 7).map((line) => line.split('  private')[0])).toEqual([
        'a1  Acme',
        'a2  Beta',
        'b1  Cobalt',
        'b2  Delta',
        'c1  Echo',
        'c2  Foxtrot',
      ]);
      expect(lines.slice(7)).toEqual(['']);
    } finally {
      await stub.close();
    }
  });

  test("the columns are the first page's, fitted to the width as a one-page table: a later wider cell takes the line's room left, then is cut (an id is not); a later field is no column, and named under the table", async () => {
    const later = [
      [organizationOf('a1', 'Acme'), organizationOf('a2', 'Beta')],
      [
        organizationOf('b1-a-longer-id', 'Cobalt', {
          logo_url: 'https://marketplace.example/uploads/b1.png',
        }),
        organizationOf('b2', 'Delta'),
      ],
    ];
    const log: string[] = [];
    const stub = await pagesOf(later, log);
    try {
      const wide = { COLUMNS: '200' };
      const all = await against(stub, ['--all', '--output', 'table'], log, wide);
      expect([all.code, all.stderr]).toEqual([0, '']);
      // The first page prints as that page alone does (but for the notice of more pages under it).
      const one = await against(stub, ['--output', 'table'], log, wide);
      const [header, a1, a2] = one.stdout.split('\n');
      expect(one.stdout.split('\n').at(-2)).toMatch(/^2 of 4 organizations shown/);
      const lines = all.stdout.split('\n');
      expect(lines.slice(0, 3)).toEqual([header, a1, a2]);
      expect(header).toMatch(/^ID {2}NAME {2}PRIVACY_SETTING {2}WEBSITE {2}CREATED_AT .* URL$/);
      // 200 columns leave room: a later name wider than the first page's is whole, and the cells
      // after it move right on its line.
      expect(lines[3]).toMatch(/^b1-a-longer-id {2}Cobalt {2}private {2}/);
      expect(lines[4]).toMatch(/^b2 {2}Delta {2}private {2}/);
      expect(all.stdout).not.toContain('uploads/b1.png');
      expect(lines.slice(5)).toEqual([
        'Not shown (not on the first page): logo_url; --output json shows every field',
        '',
      ]);
      // JSON has it.
      const json = await against(stub, ['--all', '--output', 'json'], log);
      expect(JSON.parse(json.stdout)[2].logo_url).toBe('https://marketplace.example/uploads/b1.png');
      // Narrower: the columns without room and the later field on the one line under the table.
      const narrow = await against(stub, ['--all', '--output', 'table'], log, { COLUMNS: '60' });
      const under = narrow.stdout.split('\n').slice(5).join(' ');
      expect(under).toBe(
        'Not shown (no room): updated_at, url; (not on the first page): logo_url; --output json shows every field ',
      );
      // No line is wider, but for the later id longer than the column (ids are never cut): on its
      // line the id took the room, and the name is cut to its column.
      for (const line of narrow.stdout.split('\n').filter((l) => !l.startsWith('b1-a-longer-id  ')))
        expect(line.length, line).toBeLessThanOrEqual(60);
      expect(narrow.stdout).toMatch(/^b1-a-longer-id {2}Cob… {2}private {2}/m);
    } finally {
      await stub.close();
    }
  });

  test('a walk of one page prints what that page alone prints; --include writes the head with the first page', async () => {
    const log: string[] = [];
    const single = await pagesOf(
      [[organizationOf('a1', 'Acme'), organizationOf('a2', 'A longer name')]],
      log,
    );
    try {
      for (const COLUMNS of ['200', '30', undefined]) {
        const one = await against(single, ['--output', 'table'], log, { ...(COLUMNS && { COLUMNS }) });
        const all = await against(single, ['--all', '--output', 'table'], log, {
          ...(COLUMNS && { COLUMNS }),
        });
        expect(all, COLUMNS).toEqual(one);
      }
    } finally {
      await single.close();
    }
    const stub = await pagesOf(
      [
        [organizationOf('a1', 'Acme'), organizationOf('a2', 'Beta')],
        [organizationOf('b1', 'Cobalt'), organizationOf('b2', 'Delta')],
      ],
      log,
    );
    try {
      for (const output of ['table', 'json']) {
        log.length = 0;
        const included = await against(stub, ['--all', '--include', '--output', output], log);
        expect([included.code, included.stderr]).toEqual([0, '']);
        expect(log.slice(0, 3)).toEqual([
          'GET page 1',
          expect.stringMatching(/^stdout: HTTP .* current-page: .* total-pages: /),
          expect.stringMatching(output === 'table' ? /^stdout: ID a1 a2$/ : /^stdout: \[ /),
        ]);
        expect(log[3]).toBe('GET page 2');
        // The head, then what the walk prints without it.
        const [head, rest] = included.stdout.split(/(?<=\n\n)/);
        expect(head).toMatch(/^HTTP 200 OK\n(.+\n)+\n$/);
        expect(head).toMatch(/^total-count: 4$/m);
        expect(rest).toBe((await against(stub, ['--all', '--output', output], [])).stdout);
      }
    } finally {
      await stub.close();
    }
  });

  test('the notices: more pages under the table, a page past the last on stderr; an empty list is (no items)', async () => {
    const log: string[] = [];
    const stub = await pagesOf(three, log);
    try {
      const some = await against(stub, ['--max-items', '3', '--output', 'table'], log);
      expect([some.code, some.stderr]).toEqual([0, '']);
      expect(some.stdout.split('\n').map((line) => line.split(' ')[0])).toEqual([
        'ID',
        'a1',
        'a2',
        'b1',
        '3',
        '',
      ]);
      expect(some.stdout.split('\n').at(-2)).toBe('3 of 6 organizations shown; --all for every page');
      expect(log).toEqual(['GET page 1', 'stdout: ID a1 a2', 'GET page 2', 'stdout: b1', 'stdout: 3']);
      const rest = await against(stub, ['--page', '2', '--all', '--output', 'table'], log);
      expect(rest.stdout.split('\n').at(-2)).toBe(
        'items 3–6 of 6 organizations shown (from page 2 on); --all without --page for every page',
      );
      const past = await against(stub, ['--page', '99', '--all', '--output', 'table'], log);
      expect(past).toEqual({
        code: 0,
        stdout: '(no items)\n',
        stderr: 'marketplace: page 99 is past the last page (3)\n',
      });
    } finally {
      await stub.close();
    }
    const none = await pagesOf([[]], log);
    try {
      expect(await against(none, ['--all', '--output', 'table'], log)).toEqual({
        code: 0,
        stdout: '(no items)\n',
        stderr: '',
      });
    } finally {
      await none.close();
    }
  });

  test('an error on a later page: the rows printed stay, the error is reported as on a first page, exit 1', async () => {
    const log: string[] = [];
    const stub = await pagesOf(three, log, 3);
    try {
      const env = { MARKETPLACE_MAX_RETRIES: '0' };
      const walk = await against(stub, ['--all', '--output', 'table'], log, env);
      expect(log).toEqual(['GET page 1', 'stdout: ID a1 a2', 'GET page 2', 'stdout: b1 b2', 'GET page 3']);
      expect(walk.stdout.split('\n').map((line) => line.split(' ')[0])).toEqual([
        'ID',
        'a1',
        'a2',
        'b1',
        'b2',
        '',
      ]);
      expect(walk.code).toBe(1);
      expect(walk.stderr).toMatch(/^marketplace: 500 /);
      // The same words and exit code as the same failure on the one page asked for.
      const page = await against(stub, ['--page', '3', '--output', 'table'], log, env);
      expect([page.code, page.stdout, page.stderr]).toEqual([1, '', walk.stderr]);
    } finally {
      await stub.close();
    }
  });
});

describe('a base URL that is not the API', () => {
  test('no answer at all: the hint names where the base URL came from', async () => {
    // Port 1 (tcpmux): nothing listens there, and no other test can take it (ports below 1024).
    const closed = { url: 'http://127.0.0.1:1' };
    const flagged = await run(['organizations', 'list', '--base-url', closed.url]);
    expect(flagged.code).toBe(1);
    expect(flagged.stderr).toContain(
      'marketplace: hint: Check the base URL (from --base-url): the API did not answer.',
    );
    const fromEnv = await run(['organizations', 'list'], { MARKETPLACE_BASE_URL: closed.url });
    expect(fromEnv.stderr).toContain('(from MARKETPLACE_BASE_URL)');
  });

  test('a server that never answers: the message says how long and how many attempts; --timeout and --max-retries shorten it', async () => {
    const silent = createServer(() => undefined); // accepts, reads, never answers
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const flagged = await run([
        'organizations',
        'retrieve',
        'x',
        '--timeout',
        '0.2',
        '--max-retries',
        '1',
        '--base-url',
        url,
      ]);
      expect(flagged.code).toBe(1);
      expect(flagged.stderr.split('\n')[0]).toBe(
        `marketplace: No response within 0.2 s, 2 attempts: GET ${url}/organizations/x.json`,
      );
      expect(flagged.stderr).toContain('--timeout');
      const fromEnv = await run(['organizations', 'retrieve', 'x'], {
        MARKETPLACE_BASE_URL: url,
        MARKETPLACE_TIMEOUT: '0.1',
        MARKETPLACE_MAX_RETRIES: '0',
      });
      expect(fromEnv.stderr.split('\n')[0]).toBe(
        `marketplace: No response within 0.1 s, 1 attempt: GET ${url}/organizations/x.json`,
      );
      for (const args of [
        ['--timeout', 'soon'],
        ['--timeout', '0'],
        ['--max-retries', '-1'],
      ]) {
        const refused = await run(['organizations', 'retrieve', 'x', '--base-url', url, ...args]);
        expect([refused.code, refused.stderr], args.join(' ')).toEqual([
          2,
          expect.stringContaining(args[0] as string),
        ]);
      }
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  test('auth login and auth status against a server that answers 404: the hint is the base URL, not an id', async () => {
    const other = await recorder((_path, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('Not Found');
    });
    try {
      const env = { MARKETPLACE_TOKEN: undefined, XDG_CONFIG_HOME: join(scratch, 'not-the-api') };
      const login = await run(['auth', 'login', '--base-url', other.url], env, 'mkt_x\n');
      const status = await run(['auth', 'status'], {
        MARKETPLACE_TOKEN: 'mkt_x',
        MARKETPLACE_BASE_URL: other.url,
      });
      for (const [result, from] of [
        [login, '--base-url'],
        [status, 'MARKETPLACE_BASE_URL'],
      ] as const) {
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(
          `marketplace: hint: Check the base URL (from ${from}): it answered 404, so it does not point at the API.`,
        );
        expect(result.stderr).not.toContain('The id is unknown');
      }
    } finally {
      await other.close();
    }
  });

  test("a long text body (another server's HTML page) is said once, in the message", async () => {
    const page = `<!DOCTYPE HTML>\n<html><head><title>Not Found</title></head><body>${'x'.repeat(400)}</body></html>\n`;
    const other = await recorder((_path, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end(page);
    });
    try {
      const result = await run(['organizations', 'list'], { MARKETPLACE_BASE_URL: other.url });
      expect(result.code).toBe(1);
      expect(result.stderr.split('<!DOCTYPE HTML>')).toHaveLength(2);
    } finally {
      await other.close();
    }
  });
});

describe('tokens and what reaches the terminal (#25 item 7)', () => {
  /** A fresh config home with `auth login` done for the test server (token from stdin). */
  async function loggedIn(name: string) {
    const home = join(scratch, name);
    const env = { XDG_CONFIG_HOME: home, MARKETPLACE_TOKEN: undefined, MARKETPLACE_BASE_URL: undefined };
    const login = await run(['auth', 'login', '--base-url', server.url], env, `${user.token}\n`);
    expect([login.code, login.stderr]).toEqual([0, '']);
    return { home, env, file: join(home, 'marketplace', 'config.json') };
  }

  test('the hints name where the token and the base URL came from: a revoked stored login, --base-url with a wrong path', async () => {
    // A token stored by `auth login`, revoked since.
    const stored = await user.client.me.accessTokens.create({
      description: 'soon revoked',
      permission: 'write',
    });
    const home = join(scratch, 'revoked-login');
    const env = { XDG_CONFIG_HOME: home, MARKETPLACE_TOKEN: undefined, MARKETPLACE_BASE_URL: undefined };
    const login = await run(['auth', 'login', '--base-url', server.url], env, `${stored.token}\n`);
    expect(login.code).toBe(0);
    await user.client.me.accessTokens.delete(stored.id);
    const revoked = await run(['organizations', 'list'], env);
    expect([revoked.code, revoked.stderr.split('\n')[1]]).toEqual([
      1,
      `marketplace: hint: The token is missing, revoked or read-only: use a valid token in place of the one from \`marketplace auth login\` (${join(home, 'marketplace', 'config.json')}) (a write token for changes).`,
    ]);
    // --base-url with a path the API does not have: a call without ids, then one with an id.
    const wrong = `${server.url}/api`;
    const noIds = await run(['organizations', 'list', '--base-url', wrong]);
    expect([noIds.code, noIds.stderr.split('\n')[1]]).toEqual([
      1,
      `marketplace: hint: No such route: check the base URL (from --base-url, here ${wrong}): it should be the API's origin, not a path under it.`,
    ]);
    const org = await user.client.organizations.create({ name: 'Wrong path' });
    const withId = await run(['collabs', 'list', org.id, '--base-url', wrong]);
    expect([withId.code, withId.stderr.split('\n')[1]]).toEqual([
      1,
      `marketplace: hint: Check the base URL (from --base-url, here ${wrong}): an unknown route answers the same 404 as an unknown id, and its path /api may be one the API does not have. If the base URL is right, the id is unknown or not visible to this user: list the collection to find a valid id.`,
    ]);
  });

  test('the stored token is not sent to another base URL (flag or environment): a usage error naming both, nothing sent', async () => {
    const { env } = await loggedIn('bound');
    const other = await recorder();
    try {
      for (const [args, extra] of [
        [['organizations', 'list', '--base-url', other.url], {}],
        [['organizations', 'list'], { MARKETPLACE_BASE_URL: other.url }],
        [['auth', 'status', '--base-url', other.url], {}],
      ] as const) {
        const refused = await run([...args], { ...env, ...extra });
        expect([refused.code, refused.stdout], args.join(' ')).toEqual([2, '']);
        expect(refused.stderr).toContain(other.url);
        expect(refused.stderr).toContain(server.url);
        expect(refused.stderr).toMatch(/MARKETPLACE_TOKEN|--token-stdin/);
        expect(refused.stderr).toContain('auth login');
      }
      expect(other.seen).toEqual([]);

      // A token given for this call goes where it is told; the stored one still never does.
      const explicit = await run(['organizations', 'list', '--base-url', other.url], {
        ...env,
        MARKETPLACE_TOKEN: 'mkt_given_for_this_call',
      });
      expect(explicit.code).toBe(0);
      const piped = await run(
        ['organizations', 'list', '--base-url', other.url, '--token-stdin'],
        env,
        'mkt_piped_for_this_call\n',
      );
      expect(piped.code).toBe(0);
      expect(other.seen.map((r) => r.headers.authorization)).toEqual([
        expect.stringContaining('mkt_given_for_this_call'),
        expect.stringContaining('mkt_piped_for_this_call'),
      ]);
      expect(JSON.stringify(other.seen)).not.toContain(user.token);
    } finally {
      await other.close();
    }
    // The same URL written differently (a trailing slash) is the same server.
    const same = await run(['organizations', 'list', '--base-url', `${server.url}/`], env);
    expect([same.code, same.stderr]).toEqual([0, '']);
  });

  test('with a stored login, a bad --base-url is refused for what it is (checked first); no message holds its password', async () => {
    const { env, file } = await loggedIn('checked-first');
    const port = new URL(server.url).port;
    writeFileSync(
      file,
      JSON.stringify({ token: user.token, base_url: `http://me:storedpw@127.0.0.1:${port}` }),
    );
    for (const [url, problem] of [
      [`http://u:secretpw@127.0.0.1:${port}`, 'must not hold a user name or password'],
      ['notaurl', 'is not an absolute URL: "notaurl"'],
      ['ftp://x', 'must be an http or https URL, not ftp:'],
    ] as const) {
      const refused = await run(['organizations', 'list', '--base-url', url], env);
      expect([refused.code, refused.stdout], url).toEqual([2, '']);
      expect(refused.stderr.split('\n')[0], url).toContain(
        `marketplace: the base URL from --base-url ${problem}`,
      );
      expect(refused.stderr).not.toContain('auth login --base-url');
      expect(refused.stderr).not.toContain('secretpw');
    }
    // A good URL for another server names the stored one without the password a hand-written file gave it.
    const other = await run(['organizations', 'list', '--base-url', 'http://127.0.0.1:1'], env);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('http://127.0.0.1:1');
    expect(other.stderr).not.toContain('storedpw');
  });

  test('a stored token without a stored base URL (an older file) is sent nowhere but asks for a new login', async () => {
    const home = join(scratch, 'unbound');
    mkdirSync(join(home, 'marketplace'), { recursive: true, mode: 0o700 });
    writeFileSync(join(home, 'marketplace', 'config.json'), JSON.stringify({ token: user.token }), {
      mode: 0o600,
    });
    const other = await recorder();
    try {
      const refused = await run(['organizations', 'list', '--base-url', other.url], {
        XDG_CONFIG_HOME: home,
        MARKETPLACE_TOKEN: undefined,
      });
      expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining('auth login')]);
      expect(other.seen).toEqual([]);
    } finally {
      await other.close();
    }
  });

  test('--token-stdin reads the token from stdin; --token still works but warns that ps shows it', async () => {
    const env = { MARKETPLACE_TOKEN: undefined, XDG_CONFIG_HOME: join(scratch, 'none') };
    const piped = await run(['organizations', 'list', '--token-stdin'], env, `${user.token}\n`);
    expect([piped.code, piped.stderr]).toEqual([0, '']);
    expect(Array.isArray(JSON.parse(piped.stdout))).toBe(true);
    const empty = await run(['organizations', 'list', '--token-stdin'], env, '');
    expect([empty.code, empty.stderr]).toEqual([2, expect.stringContaining('stdin')]);

    const login = await run(
      ['auth', 'login', '--token-stdin', '--base-url', server.url],
      { ...env, XDG_CONFIG_HOME: join(scratch, 'stdin-login') },
      `${user.token}\n`,
    );
    expect([login.code, login.stderr]).toEqual([0, '']);

    const flagged = await run(['organizations', 'list', '--token', user.token], env);
    expect(flagged.code).toBe(0);
    expect(flagged.stderr).toMatch(/^marketplace: warning: --token .*process list.*--token-stdin/m);
    expect(flagged.stderr).not.toContain(user.token);
  });

  test('a token a header cannot carry (a second line on stdin, a non-ASCII character) is a usage error that does not print it', async () => {
    const env = { MARKETPLACE_TOKEN: undefined, XDG_CONFIG_HOME: join(scratch, 'bad-token') };
    // `pass show` prints the password, then the entry's other lines.
    const entry = `${user.token}\nurl: ${server.url}\n`;
    const piped = await run(['organizations', 'list', '--token-stdin'], env, entry);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toMatch(
      /^marketplace: --token-stdin: stdin holds more than one line, and a token is one line/,
    );
    const login = await run(['auth', 'login', '--base-url', server.url], env, entry);
    expect(login.code).toBe(2);
    expect(login.stderr).toMatch(/^marketplace: auth login: stdin holds more than one line/);
    const accented = await run(['organizations', 'list'], { MARKETPLACE_TOKEN: `${user.token}é` });
    expect(accented.code).toBe(2);
    expect(accented.stderr).toMatch(
      /^marketplace: the token from MARKETPLACE_TOKEN holds a character an HTTP header cannot carry/,
    );
    for (const result of [piped, login, accented]) {
      expect(result.stderr).not.toContain(user.token);
      expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
      expect(result.stdout).toBe('');
    }
    expect(readdirSync(scratch)).not.toContain('bad-token'); // nothing stored
  });

  test('a base URL that is not a plain http(s) URL is a usage error naming where it came from; a password in it is not printed', async () => {
    const notUrl = await run(['organizations', 'list', '--base-url', 'notaurl']);
    expect([notUrl.code, notUrl.stdout]).toEqual([2, '']);
    expect(notUrl.stderr).toMatch(
      /^marketplace: the base URL from --base-url is not an absolute URL: "notaurl"$/m,
    );
    const fromEnv = await run(['organizations', 'list'], { MARKETPLACE_BASE_URL: 'ftp://127.0.0.1:1' });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toMatch(
      /^marketplace: the base URL from MARKETPLACE_BASE_URL must be an http or https URL, not ftp:$/m,
    );
    const withPassword = await run(['organizations', 'list', '--base-url', 'http://me:hunter2@127.0.0.1:1']);
    expect(withPassword.code).toBe(2);
    expect(withPassword.stderr).toContain('must not hold a user name or password');
    expect(withPassword.stderr).not.toContain('hunter2');
    const login = await run(
      ['auth', 'login', '--base-url', 'notaurl'],
      { MARKETPLACE_TOKEN: undefined, XDG_CONFIG_HOME: join(scratch, 'bad-url') },
      `${user.token}\n`,
    );
    expect(login.code).toBe(2);
    expect(login.stderr).toMatch(/^marketplace: the base URL from --base-url is not an absolute URL/);
    const home = join(scratch, 'bad-stored-url');
    mkdirSync(join(home, 'marketplace'), { recursive: true, mode: 0o700 });
    const file = join(home, 'marketplace', 'config.json');
    writeFileSync(file, JSON.stringify({ token: user.token, base_url: 'notaurl' }), { mode: 0o600 });
    const stored = await run(['organizations', 'list'], {
      XDG_CONFIG_HOME: home,
      MARKETPLACE_TOKEN: undefined,
      MARKETPLACE_BASE_URL: undefined,
    });
    expect(stored.code).toBe(2);
    expect(stored.stderr).toContain(`the base URL from ${file} is not an absolute URL`);
    for (const result of [notUrl, fromEnv, withPassword, login, stored])
      expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  test('auth login writes the config 0600 in a 0700 directory, replacing a looser file instead of writing into it', async () => {
    const { home, env, file } = await loggedIn('modes');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'marketplace')).mode & 0o777).toBe(0o700);

    // A file and a directory left looser (by hand, by an older version): the next login does not put
    // the token into the 0644 file (a new file, created 0600, takes its place) and tightens the directory.
    chmodSync(file, 0o644);
    chmodSync(join(home, 'marketplace'), 0o755);
    const before = statSync(file).ino;
    const warned = await run(['organizations', 'list'], env);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toMatch(
      /^marketplace: warning: .*config\.json is readable by others \(mode 0644\)/m,
    );
    const again = await run(['auth', 'login', '--base-url', server.url], env, `${user.token}\n`);
    expect([again.code, again.stderr]).toEqual([0, '']);
    expect(statSync(file).ino).not.toBe(before);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'marketplace')).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(home, 'marketplace'))).toEqual(['config.json']);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ token: user.token, base_url: server.url });

    const logout = await run(['auth', 'logout'], env);
    expect(logout.code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  test('error output shows control characters and bidi overrides escaped (the API cannot drive the terminal)', async () => {
    const evil = 'Evil\u001b]0;pwned\u0007 \u202egnp.exe\u009b2J';
    const api = await recorder((path, res) => {
      if (path.startsWith('/organizations.json')) {
        res.writeHead(422, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ errors: { name: [evil] } }));
      } else {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'x-note': 'a\u009b2Jb' });
        res.end(evil);
      }
    });
    const env = { MARKETPLACE_TOKEN: 'mkt_whatever', MARKETPLACE_BASE_URL: api.url };
    const raw = /[^\P{Cc}\n]|[\u202a-\u202e\u2066-\u2069]/u;
    try {
      const invalid = await run(['organizations', 'create', '--name', 'X'], env);
      expect(invalid.code).toBe(1);
      expect(invalid.stderr).not.toMatch(raw);
      expect(invalid.stderr.split('\n')[0]).toBe(
        'marketplace: 422 --name Evil\\x1B]0;pwned\\x07 \\u202Egnp.exe\\u009B2J',
      );
      // The body stays valid JSON, with the same text in it.
      const body = JSON.parse(invalid.stderr.slice(invalid.stderr.indexOf('{')));
      expect(body).toEqual({ errors: { name: [evil] } });

      const missing = await run(['organizations', 'retrieve', 'AAAAAAAAAAAAAAAA', '--include'], env);
      expect(missing.code).toBe(1);
      expect(missing.stderr).not.toMatch(raw);
      expect(missing.stderr).toContain('x-note: a\\u009B2Jb');
      // The status line has its reason phrase, as a success's has (`HTTP 200 OK`).
      expect(missing.stderr.split('\n')[0]).toBe('HTTP 404 Not Found');
      expect(missing.stderr).toContain('Evil\\x1B]0;pwned\\x07 \\u202Egnp.exe\\u009B2J');
    } finally {
      await api.close();
    }
  });
});

describe('--idempotency-key', () => {
  test('the same key runs a create once: the second prints the same organization', async () => {
    const args = ['organizations', 'create', '--name', 'Once Inc', '--idempotency-key', 'cli-once-1'];
    const first = await json<{ id: string }>(args);
    const again = await json<{ id: string }>(args);
    expect(again.id).toBe(first.id);
  });

  test('a key that is not 1 to 255 printable ASCII characters is a usage error (exit 2)', async () => {
    const result = await run(['organizations', 'create', '--name', 'X', '--idempotency-key', '']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--idempotency-key must be 1 to 255 printable ASCII characters');
  });
});
