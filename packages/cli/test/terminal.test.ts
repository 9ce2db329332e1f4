/**
 * The CLI as a terminal tool (#29 part 3): pages it did not print, tables that fit the terminal,
 * colour, confirmations, "did you mean", an error said once. What a terminal decides (a TTY, its
 * width, the answer typed at a prompt) is given to `main()` in-process, as `bin.ts` does for the
 * real terminal; the rest calls it as a command in a pipe (test/run.ts), and what only a process
 * has (a pseudo-terminal, Ctrl-C, a reader that closes the pipe) runs the built `dist/bin.js`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ChildRun, type TestUser, useServer } from '../../sdk/test/e2e/harness.js';
import { runInProcess } from './run.js';

const server = useServer();
const bin = join(import.meta.dirname, '../dist/bin.js');
const scratch = mkdtempSync(join(tmpdir(), 'cli-terminal-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const {
  NODE_PATH: _hoisted,
  MARKETPLACE_TOKEN: _t,
  MARKETPLACE_BASE_URL: _b,
  COLUMNS: _c,
  NO_COLOR: _n,
  FORCE_COLOR: _f,
  ...inherited
} = process.env;

/** A user with 26 organizations with long names (one page is 20). */
let many: TestUser;
const names: string[] = [];
const ids: string[] = [];

beforeAll(async () => {
  many = await server.newUser('Many Organizations');
  for (let i = 0; i < 26; i++) {
    const name = `Organization ${String(i).padStart(2, '0')} of the Northern Creator Cooperative and Friends`;
    names.push(name);
    ids.push((await many.client.organizations.create({ name })).id);
  }
});

/** `marketplace …args` with stdout and stdin pipes (not a terminal), in this process (test/run.ts). */
function run(args: string[], env: Record<string, string | undefined> = {}): Promise<ChildRun> {
  return runInProcess(args, {
    ...inherited,
    XDG_CONFIG_HOME: join(scratch, 'config'),
    MARKETPLACE_TOKEN: many.token,
    MARKETPLACE_BASE_URL: server.url,
    ...env,
  });
}

interface Terminal {
  columns?: number;
  env?: Record<string, string>;
  /** What is typed at a confirmation. */
  answer?: string;
  isTTY?: boolean;
  stdinIsTTY?: boolean;
}

/** `marketplace …args` in a terminal (by default `columns` wide, stdin and stdout terminals). */
async function inTerminal(
  args: string[],
  { columns, env = {}, answer = '', isTTY = true, stdinIsTTY = true }: Terminal = {},
) {
  const questions: string[] = [];
  const terminalEnv = {
    XDG_CONFIG_HOME: join(scratch, 'config'),
    MARKETPLACE_TOKEN: many.token,
    MARKETPLACE_BASE_URL: server.url,
    ...env,
  };
  const readLine = async (question: string) => {
    questions.push(question);
    return answer;
  };
  const ran = await runInProcess(args, terminalEnv, '', {
    isTTY,
    stdinIsTTY,
    readLine,
    ...(columns !== undefined && { columns }),
  });
  return { ...ran, questions };
}

