/**
 * Opening the gateway's database: embedded SQLite (better-sqlite3, WAL) by default, PostgreSQL
 * (`pg`) when a URL is given. Both are driven through Kysely with the same queries; the few places
 * where the engines differ (row locking) ask `engine`. A driver is loaded only when its engine is
 * chosen (`pg` is an optional peer dependency); a missing one is a `DriverMissingError` naming it.
 */
import {
  ensurePostgresSchema, openPostgresStore, openSqliteStore, SCHEMA_NAME, type ConnectionState, type PostgresDeadlines, type StatementObserver,
} from '@tombolbayar/store-kit';
import type { Kysely } from 'kysely';
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
  /** The connections now (the metrics' pool gauge reads it at scrape time). */
  connections(): ConnectionState;
  /** Closes every connection; idempotent. */
  close(): Promise<void>;
}

export class DatabaseConfigError extends Error {
  override readonly name = 'DatabaseConfigError';
}

function openSqlite(file: string, ownsFolder: boolean, onStatement: StatementObserver | undefined): Database {
  const store = openSqliteStore(file, { ownsFolder, ...(onStatement ? { onStatement } : {}) });
  return {
    db: store.kysely as Kysely<GatewayDatabase>,
    engine: 'sqlite',
    connections: store.connections,
    ...(store.truncateWal ? { truncateWal: store.truncateWal } : {}),
    close: store.close,
  };
}

/** Told about a connection the database ended or that went silent (the process carries on). */
export type ConnectionErrorListener = (error: Error) => void;

function openPostgres(
  config: Extract<DatabaseConfig, { kind: 'postgres' }>,
  onConnectionError: ConnectionErrorListener,
  onStatement: StatementObserver | undefined,
): Database {
  const { url, schema, kind: _kind, ...settings } = config;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new DatabaseConfigError('database.schema must be a plain identifier (letters, digits, underscore)');
  }
  // Every connection starts in the gateway's schema, so raw SQL and the migrator agree; epoch
  // milliseconds and amounts (bigint) are read as numbers.
  const store = openPostgresStore(
    { ...settings, url, int8AsNumbers: true, ...(schema ? { searchPath: schema } : {}), ...(onStatement ? { onStatement } : {}) },
    onConnectionError,
  );
  return { db: store.kysely as Kysely<GatewayDatabase>, engine: 'postgres', connections: store.connections, close: store.close };
}

/** Open (not yet migrate) the database the config names; `onStatement` sees every statement (metrics). */
export function openDatabase(config: DatabaseConfig, onConnectionError: ConnectionErrorListener = () => {}, onStatement?: StatementObserver): Database {
  if (config.kind === 'sqlite') return openSqlite(config.file, config.ownsFolder ?? false, onStatement);
  return openPostgres(config, onConnectionError, onStatement);
}

/** Create the configured PostgreSQL schema when missing; tolerant of another process doing the same. */
export async function ensureSchema(database: Database, schema: string | undefined): Promise<void> {
  if (database.engine !== 'postgres' || !schema) return;
  await ensurePostgresSchema(database.db, schema);
}
