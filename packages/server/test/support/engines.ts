/**
 * The stores every contract test runs on: SQLite always, PostgreSQL when DATABASE_URL is set.
 * Each PostgreSQL store lives in a schema of its own (other engineers share the database) that is
 * dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type KyselyPlugin, type QueryId } from 'kysely';
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

export interface InstrumentedStore {
  readonly option: DatabaseOption;
  /** Reads (SELECTs) completed so far. */
  ordersRead(): number;
  /** Statements of any kind completed so far. */
  statements(): number;
  /** While on, every statement fails, as a database that went away would. */
  failing: boolean;
  cleanup(): Promise<void>;
}

/**
 * A fresh store, handed to `payButton()` as a Kysely instance, whose completed reads are counted
 * and which can be made to fail. A test that must know every concurrent request got past its
 * order lookup (the last I/O before it asks the gateway, after which it runs to `confirmOrder`
 * without yielding to a timer) waits on `ordersRead()` instead of on the clock.
 */
export async function countingStore(engine: EngineFixture): Promise<InstrumentedStore> {
  let reads = 0;
  let statements = 0;
  const selects = new WeakSet<QueryId>();
  const state = { failing: false };
  const counter: KyselyPlugin = {
    transformQuery(args) {
      if (state.failing) throw new Error('the database went away (test)');
      if (args.node.kind === 'SelectQueryNode') selects.add(args.queryId);
      return args.node;
    },
    async transformResult(args) {
      statements += 1;
      if (selects.has(args.queryId)) reads += 1;
      return args.result;
    },
  };
  if (engine.name === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'pb-store-'));
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new BetterSqlite3(join(dir, 'orders.sqlite')) }), plugins: [counter] });
    return instrumented(state, { kind: 'kysely', db, engine: 'sqlite' }, () => reads, () => statements, async () => {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    });
  }
  const schema = newSchemaName();
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 5 });
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }), plugins: [counter] });
  return instrumented(state, { kind: 'kysely', db, engine: 'postgres', schema }, () => reads, () => statements, async () => {
    await db.destroy();
    await dropSchema(DATABASE_URL!, schema);
  });
}

function instrumented(
  state: { failing: boolean }, option: DatabaseOption, ordersRead: () => number, statements: () => number, cleanup: () => Promise<void>,
): InstrumentedStore {
  return {
    option,
    ordersRead,
    statements,
    get failing() {
      return state.failing;
    },
    set failing(value: boolean) {
      state.failing = value;
    },
    cleanup,
  };
}
