/**
 * The PostgreSQL pools the gateway and the plug-in open from a URL, with deadlines on everything
 * that can wait on the network, and no `error` event left unheard.
 *
 * Why each deadline: a connection the server ended (restart, failover, `pg_terminate_backend`) is
 * seen at once, but one that went silent (a half-open TCP connection, a paused server) would hold
 * its request, and then the whole pool, for good. The connect timeout bounds both opening a
 * connection and waiting for a free one; the query timeout (client side) drops a connection that
 * stopped answering; the statement timeout (server side) ends a statement that runs too long; the
 * idle-in-transaction timeout frees the locks of a transaction whose process went away; TCP
 * keepalive lets the kernel find a dead peer of an idle connection.
 */
import type pg from 'pg';
import { withNamedStatements } from './named-statements.ts';
import type { PostgresPool } from 'kysely';

export interface PostgresDeadlines {
  /** Opening a connection, or waiting for a free one in a full pool, at most this long. Default 5 000 ms. */
  readonly connectTimeoutMs?: number;
  /** The server cancels a statement running longer (`statement_timeout`). Default 15 000 ms. */
  readonly statementTimeoutMs?: number;
  /**
   * A query with no answer this long drops its connection (a silent, half-open one); default the
   * statement timeout + 5 000 ms, so the server's own cancel normally comes first.
   */
  readonly queryTimeoutMs?: number;
  /** The server ends a session idle inside a transaction this long. Default 30 000 ms. */
  readonly idleInTransactionTimeoutMs?: number;
  /** TCP keepalive probes start after this much idle time. Default 10 000 ms. */
  readonly keepAliveInitialDelayMs?: number;
}

export const POSTGRES_DEADLINE_DEFAULTS = {
  connectTimeoutMs: 5_000,
  statementTimeoutMs: 15_000,
  idleInTransactionTimeoutMs: 30_000,
  keepAliveInitialDelayMs: 10_000,
} as const;

export interface PostgresPoolSettings extends PostgresDeadlines {
  readonly url: string;
  /** Connections at most. Default 10. */
  readonly maxConnections?: number;
  /** `search_path` of every connection. */
  readonly searchPath?: string;
  readonly types?: pg.CustomTypesConfig;
}

/** The `pg.Pool` configuration for `settings`, defaults applied (pure). */
export function postgresPoolConfig(settings: PostgresPoolSettings): pg.PoolConfig {
  const statementTimeoutMs = settings.statementTimeoutMs ?? POSTGRES_DEADLINE_DEFAULTS.statementTimeoutMs;
  return {
    connectionString: settings.url,
    max: settings.maxConnections ?? 10,
    connectionTimeoutMillis: settings.connectTimeoutMs ?? POSTGRES_DEADLINE_DEFAULTS.connectTimeoutMs,
    statement_timeout: statementTimeoutMs,
    query_timeout: settings.queryTimeoutMs ?? statementTimeoutMs + 5_000,
    idle_in_transaction_session_timeout: settings.idleInTransactionTimeoutMs ?? POSTGRES_DEADLINE_DEFAULTS.idleInTransactionTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: settings.keepAliveInitialDelayMs ?? POSTGRES_DEADLINE_DEFAULTS.keepAliveInitialDelayMs,
    ...(settings.types ? { types: settings.types } : {}),
    ...(settings.searchPath ? { options: `-c search_path=${settings.searchPath}` } : {}),
  };
}

/**
 * A pool for Kysely's `PostgresDialect`: deadlines set, statements named (`withNamedStatements`),
 * and every connection error, on an idle client or a checked-out one, handed to `onError` (log it)
 * instead of crashing the process. The request that was using a lost connection fails with the
 * driver's error (a `databaseFault`), and the next one gets a fresh connection.
 */
export function createPostgresPool(
  driver: typeof pg,
  settings: PostgresPoolSettings,
  onError: (error: Error) => void,
): PostgresPool & { connections(): { inUse: number; idle: number; waiting: number } } {
  const pool = new driver.Pool(postgresPoolConfig(settings));
  pool.on('error', (error) => onError(error));
  // The pool's own counters, for metrics: read when asked, nothing kept.
  const connections = () => ({ inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount });
  return Object.assign(withNamedStatements(pool, { onClientError: onError }), { connections });
}
