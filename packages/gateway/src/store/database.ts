/**
 * Opening the gateway's database: embedded SQLite (better-sqlite3, WAL) by default, PostgreSQL
 * (`pg`) when a URL is given. Both are driven through Kysely with the same queries; the few places
 * where the engines differ (row locking) ask `engine`. A driver is loaded only when its engine is
 * chosen (`pg` is an optional peer dependency); a missing one is a `DriverMissingError` naming it.
 */
import {
  createPostgresPool, GroupCommitSqliteDialect, loadPostgresDriver, loadSqliteDriver, preparePrivateSqliteFile, startCheckpointer, type PostgresDeadlines,
} from '@tombolbayar/store-kit';
import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import type { GatewayDatabase } from './schema.ts';

export type DatabaseConfig =
  | {
      readonly kind: 'sqlite';
      readonly file: string;
      /**
       * The file's folder is the gateway's own data directory (`dataDir`, the CLI's `--data`): an
       * existing one is tightened to 0700. A folder the operator chose for `file` is left as it is.
       */
      readonly ownsFolder?: boolean;
    }
  | ({ readonly kind: 'postgres'; readonly url: string; readonly schema?: string; readonly maxConnections?: number } & PostgresDeadlines);

export type Engine = DatabaseConfig['kind'];

export interface Database {
  readonly db: Kysely<GatewayDatabase>;
  readonly engine: Engine;
  /**
   * SQLite file: copy the WAL into the database file and truncate the log (on the checkpointer's
   * thread), so redacted values leave it; false when a reader held it back. Absent on PostgreSQL.
   */
  readonly truncateWal?: () => Promise<boolean>;
  /** Closes every connection; idempotent. */
  close(): Promise<void>;
}

export class DatabaseConfigError extends Error {
  override readonly name = 'DatabaseConfigError';
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** PostgreSQL's int8 (epoch milliseconds, amounts) as a JS number: every value we store fits in 2^53. */
const INT8_OID = 20;
function pgTypesOf(driver: typeof pg) {
  return {
    getTypeParser(oid: number, format?: string) {
      if (oid === INT8_OID && format !== 'binary') return (value: string) => Number(value);
      return (driver.types.getTypeParser as (oid: number, format?: string) => unknown)(oid, format);
    },
  };
}

function openSqlite(file: string, ownsFolder: boolean): Database {
  // Folder 0700, files 0600: the store holds customers' personal data.
  if (file !== ':memory:') preparePrivateSqliteFile(file, { ownsFolder });
  const BetterSqlite3 = loadSqliteDriver();
  const sqlite = new BetterSqlite3(file);
  // WAL lets readers run beside the writer and, with synchronous=NORMAL, survives a killed process.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  // Freed bytes are zeroed (a redacted e-mail leaves no copy in the page's free space or in
  // free pages, SECURITY.md); orders are rarely deleted, so this costs almost no extra writes.
  sqlite.pragma('secure_delete = ON');
  sqlite.pragma('foreign_keys = ON');
  // Checkpoints (an fsync each) run on a thread of their own, not inside a request's commit.
  const checkpointer = file === ':memory:' ? undefined : startCheckpointer(sqlite, file);
  const db = new Kysely<GatewayDatabase>({ dialect: new GroupCommitSqliteDialect(sqlite) });
  let closing: Promise<void> | undefined;
  return {
    db,
    engine: 'sqlite',
    ...(checkpointer ? { truncateWal: () => checkpointer.truncate() } : {}),
    close: () =>
      (closing ??= (async () => {
        await checkpointer?.stop();
        await db.destroy();
      })()),
  };
}

/** Told about a connection the database ended or that went silent (the process carries on). */
export type ConnectionErrorListener = (error: Error) => void;

function openPostgres(config: Extract<DatabaseConfig, { kind: 'postgres' }>, onConnectionError: ConnectionErrorListener): Database {
  const { url, schema, kind: _kind, ...settings } = config;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new DatabaseConfigError('database.schema must be a plain identifier (letters, digits, underscore)');
  }
  const driver = loadPostgresDriver();
  // Deadlines on every wait (store-kit's `createPostgresPool`); a lost connection is logged, never fatal.
  const pool = createPostgresPool(
    driver,
    // Every connection starts in the gateway's schema, so raw SQL and the migrator agree.
    { ...settings, url, types: pgTypesOf(driver) as pg.CustomTypesConfig, ...(schema ? { searchPath: schema } : {}) },
    onConnectionError,
  );
  const db = new Kysely<GatewayDatabase>({ dialect: new PostgresDialect({ pool }) });
  let closing: Promise<void> | undefined;
  return {
    db,
    engine: 'postgres',
    close: () => (closing ??= db.destroy()),
  };
}

/** Open (not yet migrate) the database the config names. */
export function openDatabase(config: DatabaseConfig, onConnectionError: ConnectionErrorListener = () => {}): Database {
  if (config.kind === 'sqlite') return openSqlite(config.file, config.ownsFolder ?? false);
  return openPostgres(config, onConnectionError);
}

/** Create the configured PostgreSQL schema when missing; tolerant of another process doing the same. */
export async function ensureSchema(database: Database, schema: string | undefined): Promise<void> {
  if (database.engine !== 'postgres' || !schema) return;
  try {
    await database.db.schema.createSchema(schema).ifNotExists().execute();
  } catch (error) {
    // Two processes racing on CREATE SCHEMA IF NOT EXISTS: one gets a unique violation, harmlessly.
    const code = (error as { code?: string }).code;
    if (code !== '23505' && code !== '42P06') throw error;
  }
}
