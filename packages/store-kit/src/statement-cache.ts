/**
 * better-sqlite3 as Kysely's SQLite dialect sees it, with each statement prepared once. Kysely's
 * driver calls `prepare(sql)` for every query it runs; preparing costs several times running a
 * simple statement (bench/: about 25 µs of each gateway order's create; the plug-in runs four per
 * link created).
 * Parameters are bound at run time, so the SQL text is the whole key.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** More distinct statements than the gateway or the plug-in has queries: the cache never churns in practice. */
export const STATEMENT_CACHE_LIMIT = 500;

export function withStatementCache(sqlite: BetterSqlite3.Database, limit = STATEMENT_CACHE_LIMIT): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string): SqliteStatement {
      const cached = statements.get(sql);
      // A statement still being iterated (Kysely's stream()) cannot run again: prepare another.
      if (cached && !cached.busy) return cached;
      const statement = sqlite.prepare(sql);
      if (!cached) {
        if (statements.size >= limit) statements.delete(statements.keys().next().value as string);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