const ESC = '\u001b';
const uncoloured = (text: string) => text.replace(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'), '');
/** Columns a line takes (the tests' text is ASCII and `…`). */
const columnsOf = (line: string) => [...uncoloured(line)].length;

describe('a list that has more pages says so', () => {
  test('JSON: a notice on stderr with --page and --all; none when every item was printed', async () => {
    const first = await run(['organizations', 'list']);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toHaveLength(20);
    expect(first.stderr).toBe(
      'marketplace: 20 of 26 organizations shown (page 1 of 2); --page 2 for the next page, --all for every page\n',
    );
    const last = await run(['organizations', 'list', '--page', '2']);
    expect([JSON.parse(last.stdout).length, last.stderr]).toEqual([6, '']);
    const all = await run(['organizations', 'list', '--all']);
    expect([JSON.parse(all.stdout).length, all.stderr]).toEqual([26, '']);
    // Ended inside page 2: --page 2 would print 1 item again, so only --all is offered.
    const some = await run(['organizations', 'list', '--max-items', '21']);
    expect(JSON.parse(some.stdout)).toHaveLength(21);
    expect(some.stderr).toBe('marketplace: 21 of 26 organizations shown; --all for every page\n');
  });

  test('from a later page the notice says which items are shown; a page past the last says so, exit 0', async () => {
    const later = await run(['organizations', 'list', '--page', '2', '--max-items', '3']);
    expect(JSON.parse(later.stdout).map((o: { id: string }) => o.id)).toEqual(ids.slice(20, 23));
    expect(later.stderr).toBe(
      'marketplace: items 21–23 of 26 organizations shown; --all without --page for every page\n',
    );
    // --all from page 2 walks from there: what it printed is not every item.
    const rest = await run(['organizations', 'list', '--page', '2', '--all']);
    expect(JSON.parse(rest.stdout)).toHaveLength(6);
    expect(rest.stderr).toBe(
      'marketplace: items 21–26 of 26 organizations shown (from page 2 on); --all without --page for every page\n',
    );
    const past = await run(['organizations', 'list', '--page', '99']);
    expect(past).toEqual({
      code: 0,
      stdout: '[]\n',
      stderr: 'marketplace: page 99 is past the last page (2)\n',
    });
    const table = await run(['organizations', 'list', '--page', '99', '--output', 'table']);
    expect(table).toEqual({
      code: 0,
      stdout: '(no items)\n',
      stderr: 'marketplace: page 99 is past the last page (2)\n',
    });
  });

  test('a table: the notice is its footer (stdout), not repeated on stderr', async () => {
    const table = await run(['organizations', 'list', '--output', 'table'], { COLUMNS: '100' });
    expect([table.code, table.stderr]).toEqual([0, '']);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => ids.some((id) => l.startsWith(id)))).toHaveLength(20);
    expect(lines.at(-1)).toBe(
      '20 of 26 organizations shown (page 1 of 2); --page 2 for the next page, --all for every page',
    );
  });
});

describe('tables fit the terminal', () => {
  for (const columns of [80, 100, 120]) {
    test(`${columns} columns: no line is wider, every row is there, ids whole`, async () => {
      const { code, stdout, stderr } = await inTerminal(['organizations', 'list', '--all'], { columns });
      expect([code, stderr]).toEqual([0, '']);
      const lines = stdout.trimEnd().split('\n');
      for (const line of lines) expect(columnsOf(line), line).toBeLessThanOrEqual(columns);
      expect(uncoloured(lines[0] as string)).toMatch(/^ID +NAME/);
      const rows = lines.map(uncoloured).filter((l) => ids.some((id) => l.startsWith(id)));
      expect(rows).toHaveLength(26);
      // Under the rows: the columns left out for want of room (the names keep 60 columns first).
      const under = lines
        .slice(1 + 26)
        .map(uncoloured)
        .join(' ');
      expect(under).toMatch(/^Not shown \(no room\): .*created_at.*; --output json shows every field$/);
      for (const id of ids)
        expect(
          rows.filter((r) => r.startsWith(`${id}  `)),
          id,
        ).toHaveLength(1);
      // Each row's name is its own organization's, cut (with "…") rather than moved to a new line.
      for (const [i, id] of ids.entries()) {
        const row = rows.find((r) => r.startsWith(id)) as string;
        const shown = /^\S+ {2}(Organization .*?)(?: {2}|$)/.exec(row)?.[1] ?? '';
        expect(shown.length, row).toBeGreaterThan(15);
        expect(names[i]?.startsWith(shown.replace(/…$/, '')), row).toBe(true);
      }
    });
  }

  test('a wider terminal shows more of a cell; with room enough, a cell is whole (no cut at 48)', async () => {
    const nameAt = async (columns: number) => {
      const { stdout } = await inTerminal(['organizations', 'list'], { columns });
      const row = uncoloured(stdout).split('\n')[1] as string;
      return (/^\S+ {2}(Organization .*?)(?: {2}|$)/.exec(row)?.[1] ?? '').replace(/…$/, '');
    };
    const [at80, at120, at400] = [await nameAt(80), await nameAt(120), await nameAt(400)];
    expect(at120.length).toBeGreaterThan(at80.length);
    expect(names).toContain(at400);
    expect(at400.length).toBeGreaterThan(48);
    // No width known (a pipe, no COLUMNS): nothing is cut either.
    const piped = await run(['organizations', 'list', '--output', 'table']);
    for (const name of names.slice(0, 20)) expect(piped.stdout).toContain(name);
  });

  test('narrower than an id: ids stay whole (the terminal wraps them); a column with no room is named, not shown as "…"', async () => {
    for (const columns of [10, 16, 17, 19, 24]) {
      const { code, stdout } = await inTerminal(['organizations', 'list'], { columns });
      expect(code).toBe(0);
      const lines = uncoloured(stdout).trimEnd().split('\n');
      const rows = lines.filter((l) => ids.some((id) => l.startsWith(id)));
      expect(rows, `${columns}`).toHaveLength(20);
      for (const row of rows) expect(row, `${columns}`).toMatch(/^\S{16}( {2}\S.*)?$/);
      expect(stdout, `${columns}`).not.toMatch(/(^| )…( |$)/m);
      expect(lines.slice(21).join(' '), `${columns}`).toMatch(/^Not shown \(no room\): name, /);
    }
  });

  test('COLUMNS gives the width when the terminal does not', async () => {
    const table = await run(['organizations', 'list', '--output', 'table'], { COLUMNS: '80' });
    expect(table.code).toBe(0);
    for (const line of table.stdout.trimEnd().split('\n'))
      expect(columnsOf(line), line).toBeLessThanOrEqual(80);
    expect(table.stdout).toContain('…');
  });
});

