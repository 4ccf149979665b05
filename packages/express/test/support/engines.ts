/**
 * The stores every contract test runs on: SQLite always, PostgreSQL when DATABASE_URL is set.
 * Each PostgreSQL store lives in a schema of its own (other engineers share the database) that is
 * dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { DatabaseOption } from '../../src/store/database.ts';

export interface EngineFixture {
  readonly name: 'sqlite' | 'postgres';
  /** A fresh, empty database option; call `cleanup` when done. */
  fresh(): Promise<{ option: DatabaseOption; cleanup: () => Promise<void> }>;
}

export const DATABASE_URL = process.env.DATABASE_URL;

const sqlite: EngineFixture = {
  name: 'sqlite',
  async fresh() {
    const dir = mkdtempSync(join(tmpdir(), 'pb-store-'));
    return { option: { kind: 'sqlite', file: join(dir, 'orders.sqlite') }, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  },
};

export const newSchemaName = (): string => `pbx_test_${randomBytes(6).toString('hex')}`;

export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}

const postgres = (url: string): EngineFixture => ({
  name: 'postgres',
  async fresh() {
    const schema = newSchemaName();
    return { option: { kind: 'postgres', url, schema, maxConnections: 5 }, cleanup: () => dropSchema(url, schema) };
  },
});

export const ENGINES: readonly EngineFixture[] = DATABASE_URL ? [sqlite, postgres(DATABASE_URL)] : [sqlite];
