/**
 * PostgreSQL for the benchmarks: `DATABASE_URL`, else the local test server if it answers. Each
 * run works in schemas of its own (`bench_<tag>_...`) and drops them afterwards, since other
 * people use the same database at the same time.
 */
import pg from 'pg';

export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** The URL to use, or undefined when no server answers within two seconds. */
export async function findPostgres(): Promise<string | undefined> {
  const url = process.env.DATABASE_URL ?? DEFAULT_POSTGRES_URL;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return url;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => {});
  }
}

export interface SchemaSet {
  /** A new schema name (not created: the gateway and the plug-in create their own). */
  name(purpose: string): string;
  /** Drop every schema named through this set. */
  dropAll(): Promise<void>;
}

export function schemaSet(url: string, tag: string): SchemaSet {
  const names: string[] = [];
  return {
    name(purpose) {
      const name = `bench_${tag.toLowerCase()}_${purpose}`;
      names.push(name);
      return name;
    },
    async dropAll() {
      if (names.length === 0) return;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        for (const name of names.splice(0)) await client.query(`drop schema if exists "${name}" cascade`);
      } finally {
        await client.end();
      }
    },
  };
}