describe('flags and zero-width characters in a table', () => {
  /**
   * Columns a line takes in a terminal, for the text of this test (ASCII, `…`, flags, zero-width
   * characters): a flag is two regional indicators, drawn 2 wide; U+200B, U+2060, U+00AD, U+FEFF
   * and a combining accent take none.
   */
  const drawn = (line: string) =>
    [...uncoloured(line).replace(/\u200b|\u2060|\u00ad|\ufeff|\u0301/gu, '')].length;
  const flags = '🇳🇴🇸🇪🇩🇰🇫🇮🇮🇸'.repeat(2);
  const names = [
    `Nordics ${flags}`,
    'ZW a\u200bb x',
    'Joined a\u2060b\u00adc e\u0301',
    `${flags}${flags}${flags}`,
    'Plain',
  ];
  let user: TestUser;
  beforeAll(async () => {
    user = await server.newUser('Wide Names');
    for (const name of names) await user.client.organizations.create({ name });
  });

  test('no line is wider than the terminal, no flag is cut in half, and the columns after a name line up', async () => {
    for (const columns of [40, 60, 80, 200]) {
      const { code, stdout } = await inTerminal(['organizations', 'list', '--no-color'], {
        columns,
        env: { MARKETPLACE_TOKEN: user.token },
      });
      expect(code).toBe(0);
      const lines = stdout.trimEnd().split('\n');
      for (const line of lines) expect(drawn(line), `${columns}: ${line}`).toBeLessThanOrEqual(columns);
      // A cut ends at a whole flag: an even number of regional indicators in every line.
      for (const line of lines)
        expect([...line].filter((c) => /\p{Regional_Indicator}/u.test(c)).length % 2, line).toBe(0);
      // The third column (after ID and NAME) starts at one terminal column in the header and every row.
      const header = lines[0] as string;
      const third = header.split(/ {2,}/)[2];
      if (third === undefined) continue;
      const start = drawn(header.slice(0, header.indexOf(third)));
      const rows = lines.slice(1, 1 + names.length);
      expect(rows).toHaveLength(names.length);
      for (const row of rows) {
        const [id, name, cell = ''] = row.split(/ {2,}/);
        const at = row.indexOf(cell, (id as string).length + 2 + (name as string).length);
        expect(drawn(row.slice(0, at)), `${columns}: ${row}`).toBe(start);
      }
    }
    // Room for every name: each is whole.
    const wide = await inTerminal(['organizations', 'list', '--no-color'], {
      columns: 200,
      env: { MARKETPLACE_TOKEN: user.token },
    });
    for (const name of names) expect(wide.stdout).toContain(`${name}  `);
  });
});

