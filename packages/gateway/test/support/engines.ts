/**
 * The database engines every contract test runs on: SQLite always, PostgreSQL when DATABASE_URL
 * is set. Each test gets its own store: a fresh SQLite file, or a fresh PostgreSQL schema that is
 * dropped afterwards (other engineers share the database).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { GatewayOptions } from '../../src/index.ts';

export type EngineName = 'sqlite' | 'postgres';

export const DATABASE_URL = process.env.DATABASE_URL;
export const ENGINES: readonly EngineName[] = DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

export interface FreshStore {
  readonly engine: EngineName;
  readonly dataDir: string;
  readonly database: NonNullable<GatewayOptions['database']>;
  /** Remove the data directory and, on PostgreSQL, drop the schema. */
  cleanup(): Promise<void>;
}

export function tempDir(prefix = 'gw-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

export function freshStore(engine: EngineName): FreshStore {
  const dataDir = tempDir();
  if (engine === 'sqlite') {
    return {
      engine,
      dataDir,
      database: { kind: 'sqlite', file: join(dataDir, 'gateway.sqlite') },
      async cleanup() {
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  if (!DATABASE_URL) throw new Error('DATABASE_URL is not set');
  const schema = `gw_test_${randomBytes(6).toString('hex')}`;
  return {
    engine,
    dataDir,
    database: { kind: 'postgres', url: DATABASE_URL, schema },
    async cleanup() {
      rmSync(dataDir, { recursive: true, force: true });
      await dropSchema(schema);
    },
  };
}
