/**
 * Runs every example as a child process (Node with tsx, `@app/sdk` resolved to its source) against
 * the real server started in-process, as a user would run it against `pnpm start`.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import {
  type ChildRun,
  HELPERS_KEY,
  runChild,
  type TestUser,
  useServer,
} from '../packages/sdk/test/e2e/harness.js';

const server = useServer();

/** Runs `examples/<script>` with the given environment (on top of this process's, NODE_PATH left out). */
function run(script: string, env: Record<string, string>): Promise<ChildRun> {
  const { NODE_PATH: _hoisted, ...inherited } = process.env;
  return runChild(process.execPath, ['--conditions=@app/source', '--import', 'tsx', script], {
    cwd: import.meta.dirname,
    env: { ...inherited, ...env },
  });
}

let user: TestUser;
const envOf = (token: string) => ({
  MARKETPLACE_BASE_URL: server.url,
  MARKETPLACE_TOKEN: token,
  MARKETPLACE_TEST_HELPERS_KEY: HELPERS_KEY,
});

beforeAll(async () => {
  user = await server.newUser('Example Runner');
  // Something to report on: 23 collabs over two pages in one organization, none in another.
  const acme = await user.client.organizations.create({ name: 'Acme' });
  for (let i = 1; i <= 23; i++) await user.client.collabs.create(acme.id, { name: `Collab ${i}` });
  const [newest] = await user.client.collabs.list(acme.id).toArray({ limit: 1 });
  await user.client.collabs.submit(acme.id, newest!.id);
  await user.client.organizations.create({ name: 'Quiet Co' });
});

describe('collab-report.ts', () => {
  test('reports every collab of every organization, all pages', async () => {
    const { code, stdout, stderr } = await run('collab-report.ts', envOf(user.token));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('Organization: Acme (');
    expect(stdout).toContain('  - Collab 23 [submitted_for_review] submissions: 0, completed: 0');
    expect(stdout).toContain('  - Collab 1 [draft] submissions: 0, completed: 0');
    expect(stdout).toContain('  23 collabs: 1 submitted_for_review, 22 draft');
    expect(stdout).toContain('Organization: Quiet Co (');
    expect(stdout).toContain('  0 collabs\n');
    expect(stdout).toContain('Report: 23 collabs in 2 organizations');
  });

  test('a refused token is reported as such, exit code 1', async () => {
    const { code, stderr } = await run('collab-report.ts', envOf('mkt_not_a_real_token'));
    expect(code).toBe(1);
    expect(stderr).toContain('The token was refused');
  });

  test('a missing setting is named, exit code 2', async () => {
    const { code, stderr } = await run('collab-report.ts', {
      MARKETPLACE_BASE_URL: '',
      MARKETPLACE_TOKEN: '',
    });
    expect(code).toBe(2);
    expect(stderr).toContain('Set MARKETPLACE_TOKEN');
  });
});

test('campaign-launch.ts drafts a campaign with a banner, funds it and publishes it', async () => {
  const { code, stdout, stderr } = await run('campaign-launch.ts', envOf(user.token));
  expect(stderr).toBe('');
  expect(code).toBe(0);
  expect(stdout).toContain('Organization: Acme (');
  expect(stdout).toContain('Refused before sending: {"min_payout_amount":[');
  expect(stdout).toMatch(/Drafted campaign: Spring reels \d{4}-\d{2}-\d{2} \(\S+\), status draft/);
  expect(stdout).toContain('Not published yet: {"total_budget_amount":[');
  expect(stdout).toContain('Funded: 250000 (usd)');
  expect(stdout).toMatch(/Published: status active, budget 250000, since \d{4}-/);

  const bannerUrl = /Banner: (\S+)/.exec(stdout)?.[1] as string;
  const banner = await fetch(bannerUrl);
  expect(banner.headers.get('content-type')).toBe('image/png');
  expect(new Uint8Array(await banner.arrayBuffer()).subarray(0, 4)).toEqual(
    new Uint8Array([0x89, 0x50, 0x4e, 0x47]),
  );
  const [acme] = await user.client.organizations.list().toArray({ limit: 1 });
  const campaigns = await user.client.campaigns.list(acme!.id).toArray();
  expect(campaigns).toMatchObject([{ status: 'active', total_budget_amount: 250_000 }]);
});

test('my-accounts.ts connects an account, manages a read token, and tidies up', async () => {
  const { code, stdout, stderr } = await run('my-accounts.ts', envOf(user.token));
  expect(stderr).toBe('');
  expect(code).toBe(0);
  expect(stdout).toMatch(/Connected youtube account @?sdk-example-[0-9a-f]{6} \(\S+\), status pending/);
  expect(stdout).toContain('Connecting it twice is refused: {"account_url":[');
  expect(stdout).toMatch(
    / {2}- youtube https:\/\/youtube\.com\/@sdk-example-[0-9a-f]{6} \[pending\] subscribers: not synced yet/,
  );
  expect(stdout).toMatch(/Created read token \S+/);
  expect(stdout).toContain('read "Nightly report (read-only)" last used: never');
  expect(stdout).toContain('The read token reads: 1 social account(s)');
  expect(stdout).toContain('The read token cannot write: 401');
  expect(stdout).toContain('The revoked token is refused: 401');
  expect(stdout).toMatch(/Disconnected /);

  expect((await user.client.me.socialAccounts.list()).totalCount).toBe(0);
  expect((await user.client.me.accessTokens.list()).data.map((t) => t.permission)).toEqual(['write']);
});

test('agent-mcp.ts mounts the MCP server and reports every collab through its tools', async () => {
  const { code, stdout, stderr } = await run('agent-mcp.ts', envOf(user.token));
  expect(stderr).toBe('');
  expect(code).toBe(0);
  expect(stdout).toMatch(/^Mounted marketplace-mcp: \d+ tools, all read-only: true$/m);
  expect(stdout).toContain('collabs_list takes: organization_id, page, max_items');
  expect(stdout).toContain('Acme: 23 collabs over 2 page(s)');
  expect(stdout).toContain('Quiet Co: 0 collabs over 1 page(s)');
  expect(stdout).toMatch(/A made-up collab id: 404, hint: The id is unknown or not visible/);
  expect(stdout).toContain('Report: 23 collabs in 2 organizations');
});