describe('a single object as a table', () => {
  test('an id is never cut, even in a terminal too narrow for its line', async () => {
    const org = ids[0] as string;
    const { code, stdout } = await inTerminal(['organizations', 'retrieve', org], { columns: 20 });
    expect(code).toBe(0);
    const lines = uncoloured(stdout).split('\n');
    expect(lines.find((l) => l.startsWith('id '))).toMatch(new RegExp(`^id +${org}$`));
    // The other lines fit, cut where they must.
    for (const line of lines.filter((l) => !l.startsWith('id ')))
      expect(columnsOf(line), line).toBeLessThanOrEqual(20);
  });
});

describe('what a list table shows', () => {
  test("a nested object's fields (who a member is) and a list of values (a collab's countries) have columns of their own", async () => {
    const org = ids[0] as string;
    await many.client.collabs.create(org as never, { name: 'Nordic', countries: ['NO', 'SE'] });
    const members = await run(['members', 'list', org, '--output', 'table']);
    expect(members.code).toBe(0);
    const [header, row] = members.stdout.split('\n');
    expect(header).toMatch(/^ID +ROLE +IS_OWNER .* USER\.ID +USER\.NAME +USER\.EMAIL\b/);
    expect(row).toContain('Many Organizations');
    expect(row).toContain(many.user.email);
    const collabs = await run(['collabs', 'list', org, '--output', 'table']);
    expect(collabs.stdout.split('\n')[0]).toMatch(/ COUNTRIES /);
    expect(collabs.stdout).toMatch(/Nordic .* NO, SE /);
  });
});

describe('a list table has a column for every field any row has', () => {
  test("a field only a later row has (an organization's logo_url, present once a logo is uploaded) is a column, not dropped", async () => {
    const user = await server.newUser('Logos Later');
    const plain = await user.client.organizations.create({ name: 'Plain' });
    const png = new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])], {
      type: 'image/png',
    });
    const logo = await user.client.organizations.create({ name: 'With logo', logo: png });
    expect(logo.logo_url).toBeDefined();
    const { code, stdout } = await run(['organizations', 'list', '--output', 'table'], {
      MARKETPLACE_TOKEN: user.token,
    });
    expect(code).toBe(0);
    const [header, first, second] = stdout.split('\n');
    expect(header).toMatch(/ URL +LOGO_URL$/);
    expect(first).toMatch(new RegExp(`^${plain.id} +Plain .*\\.json$`));
    expect(second).toContain(logo.logo_url);
  });
});

describe('colour', () => {
  test('in a terminal the header and the status are coloured; never with NO_COLOR, --no-color, or in JSON', async () => {
    const org = await many.client.organizations.create({ name: 'Colourful' });
    const collab = await many.client.collabs.create(org.id, { name: 'Bright' });
    const coloured = await inTerminal(['collabs', 'list', org.id], { columns: 120 });
    expect(coloured.code).toBe(0);
    const [header, row] = coloured.stdout.split('\n') as [string, string];
    expect(header.startsWith(`${ESC}[1mID`)).toBe(true);
    expect(row).toContain(`${ESC}[2mdraft${ESC}[22m`);
    expect(row.startsWith(collab.id)).toBe(true); // the rest of a row stays plain
    // The notes under a table are dim (README: "Colour").
    const notes = (await inTerminal(['organizations', 'list'], { columns: 80 })).stdout.trimEnd().split('\n');
    expect(notes.find((l) => l.includes('organizations shown'))).toMatch(
      new RegExp(`^${ESC}\\[2m\\d+ of \\d+ organizations shown`),
    );
    expect(notes.find((l) => l.includes('Not shown'))).toMatch(new RegExp(`^${ESC}\\[2mNot shown`));

    for (const [args, env] of [
      [['collabs', 'list', org.id], { NO_COLOR: '1' }],
      [['collabs', 'list', org.id, '--no-color'], {}],
      [['--no-color', 'collabs', 'retrieve', org.id, collab.id], {}],
      [['collabs', 'list', org.id, '--output', 'json'], { FORCE_COLOR: '1' }],
      [['collabs', 'list', org.id, '--output', 'json', '--include'], { FORCE_COLOR: '1' }],
    ] as const) {
      const result = await inTerminal([...args], { columns: 120, env });
      expect([result.code, result.stdout.includes(ESC)], args.join(' ')).toEqual([0, false]);
    }
    // FORCE_COLOR colours a table that does not go to a terminal; a pipe alone gets none.
    const forced = await run(['collabs', 'list', org.id, '--output', 'table'], { FORCE_COLOR: '1' });
    expect(forced.stdout.startsWith(`${ESC}[1mID`)).toBe(true);
    const piped = await run(['collabs', 'list', org.id, '--output', 'table']);
    expect(piped.stdout).not.toContain(ESC);
  });
});

