/**
 * `pnpm --filter @app/mcp run check:inspector` (CI task `mcp:inspector`): the MCP Inspector's CLI
 * mode, as a host developer runs it, against `marketplace-mcp` over stdio backed by the test
 * server (`@app/testing`): `tools/list` (with `--strict`: the schemas' portability), its
 * size, a create and a list through `tools/call`, an argument error and a delete the host cannot
 * confirm. Needs `pnpm run build` first; with `--conditions=@app/source --import tsx` it runs the
 * sources instead.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startTestServer } from '@app/testing';

/** The Inspector release this was written against (its CLI flags change between majors). */
const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';
const LIMIT = 60 * 1024;

const fromSource = process.execArgv.some((a) => a.includes('@app/source'));
const bin = fileURLToPath(new URL(fromSource ? '../src/bin.ts' : '../dist/bin.js', import.meta.url));

const server = await startTestServer();
let failed = false;
const check = (ok, what) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failed = true;
};
try {
  const token = await server.createUser({ name: 'Inspector' });
  /**
   * Runs the Inspector's CLI against the MCP server's bin; resolves to its parsed JSON output. Not
   * `spawnSync`: the test server answers from this process.
   */
  const inspect = async (serverArgs, args) => {
    const argv = [
      '--yes',
      INSPECTOR,
      '--cli',
      '-e',
      `MARKETPLACE_TOKEN=${token}`,
      '-e',
      `MARKETPLACE_BASE_URL=${server.url}`,
      process.execPath,
      ...process.execArgv,
      bin,
      ...serverArgs,
      ...args,
    ];
    try {
      const { stdout, stderr } = await promisify(execFile)('npx', argv, { maxBuffer: 16 * 1024 * 1024 });
      return { json: JSON.parse(stdout), stderr };
    } catch (error) {
      // An `isError` result exits 1 too: it is still the result, printed on stdout.
      const result = (() => {
        try {
          return JSON.parse(error.stdout);
        } catch {
          return undefined;
        }
      })();
      if (result?.isError === true) return { json: result, stderr: error.stderr };
      console.error(error.stdout, error.stderr);
      throw new Error(`inspector ${args.join(' ')} failed: ${error.message}`);
    }
  };
  const call = async (name, args = {}, serverArgs = []) =>
    (
      await inspect(serverArgs, [
        '--method',
        'tools/call',
        '--tool-name',
        name,
        ...Object.entries(args).flatMap(([k, v]) => ['--tool-arg', `${k}=${v}`]),
      ])
    ).json;

  const listed = await inspect([], ['--method', 'tools/list', '--strict']);
  const size = Buffer.byteLength(JSON.stringify(listed.json));
  check(listed.json.tools.length === 37, `tools/list: ${listed.json.tools.length} tools`);
  check(size < LIMIT, `tools/list: ${size} bytes serialized (limit ${LIMIT})`);
  if (listed.stderr.trim()) console.log(listed.stderr.trim());

  const created = await call('organizations_create', { name: 'Inspected' });
  check(
    !created.isError && created.structuredContent?.data?.name === 'Inspected',
    'tools/call organizations_create',
  );
  const id = created.structuredContent?.data?.id;
  const page = await call('organizations_list');
  check(page.structuredContent?.data?.some((o) => o.id === id) === true, 'tools/call organizations_list');

  const wrong = await call('collabs_list');
  const detail = JSON.parse(wrong.content?.[0]?.text ?? '{}');
  check(
    wrong.isError === true && detail.errors?.organization_id && /^Fix these fields/.test(detail.hint),
    `an argument error is JSON with a hint: ${wrong.content?.[0]?.text}`,
  );
  const refused = await call('organizations_delete', { id });
  check(
    refused.isError === true && /--yes/.test(refused.content?.[0]?.text),
    'a delete the host cannot confirm is refused',
  );
  const deleted = await call('organizations_delete', { id }, ['--yes']);
  check(!deleted.isError && deleted.structuredContent?.data === null, 'with --yes the delete runs');
} finally {
  await server.close();
}
if (failed) process.exit(1);
