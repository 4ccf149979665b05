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
});
