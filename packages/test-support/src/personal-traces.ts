/**
 * Where a person's values can still be found in a store: the SQLite file's bytes (database and
 * WAL, read as they are on disk) or every row of every table of a PostgreSQL schema, as text.
 * A test checks that an erased customer's e-mail and phone appear nowhere, and, as a control, that
 * the other customer's still do (so the search itself finds what is there).
 */
import { existsSync, readFileSync } from 'node:fs';
import pg from 'pg';

/** The values of `needles` found in the store (an empty list: none). */
export async function tracesIn(store: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; schema: string }, needles: readonly string[]): Promise<string[]> {
  if (store.kind === 'sqlite') {
    const bytes = [store.file, `${store.file}-wal`, `${store.file}-journal`].filter((file) => existsSync(file)).map((file) => readFileSync(file));
    return needles.filter((needle) => bytes.some((content) => content.includes(Buffer.from(needle, 'utf8'))));
  }
  const client = new pg.Client({ connectionString: store.url });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>('select table_name from information_schema.tables where table_schema = $1', [store.schema]);
    const found = new Set<string>();
    for (const { table_name } of tables.rows) {
      const rows = await client.query<{ row: string }>(`select t::text as row from "${store.schema}"."${table_name}" t`);
      for (const { row } of rows.rows) for (const needle of needles) if (row.includes(needle)) found.add(needle);
    }
    return [...found];
  } finally {
    await client.end();
  }
}
