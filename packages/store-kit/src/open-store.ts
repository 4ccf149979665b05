/**
 * Opening a store, the one way the gateway and the plug-in both do it: SQLite (better-sqlite3) in
 * WAL with the same pragmas, its checkpoints on a thread of their own and its commits grouped, or
 * PostgreSQL from a URL with deadlines on every wait; and the schema made without losing a race.
 * Each package keeps only what is its own (its tables, its migrations, its error words).
 */
import { Kysely, PostgresDialect, sql, type LogEvent } from 'kysely';
import type pg from 'pg';
import { startCheckpointer } from './checkpointer.ts';
import { loadPostgresDriver, loadSqliteDriver } from './drivers.ts';
import { GroupCommitSqliteDialect } from './group-commit.ts';
import { createPostgresPool, type PostgresPoolSettings } from './postgres-pool.ts';
import { preparePrivateSqliteFile } from './private-files.ts';

/** A PostgreSQL schema name the stores accept: a plain identifier. */
export const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Connections of a store now: checked out, idle, and callers waiting for one (metrics). */
export interface ConnectionState {
  readonly inUse: number;
  readonly idle: number;
  readonly waiting: number;
}

/**
 * Told about every statement Kysely runs (its `log` hook: the statement and how long it took), for
 * an owner's metrics. Absent: Kysely does no logging work at all.
 */
export type StatementObserver = (event: LogEvent) => void;

/** An opened store: Kysely over it, and what only an owner of the connection may do. */
export interface OpenedStore {
  readonly kysely: Kysely<any>;
  /** The connections now: PostgreSQL's pool; SQLite's one connection (in use while a transaction is open). */
  connections(): ConnectionState;
  /**
   * SQLite file: copy the WAL into the database file and truncate the log (on the checkpointer's
   * thread), so erased values leave it; false when a reader held it back. Absent otherwise.
   */
  readonly truncateWal?: () => Promise<boolean>;
  /** Closes the checkpointer and every connection; idempotent. */
  close(): Promise<void>;
}

/**
 * SQLite: folder 0700 and files 0600 (the stores hold customers' personal data), WAL so readers
 * run beside the writer, synchronous NORMAL (a commit is in the WAL when it returns: a killed
 * process loses nothing committed; only a power cut can lose the last commits, fsynced at each
 * checkpoint), a busy timeout so a second process waits instead of failing, freed bytes zeroed (an
 * erased e-mail leaves no copy in free pages) and foreign keys on.
 */
export function openSqliteStore(file: string, options: { readonly ownsFolder: boolean; readonly onStatement?: StatementObserver }): OpenedStore {
  if (file !== ':memory:') preparePrivateSqliteFile(file, { ownsFolder: options.ownsFolder });
  const BetterSqlite3 = loadSqliteDriver();
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('secure_delete = ON');
  sqlite.pragma('foreign_keys = ON');
  // Checkpoints (an fsync each) run on a thread of their own, not inside a request's commit.
  const checkpointer = file === ':memory:' ? undefined : startCheckpointer(sqlite, file);
  const kysely = new Kysely<any>({ dialect: new GroupCommitSqliteDialect(sqlite), ...(options.onStatement ? { log: options.onStatement } : {}) });
  let closing: Promise<void> | undefined;
  return {
    kysely,
    connections: () => {
      const inUse = sqlite.open && sqlite.inTransaction ? 1 : 0;
      return { inUse, idle: 1 - inUse, waiting: 0 };
    },
    ...(checkpointer ? { truncateWal: () => checkpointer.truncate() } : {}),
    close: () =>
      (closing ??= (async () => {
        await checkpointer?.stop();
        await kysely.destroy();
      })()),
  };
}

/** PostgreSQL's int8 as a JS number (epoch milliseconds, amounts: every value stored fits 2^53). */
const INT8_OID = 20;
function int8AsNumber(driver: typeof pg): pg.CustomTypesConfig {
  return {
    getTypeParser(oid: number, format?: string) {
      if (oid === INT8_OID && format !== 'binary') return (value: string) => Number(value);
      return (driver.types.getTypeParser as (oid: number, format?: string) => unknown)(oid, format);
    },
  } as pg.CustomTypesConfig;
}

/**
 * PostgreSQL from a URL: store-kit's pool (deadlines on every wait, named statements), a lost
 * connection reported to `onConnectionError` and never fatal. `int8AsNumbers` reads bigint columns
 * as numbers; `searchPath` starts every connection in that schema.
 */
export function openPostgresStore(
  settings: PostgresPoolSettings & { readonly int8AsNumbers?: boolean; readonly onStatement?: StatementObserver },
  onConnectionError: (error: Error) => void,
): OpenedStore {
  const { int8AsNumbers, onStatement, ...poolSettings } = settings;
  const driver = loadPostgresDriver();
  const pool = createPostgresPool(driver, { ...poolSettings, ...(int8AsNumbers ? { types: int8AsNumber(driver) } : {}) }, onConnectionError);
  const kysely = new Kysely<any>({ dialect: new PostgresDialect({ pool }), ...(onStatement ? { log: onStatement } : {}) });
  let closing: Promise<void> | undefined;
  return { kysely, connections: pool.connections, close: () => (closing ??= kysely.destroy()) };
}

/**
 * Create a PostgreSQL schema when missing. Two processes racing on `CREATE SCHEMA IF NOT EXISTS`:
 * the loser gets a unique violation (23505) or "already exists" (42P06), harmlessly.
 */
export async function ensurePostgresSchema(kysely: Kysely<any>, schema: string): Promise<void> {
  try {
    await sql`create schema if not exists ${sql.id(schema)}`.execute(kysely);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== '23505' && code !== '42P06') throw error;
  }
}
