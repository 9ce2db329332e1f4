/**
 * The organization show's one statement on embedded PGlite, in this process: PGlite's own
 * `query()` (parsed and planned on every call) against the server's prepared runner
 * (db/statements.ts), with `select 1` for scale, then the statement's plan. CPU µs per call,
 * best of `ROUNDS` rounds. Run: `node --import tsx --conditions=@app/source bench/pglite-statement.ts`
 * from packages/server (N, ROUNDS in the environment).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { migrate, openDatabase } from '../src/db/database.js';
import { type Statement, statementsOf } from '../src/db/statements.js';
import { findCaller } from '../src/modules/access-tokens/caller.js';
import { digestOf, generateToken } from '../src/modules/access-tokens/token.js';
import { organizationRead } from '../src/modules/organizations/organizations.service.js';

const N = Number(process.env.N ?? 2_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const dir = mkdtempSync(join(tmpdir(), 'pglite-statement-'));
const orm = await openDatabase({ url: undefined, dataDir: dir });
try {
  await migrate(orm);
  const pglite = (await orm.em.getConnection().getNativeClient()) as unknown as PGlite;
  const token = generateToken();
  await pglite.exec(`
insert into users values ('u1', 'U', 'u@example.com', true, now(), now());
insert into organizations values ('o1', 'Org', 'private', null, null, false, now(), now());
insert into memberships values ('m1', 'o1', 'u1', 'admin', true, now(), now());
insert into access_tokens values ('t1', 'u1', 'd', 'write', '${digestOf(token)}', now(), now());`);
  const statements = await statementsOf(orm);
  const show = {
    name: 'organizations.retrieve',
    declaration: organizationRead,
    params: { id: 'o1' },
    page: { limit: 20, offset: 0 },
  };
  // The statement the show sends, caught on its way to the runner.
  let sent: Statement | undefined;
  let values: unknown[] = [];
  await findCaller(
    {
      ...statements,
      run: (statement, v) => {
        sent = statement;
        values = v;
        return statements.run(statement, v);
      },
    },
    token,
    'o1',
    show,
  );
  const statement = sent as Statement;

  const time = async (label: string, run: () => Promise<unknown>) => {
    for (let i = 0; i < N / 10; i++) await run();
    let best = Number.POSITIVE_INFINITY;
    for (let round = 0; round < ROUNDS; round++) {
      const start = process.cpuUsage();
      for (let i = 0; i < N; i++) await run();
      const used = process.cpuUsage(start);
      best = Math.min(best, (used.user + used.system) / N);
    }
    console.log(`${label.padEnd(40)} ${best.toFixed(0).padStart(6)} µs CPU per call`);
  };
  await time('select 1, query()', () => pglite.query('select 1'));
  await time('the show statement, query()', () => pglite.query(statement.text, values));
  await time('the show statement, prepared', () => statements.run(statement, values));
  await time('the show, findCaller()', () => findCaller(statements, token, 'o1', show));

  const literal = statement.text.replace(/\$(\d+)/g, (_, n: string) => `'${values[Number(n) - 1]}'`);
  const plan = await pglite.query<Record<string, string>>(`explain analyze ${literal}`);
  console.log(plan.rows.map((row) => Object.values(row)[0]).join('\n'));
} finally {
  await orm.close(true);
  rmSync(dir, { recursive: true, force: true });
}
