/**
 * The hot path's prepared statements (db/statements.ts), on the database of the run: values bound
 * and columns read as the driver's own queries read them, prepared once and run again, a failing
 * run that leaves the next one working, no run inside another request's open transaction, and
 * rows handed back in an array the driver does not keep.
 */
import { describe, expect, inject, it, vi } from 'vitest';
import { type Statement, statementsOf } from '../src/db/statements.js';
import { useTestServer } from './harness.js';

const server = useTestServer();

const TYPED: Statement = {
  name: 'test_typed',
  text: `select $1::int as n, $2::text as t, $3::boolean as b, $4::varchar(16) as absent,
  now() - now() = interval '0' as same, 'x'::text as x`,
};

describe('prepared statements', () => {
  it('bind values and read columns as the ORM connection does, on the first run and the next', async () => {
    const statements = await statementsOf(server.orm);
    const values = [42, 'forty-two', true, null];
    const expected = [{ n: 42, t: 'forty-two', b: true, absent: null, same: true, x: 'x' }];
    expect(await statements.run(TYPED, values)).toEqual(expected);
    expect(await statements.run(TYPED, values)).toEqual(expected);
    expect(await server.sql(TYPED.text.replace(/\$(\d)/g, '?'), values)).toEqual(expected);
  });

  it('read timestamps, arrays and nulls as the ORM connection does, on later runs as on the first', async () => {
    const statements = await statementsOf(server.orm);
    const columns: Statement = {
      name: 'test_columns',
      text: `select $1::timestamptz as at, array['US', 'FR']::text[] as countries, $2::bigint as big,
      null::timestamptz as never, 12.5::numeric(12, 4) as rate`,
    };
    const values = ['2026-11-24T10:00:00.123Z', 9007199254740993n];
    const expected = await server.sql(columns.text.replace(/\$(\d)/g, '?'), values);
    expect(expected).toHaveLength(1);
    // On PostgreSQL the first run on a connection asks for the columns; the next ones reuse them.
    for (let run = 0; run < 3; run++) expect(await statements.run(columns, values)).toEqual(expected);
  });

  it('read timestamps as Dates that write the wire form back, however many digits PostgreSQL prints', async () => {
    const statements = await statementsOf(server.orm);
    const read: Statement = {
      name: 'test_timestamps',
      text: `select $1::timestamptz(3) as created_at, $2::timestamptz as updated_at,
      null::timestamptz as published_at`,
    };
    // PostgreSQL prints `.1`, `.12`, none for `.000`, and up to 6 digits in a column without a precision.
    const cases: Array<[at: string, precise: string, wire: string]> = [
      ['2026-11-24T10:00:00.123Z', '2026-11-24T10:00:00.123456Z', '2026-11-24T10:00:00.123Z'],
      ['2026-11-24T10:00:00.120Z', '2026-11-24T10:00:00.120001Z', '2026-11-24T10:00:00.120Z'],
      ['2026-11-24T10:00:00.100Z', '2026-11-24T10:00:00.1Z', '2026-11-24T10:00:00.100Z'],
      ['2026-11-24T10:00:00.000Z', '2026-11-24T10:00:00Z', '2026-11-24T10:00:00.000Z'],
      ['1969-12-31T23:59:59.999Z', '1969-12-31T23:59:59.999999Z', '1969-12-31T23:59:59.999Z'],
      // Date.UTC reads the years 0 to 99 as 1900 to 1999.
      ['0050-06-01T12:00:00.500Z', '0050-06-01T12:00:00.500Z', '0050-06-01T12:00:00.500Z'],
    ];
    for (const [at, precise, wire] of cases) {
      const [read_] = statements.toEntities<{ createdAt: Date; updatedAt: Date; publishedAt: Date | null }>(
        'Collab',
        await statements.run(read, [at, precise]),
      );
      const { createdAt, updatedAt, publishedAt } = read_ as NonNullable<typeof read_>;
      expect([createdAt.getTime(), createdAt.toISOString(), JSON.stringify(createdAt)]).toEqual([
        Date.parse(at),
        at,
        JSON.stringify(at),
      ]);
      expect([updatedAt.getTime(), updatedAt.toISOString()]).toEqual([Date.parse(wire), wire]);
      expect(publishedAt).toBeNull();
    }
  });

  it('write a timestamp changed after it was read at its new time', async () => {
    const statements = await statementsOf(server.orm);
    const read: Statement = { name: 'test_timestamp', text: 'select $1::timestamptz(3) as created_at' };
    const [row] = statements.toEntities<{ createdAt: Date }>(
      'Collab',
      await statements.run(read, ['2026-11-24T10:00:00.123Z']),
    );
    const { createdAt } = row as { createdAt: Date };
    createdAt.setUTCFullYear(2030);
    expect(createdAt.toISOString()).toBe('2030-11-24T10:00:00.123Z');
  });

  it('fail the run whose values the database refuses, and run again afterwards', async () => {
    const statements = await statementsOf(server.orm);
    const divide: Statement = { name: 'test_divide', text: 'select 10 / $1::int as q' };
    await expect(statements.run(divide, [0])).rejects.toThrow(/division by zero/);
    expect(await statements.run(divide, [5])).toEqual([{ q: 2 }]);
  });

  it('do not run inside a transaction in progress: they see what it wrote only once committed', async () => {
    const statements = await statementsOf(server.orm);
    const { user } = await server.createUser();
    const rename: Statement = { name: 'test_user_name', text: 'select name from users where id = $1' };
    let during: Promise<unknown> | undefined;
    await expect(
      server.orm.em.fork().transactional(async (em) => {
        await em.execute(`update users set name = 'uncommitted' where id = ?`, [user.id]);
        // Not awaited here: on PGlite, a run waits for the transaction to end.
        during = statements.run(rename, [user.id]);
        during.catch(() => {});
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await during).toEqual([{ name: user.name }]);
  });

  // `pg` stands before PostgreSQL only: defined in the PostgreSQL run (.ci/run).
  if (inject('database').kind === 'postgres')
    it("hand back the rows in an array of their own, leaving none in pg's result", async () => {
      const statements = await statementsOf(server.orm);
      const pool = (await server.orm.em.getConnection().getNativeClient()) as unknown as {
        query(config: object): Promise<{ rows: unknown[] }>;
      };
      // This statement's runs only: the pool may serve another statement meanwhile.
      const results: Array<{ rows: unknown[] }> = [];
      const query = pool.query.bind(pool);
      const spy = vi.spyOn(pool, 'query').mockImplementation(async (config: object) => {
        const result = await query(config);
        if ((config as { name?: string }).name === 'test_two_rows') results.push(result);
        return result;
      });
      try {
        const two: Statement = {
          name: 'test_two_rows',
          text: 'select g as n from generate_series(1, $1::int) g',
        };
        const rows = await statements.run(two, [2]);
        expect(rows).toEqual([{ n: 1 }, { n: 2 }]);
        expect(results).toHaveLength(1);
        expect(results[0]?.rows).not.toBe(rows);
        expect(results[0]?.rows).toEqual([]);
      } finally {
        spy.mockRestore();
      }
    });
});