describe('deletes and transitions ask first', () => {
  test('revoking an access token says what revoking the one in use would do: the API does not say which that is', async () => {
    const other = await many.client.me.accessTokens.create({ description: 'spare', permission: 'read' });
    const declined = await inTerminal(['me', 'access-tokens', 'delete', other.id], { answer: 'n' });
    expect(declined.code).toBe(1);
    expect(declined.questions).toEqual([
      `Revoke an access token: marketplace me access-tokens delete ${other.id}? If it is the token this command uses, later commands with it fail (401) (the API does not say which token is in use). [y/N] `,
    ]);
  });

  test('in a terminal: "n" sends nothing, "y" deletes; --yes does not ask', async () => {
    const org = await many.client.organizations.create({ name: 'Doomed' });
    const declined = await inTerminal(['organizations', 'delete', org.id], { answer: 'n' });
    expect(declined.code).toBe(1);
    expect(declined.questions).toEqual([
      `Delete an organization (owner only): marketplace organizations delete ${org.id}? [y/N] `,
    ]);
    expect(declined.stderr).toContain('nothing was sent');
    expect((await many.client.organizations.retrieve(org.id)).name).toBe('Doomed');

    const accepted = await inTerminal(['organizations', 'delete', org.id], { answer: 'y' });
    expect([accepted.code, accepted.stdout]).toEqual([0, 'Deleted.\n']);
    await expect(many.client.organizations.retrieve(org.id)).rejects.toMatchObject({ status: 404 });

    const collabOrg = await many.client.organizations.create({ name: 'Transitions' });
    const collab = await many.client.collabs.create(collabOrg.id, { name: 'Asked' });
    const skipped = await inTerminal([
      'collabs',
      'submit',
      collabOrg.id,
      collab.id,
      '-y',
      '--output',
      'json',
    ]);
    expect([skipped.code, skipped.questions]).toEqual([0, []]);
    expect(JSON.parse(skipped.stdout).state).toBe('submitted_for_review');
    // A read never asks.
    expect((await inTerminal(['collabs', 'retrieve', collabOrg.id, collab.id])).questions).toEqual([]);
  });

  test('the built bin in a pseudo-terminal (script(1)): it asks, "n" keeps, "y" deletes; the table is coloured', async () => {
    /** `marketplace …args` in a pseudo-terminal; `answer` is typed once the screen shows `[y/N]`. */
    const inPty = async (args: string[], answer?: string) => {
      const command = [process.execPath, bin, ...args].join(' ');
      const child = spawn('script', ['-qfec', command, '/dev/null'], {
        env: {
          ...inherited,
          MARKETPLACE_TOKEN: many.token,
          MARKETPLACE_BASE_URL: server.url,
          TERM: 'xterm',
          COLUMNS: '80',
        },
      });
      let screen = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        screen += chunk;
        if (answer !== undefined && screen.includes('[y/N]')) {
          child.stdin.write(`${answer}\r`);
          answer = undefined;
        }
      });
      const [code] = await once(child, 'close');
      return { code: code as number, screen: screen.replaceAll('\r', '') };
    };
    const org = await many.client.organizations.create({ name: 'Asked in a terminal' });
    const kept = await inPty(['organizations', 'delete', org.id], 'n');
    expect(kept.screen).toContain(`marketplace organizations delete ${org.id}? [y/N]`);
    expect(kept.code).toBe(1);
    expect((await many.client.organizations.retrieve(org.id)).name).toBe('Asked in a terminal');
    const gone = await inPty(['organizations', 'delete', org.id], 'y');
    expect([gone.code, gone.screen]).toEqual([0, expect.stringContaining('Deleted.')]);
    await expect(many.client.organizations.retrieve(org.id)).rejects.toMatchObject({ status: 404 });

    const listed = await inPty(['organizations', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.screen.startsWith(`${ESC}[1mID`)).toBe(true);
    for (const line of listed.screen.trimEnd().split('\n'))
      expect(columnsOf(line), line).toBeLessThanOrEqual(80);
  });

  test('Ctrl-C at a prompt exits 130 quietly; Ctrl-D is "no" at a confirmation and no token at the token prompt', async () => {
    /** `marketplace …args` in a pseudo-terminal; `keys` are typed once the screen shows `marker`. */
    const typed = async (args: string[], marker: string, keys: string) => {
      const command = [process.execPath, bin, ...args].join(' ');
      const child = spawn('script', ['-qfec', command, '/dev/null'], {
        env: {
          ...inherited,
          XDG_CONFIG_HOME: join(scratch, 'interrupted'),
          MARKETPLACE_TOKEN: many.token,
          MARKETPLACE_BASE_URL: server.url,
          TERM: 'dumb',
          ...(args[0] === 'auth' && { MARKETPLACE_TOKEN: undefined }),
        },
      });
      let screen = '';
      let pending: string | undefined = keys;
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        screen += chunk;
        if (pending !== undefined && screen.includes(marker)) {
          child.stdin.write(pending);
          pending = undefined;
        }
      });
      const [code] = await once(child, 'close');
      return { code: code as number, screen: screen.replaceAll('\r', '') };
    };
    const org = await many.client.organizations.create({ name: 'Kept through Ctrl-C' });
    const ctrlC = await typed(['organizations', 'delete', org.id], '[y/N]', '\u0003');
    expect(ctrlC.code).toBe(130);
    expect(ctrlC.screen).not.toMatch(/AbortError|\n\s+at /);
    expect(ctrlC.screen).not.toContain('nothing was sent'); // Ctrl-C is not an answer
    const ctrlD = await typed(['organizations', 'delete', org.id], '[y/N]', '\u0004');
    expect(ctrlD.code).toBe(1);
    expect(ctrlD.screen).toContain('marketplace: not confirmed; nothing was sent');
    expect(ctrlD.screen).not.toMatch(/AbortError|\n\s+at /);
    expect((await many.client.organizations.retrieve(org.id)).name).toBe('Kept through Ctrl-C');

    const login = ['auth', 'login', '--base-url', server.url];
    const loginC = await typed(login, 'Token', '\u0003');
    expect(loginC.code).toBe(130);
    expect(loginC.screen).not.toMatch(/AbortError|\n\s+at /);
    const loginD = await typed(login, 'Token', '\u0004');
    expect(loginD.code).toBe(2);
    expect(loginD.screen).toContain('marketplace: auth login: no token was given; nothing was stored');
    expect(loginD.screen).not.toMatch(/AbortError|\n\s+at /);
    const stdinD = await typed(['organizations', 'list', '--token-stdin'], 'Token', '\u0004');
    expect(stdinD.code).toBe(2);
    expect(stdinD.screen).toContain('marketplace: --token-stdin: no token was given');
  });

  test('stdin not a terminal and no --yes: a usage error (exit 2), no request at all', async () => {
    const seen: string[] = [];
    const listener = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(204).end();
    });
    listener.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    const url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    try {
      for (const args of [
        ['organizations', 'delete', 'AAAAAAAAAAAAAAAA'],
        ['collabs', 'submit', 'AAAAAAAAAAAAAAAA', 'BBBBBBBBBBBBBBBB'],
        ['campaigns', 'publish', 'AAAAAAAAAAAAAAAA', 'BBBBBBBBBBBBBBBB'],
        ['me', 'address', 'delete'],
      ]) {
        const refused = await run(args, { MARKETPLACE_BASE_URL: url, MARKETPLACE_TOKEN: 'mkt_x' });
        expect([refused.code, refused.stdout], args.join(' ')).toEqual([2, '']);
        expect(refused.stderr).toMatch(/asks for confirmation and stdin is not a terminal: pass --yes/);
      }
      expect(seen).toEqual([]);
      const yes = await run(['organizations', 'delete', 'AAAAAAAAAAAAAAAA', '--yes'], {
        MARKETPLACE_BASE_URL: url,
        MARKETPLACE_TOKEN: 'mkt_x',
      });
      expect(yes.code).toBe(0);
      expect(seen).toEqual(['DELETE /organizations/AAAAAAAAAAAAAAAA.json']);
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});

