/**
 * Reading a gateway's tables from the bench process, read-only, once a run has ended or before it
 * starts (the outbox's final states, the paid orders' queued notifications): plain SQL through the
 * engine's own driver, so nothing of the gateway's store code is measured or trusted here.
 */
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { DatabaseConfig } from '@tombolbayar/gateway/internal';

/** Rows of `sql`, where the table names are written `{notifications}`, `{orders}`, ... */
export async function selectRows<T>(database: DatabaseConfig, sql: string, params: readonly unknown[] = []): Promise<T[]> {
  if (database.kind === 'sqlite') {
    const sqlite = new BetterSqlite3(database.file, { readonly: true });
    try {
      return sqlite.prepare(sql.replace(/\{(\w+)\}/g, '$1').replace(/\$\d+/g, '?')).all(...params) as T[];
    } finally {
      sqlite.close();
    }
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const schema = database.schema ? `"${database.schema}".` : '';
    const result = await client.query(sql.replace(/\{(\w+)\}/g, `${schema}$1`), [...params]);
    return result.rows as T[];
  } finally {
    await client.end();
  }
}

/** Outbox rows per state. */
export async function outboxStates(database: DatabaseConfig): Promise<Record<string, number>> {
  const rows = await selectRows<{ state: string; count: number | string }>(database, 'select state, count(*) as count from {notifications} group by state');
  return Object.fromEntries(rows.map((row) => [row.state, Number(row.count)]));
}
