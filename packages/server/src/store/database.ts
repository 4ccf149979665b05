/**
 * Opening the order store: an SQLite file by default (better-sqlite3, WAL), PostgreSQL from a URL,
 * from the merchant's own `pg.Pool`, or from an existing Kysely instance. With PostgreSQL the
 * tables can live in their own schema (`schema`), applied through Kysely's `withSchema`, so a
 * shared pool or database is never reconfigured. The drivers (`better-sqlite3`, `pg`) are optional
 * peer dependencies, loaded only for the engine chosen: a missing one is a `DriverMissingError`
 * naming the package to install. A merchant's pool is typed by Kysely's `PostgresPool` (a `pg.Pool`
 * fits), so the public types never need the drivers' type packages.
 */
import { resolve } from 'node:path';
import {
  currentOrLegacyPath, DriverMissingError, ensurePostgresSchema, loadPostgresDriver, openSqliteStore, postgresPoolConfig, withNamedStatements, type OpenedStore, type PostgresDeadlines,
} from '@tombolbayar/store-kit';
import { Kysely, PostgresDialect, type PostgresPool } from 'kysely';
import type { PayButtonDatabase } from './schema.ts';
import { PayButtonError } from '../errors.ts';

export type Engine = 'sqlite' | 'postgres';

/** Where orders are kept. */
export type DatabaseOption =
  | { readonly kind: 'sqlite'; readonly file: string }
  | ({ readonly kind: 'postgres'; readonly url: string; readonly schema?: string; readonly maxConnections?: number } & PostgresDeadlines)
  | { readonly kind: 'postgres'; readonly pool: PostgresPool; readonly schema?: string }
  | { readonly kind: 'kysely'; readonly db: Kysely<any>; readonly engine: Engine; readonly schema?: string };

/** The default store: a file under `.tombolbayar/` in the working directory. */
export const DEFAULT_SQLITE_FILE = '.tombolbayar/server.sqlite';
/** Where an earlier version kept the default store: still read, for one version, when only it exists. */
export const EARLIER_DEFAULT_SQLITE_FILE = '.paybutton/paybutton-express.sqlite';

/** The default store's file: the current one, or the earlier version's while only that exists (said once). */
export function defaultSqliteFile(): string {
  return currentOrLegacyPath(DEFAULT_SQLITE_FILE, EARLIER_DEFAULT_SQLITE_FILE, 'the order store');
}

export interface OpenDatabase {
  readonly db: Kysely<PayButtonDatabase>;
  /** The instance before `withSchema`, for the migrator. */
  readonly root: Kysely<any>;
  readonly engine: Engine;
  readonly schema: string | undefined;
  /**
   * SQLite file the plug-in opened: copy the WAL into the file and truncate it (store-kit's
   * checkpointer), so redacted values leave the log; false when a reader held it back.
   */
  readonly truncateWal?: () => Promise<boolean>;
  /** Closes what the plug-in opened; a pool or Kysely instance given by the merchant stays open. */
  close(): Promise<void>;
  /** A PostgreSQL pool's connections now (for the metrics); absent when the pool is not ours to see (a Kysely instance, SQLite). */
  readonly poolState?: () => PoolState;
}

/** A connection pool's state, as the `db_pool_connections` gauge reports it. */
export interface PoolState {
  readonly inUse: number;
  readonly idle: number;
  readonly waiting: number;
}

/** What `pg.Pool` counts. */
interface CountingPool {
  readonly totalCount?: number;
  readonly idleCount?: number;
  readonly waitingCount?: number;
}

const stateOf = (pool: CountingPool) => (): PoolState => {
  const idle = pool.idleCount ?? 0;
  return { inUse: Math.max(0, (pool.totalCount ?? 0) - idle), idle, waiting: pool.waitingCount ?? 0 };
};

export { SCHEMA_NAME } from '@tombolbayar/store-kit';

function openSqlite(file: string): OpenedStore {
  const path = file === ':memory:' ? file : resolve(file);
  try {
    // The default folder is the plug-in's own, tightened even if an older version made it wider.
    return openSqliteStore(path, { ownsFolder: file === DEFAULT_SQLITE_FILE || file === EARLIER_DEFAULT_SQLITE_FILE });
  } catch (error) {
    if (error instanceof DriverMissingError) throw error; // it names the package to install
    const reason = error instanceof Error ? error.message : String(error);
    throw new PayButtonError('config_invalid', `database: cannot open the SQLite file ${path} (${reason}); choose a file in a folder this process can create and write: database: { kind: 'sqlite', file }`, { cause: error });
  }
}

/** Told about a connection the database ended or that went silent (the process carries on). */
export type ConnectionErrorListener = (error: Error) => void;

export function openDatabase(option: DatabaseOption, onConnectionError: ConnectionErrorListener = () => {}): OpenDatabase {
  let root: Kysely<any>;
  let engine: Engine;
  let schema: string | undefined;
  let closeOwned: () => Promise<void>;
  let truncateWal: (() => Promise<boolean>) | undefined;
  let poolState: (() => PoolState) | undefined;
  if (option.kind === 'sqlite') {
    ({ kysely: root, close: closeOwned, truncateWal } = openSqlite(option.file));
    engine = 'sqlite';
  } else if (option.kind === 'postgres') {
    engine = 'postgres';
    schema = option.schema;
    if ('url' in option) {
      const { kind: _kind, url, schema: _schema, ...settings } = option;
      // Deadlines on every wait (store-kit's pool settings); a lost connection is reported, never
      // fatal. Made here rather than by store-kit's openPostgresStore to keep the pool's counts.
      const pool = new (loadPostgresDriver().Pool)(postgresPoolConfig({ ...settings, url }));
      pool.on('error', (error) => onConnectionError(error));
      const kysely = new Kysely<any>({ dialect: new PostgresDialect({ pool: withNamedStatements(pool, { onClientError: onConnectionError }) }) });
      root = kysely;
      closeOwned = () => kysely.destroy();
      poolState = stateOf(pool);
    } else {
      // The merchant's pool (its deadlines are the merchant's): Kysely's destroy() would end it, so
      // we never call it. Its idle clients' errors are reported too, so they cannot crash the process.
      const merchantPool = option.pool as { on?: (event: 'error', listener: (error: Error) => void) => unknown; off?: (event: 'error', listener: (error: Error) => void) => unknown };
      merchantPool.on?.('error', onConnectionError);
      const wrapped = withNamedStatements(option.pool, { onClientError: onConnectionError });
      root = new Kysely<any>({ dialect: new PostgresDialect({ pool: wrapped }) });
      poolState = stateOf(option.pool as CountingPool);
      closeOwned = async () => {
        merchantPool.off?.('error', onConnectionError);
        wrapped.detach();
      };
    }
  } else {
    root = option.db;
    engine = option.engine;
    schema = option.schema;
    closeOwned = async () => {};
  }
  const db = (schema ? root.withSchema(schema) : root) as Kysely<PayButtonDatabase>;
  let closing: Promise<void> | undefined;
  return { db, root, engine, schema, ...(truncateWal ? { truncateWal } : {}), ...(poolState ? { poolState } : {}), close: () => (closing ??= closeOwned()) };
}

/** PostgreSQL: create the schema the tables go into (the migrator creates only its own tables), surviving a race with another process. */
export async function ensureSchema(open: OpenDatabase): Promise<void> {
  if (open.engine !== 'postgres' || !open.schema) return;
  await ensurePostgresSchema(open.root, open.schema);
}