describe('a mistyped command', () => {
  test('"did you mean" names the nearest commands and groups', async () => {
    for (const [args, hint] of [
      [['organisations', 'list'], 'Did you mean "organizations"?'],
      [['colabs'], 'Did you mean "collabs"?'],
      [['collabs', 'lst', 'x'], 'Did you mean "collabs list"?'],
      [['me', 'socal-accounts', 'list'], 'Did you mean "me social-accounts"?'],
      [['campaigns', 'publsh', 'a', 'b'], 'Did you mean "campaigns publish"?'],
      [['auth', 'lgoin'], 'Did you mean "auth login"?'],
      [['organizations', 'create', '--nmae', 'X'], 'Did you mean "--name"?'],
      // A field's flag with "_" is taken too (`--account_url`), but only the documented one is named.
      [
        ['me', 'social-accounts', 'create', '--platform-id', 'youtube', '--url', 'https://youtube.com/@a'],
        'unknown option --url. Did you mean one of "--base-url", "--account-url"?',
      ],
    ] as const) {
      const result = await run([...args]);
      expect([result.code, result.stdout], args.join(' ')).toEqual([2, '']);
      expect(result.stderr, args.join(' ')).toContain(hint);
    }
    // --help after an unknown word is the same usage error, not the help of the level above.
    for (const [args, hint] of [
      [['organisations', '--help'], 'unknown command "organisations". Did you mean "organizations"?'],
      [['collabs', 'lst', '--help'], 'unknown command "collabs lst". Did you mean "collabs list"?'],
    ] as const) {
      const result = await run([...args]);
      expect([result.code, result.stdout], args.join(' ')).toEqual([2, '']);
      expect(result.stderr, args.join(' ')).toContain(hint);
    }
    const far = await run(['xyzzy']);
    expect([far.code, far.stderr]).toEqual([2, expect.not.stringContaining('Did you mean')]);
  });
});

