import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { loadPostgresDriver, withNamedStatements } from '../src/index.ts';

const DATABASE_URL = process.env.DATABASE_URL;

describe('named PostgreSQL statements', { skip: DATABASE_URL ? false : 'DATABASE_URL is not set' }, () => {
  it('two wrappers of one pool (two routers on a merchant pool) never give one name to two texts on a shared connection', async () => {
    const pool = new (loadPostgresDriver().Pool)({ connectionString: DATABASE_URL, max: 1 });
    const first = new Kysely<any>({ dialect: new PostgresDialect({ pool: withNamedStatements(pool) }) });
    const second = new Kysely<any>({ dialect: new PostgresDialect({ pool: withNamedStatements(pool) }) });
    try {
      for (let round = 0; round < 2; round++) {
        assert.deepEqual((await sql<{ n: number }>`select ${1}::int as n`.execute(first)).rows, [{ n: 1 }]);
        assert.deepEqual((await sql<{ t: string }>`select ${'two'}::text as t, 2 as other`.execute(second)).rows, [{ t: 'two', other: 2 }]);
      }
    } finally {
      await pool.end();
    }
  });

  it('a client whose connection is ended while checked out is reported, never crashes, and is replaced; detach() leaves a shared pool as it was', async () => {
    const pool = new (loadPostgresDriver().Pool)({ connectionString: DATABASE_URL, max: 1 });
    const errors: Error[] = [];
    const wrapped = withNamedStatements(pool, { onClientError: (error) => errors.push(error) });
    const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: wrapped }) });
    try {
      const killer = await pool.connect().then(async (probe) => {
        const { rows } = await probe.query<{ pid: number }>('select pg_backend_pid() as pid');
        probe.release();
        return rows[0]!.pid;
      });
      // This session ends itself (its own pid only) while Kysely holds the client.
      await assert.rejects(db.transaction().execute(async (trx) => {
        await sql`select pg_terminate_backend(${killer})`.execute(trx);
        await sql`select 1`.execute(trx);
      }));
      // The next query gets a fresh connection.
      assert.deepEqual((await sql<{ n: number }>`select 1::int as n`.execute(db)).rows, [{ n: 1 }]);
      assert.ok(errors.length >= 1, 'the lost connection was reported');
      wrapped.detach();
      assert.equal(pool.listenerCount('acquire'), 0);
      assert.equal(pool.listenerCount('release'), 0);
    } finally {
      await pool.end();
    }
  });
});