describe('a global option where no command was reached', () => {
  const top = 'organizations, collabs, campaigns, members, me, auth, completion, help';
  test('says the command is missing (never that a documented option is unknown), and points to the help of where it stopped', async () => {
    for (const [args, where, commands] of [
      [['--include'], '', top],
      [['--output', 'json'], '', top],
      [['-o', 'json'], '', top],
      [['--output=table', '--yes'], '', top],
      [['organizations', '--output', 'json'], 'organizations ', 'list, retrieve, create, update, delete'],
      [['me', 'address', '--yes'], 'me address ', 'retrieve, update, delete'],
    ] as const) {
      const result = await run([...args]);
      expect(result, args.join(' ')).toEqual({
        code: 2,
        stdout: '',
        stderr:
          `marketplace: missing command: marketplace ${where}<command>, one of ${commands}\n` +
          `Run \`marketplace ${where}--help\` for usage.\n`,
      });
    }
  });

  test('between the command words it is taken as anywhere else; an unknown option is still unknown', async () => {
    const between = await run(['organizations', '-o', 'table', 'list', '--max-items', '1']);
    expect([between.code, between.stderr]).toEqual([0, expect.any(String)]);
    expect(between.stdout).toMatch(/^ID +NAME/);
    const unknown = await run(['organizations', '--outptu', 'json']);
    expect([unknown.code, unknown.stderr.split('\n')[0]]).toEqual([
      2,
      'marketplace: unknown option --outptu. Did you mean "--output"?',
    ]);
  });
});

describe('a usage error names the help to read', () => {
  test("inside a command, that command's --help; inside a group, the group's; else the top level's", async () => {
    for (const [args, help] of [
      [['collabs', 'create', 'o1', '--nmae', 'x'], 'marketplace collabs create --help'],
      [['collabs', 'list'], 'marketplace collabs list --help'],
      [['collabs', 'lst'], 'marketplace collabs --help'],
      [['auth', 'lgoin'], 'marketplace auth --help'],
      [['xyzzy'], 'marketplace --help'],
    ] as const) {
      const result = await run([...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trimEnd().split('\n').at(-1), args.join(' ')).toBe(`Run \`${help}\` for usage.`);
    }
  });
});

describe('errors', () => {
  test('a 401 prints its message once', async () => {
    const denied = await run(['organizations', 'list'], { MARKETPLACE_TOKEN: 'mkt_not_a_real_token' });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toBe(
      'marketplace: 401 HTTP Token: Access denied.\n' +
        'marketplace: hint: The token is missing, revoked or read-only: use a valid token in place of the one from MARKETPLACE_TOKEN (a write token for changes).\n',
    );
  });
});

describe('a reader that closes stdout (`| head -1`, `| true`)', () => {
  /** `marketplace …args` whose stdout is closed by its reader after `keep` bytes (0: at once). */
  const closedEarly = async (args: string[], keep: number) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...inherited, MARKETPLACE_TOKEN: many.token, MARKETPLACE_BASE_URL: server.url, COLUMNS: '80' },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    let read = 0;
    if (keep === 0) child.stdout.destroy();
    else
      child.stdout.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read >= keep) child.stdout.destroy();
      });
    const [code] = await once(child, 'close');
    return { code: code as number, stderr };
  };

  test('the CLI stops quietly with exit 0: no EPIPE, no stack trace', async () => {
    for (const args of [
      ['organizations', 'list'],
      ['organizations', 'list', '--all'],
    ]) {
      const result = await closedEarly(args, 0);
      expect(result, args.join(' ')).toEqual({ code: 0, stderr: '' });
    }
    // A table whose first line was read: the rest (and the notice under it) has nowhere to go.
    const head = await closedEarly(['organizations', 'list', '--output', 'table', '--max-items', '1'], 1);
    expect(head).toEqual({ code: 0, stderr: '' });
  });
});

describe('a stdout that cannot be written (a full disk, over quota, EIO)', () => {
  test('the built bin, stdout on /dev/full: one "marketplace: …" line on stderr, exit 1, no stack trace', async () => {
    for (const args of [
      ['organizations', 'list'],
      ['organizations', 'list', '--all'],
      ['organizations', 'list', '-o', 'table'],
    ]) {
      // A file as stdout: Node writes it synchronously (ENOSPC comes out of the write itself).
      const full = openSync('/dev/full', 'w');
      const child = spawn(process.execPath, [bin, ...args], {
        env: { ...inherited, MARKETPLACE_TOKEN: many.token, MARKETPLACE_BASE_URL: server.url },
        stdio: ['ignore', full, 'pipe'],
      });
      closeSync(full);
      let stderr = '';
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      const [code] = await once(child, 'close');
      expect({ code, stderr }, args.join(' ')).toEqual({
        code: 1,
        stderr: 'marketplace: cannot write the output: no space left on device\n',
      });
    }
  });

  test('in-process: a write that fails ends the command there, said once on stderr, exit 1', async () => {
    const failed = Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO', syscall: 'write' });
    let writes = 0;
    const result = await runInProcess(
      ['organizations', 'list', '--all', '-o', 'table'],
      { ...inherited, MARKETPLACE_TOKEN: many.token, MARKETPLACE_BASE_URL: server.url, COLUMNS: '80' },
      '',
      {},
      (stream) => {
        if (stream === 'stdout' && ++writes === 1) throw failed;
      },
    );
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: 'marketplace: cannot write the output: i/o error\n',
    });
    // The walk stopped at the failed write: the second page was never printed.
    expect(writes).toBe(1);
  });
});
