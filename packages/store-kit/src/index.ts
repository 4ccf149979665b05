/**
 * `@tombolbayar/store-kit`: the store plumbing shared by `@tombolbayar/gateway` and
 * `@tombolbayar/express` (one copy, installed once when an app uses both): driver loading with a
 * clear error when a driver is missing, SQLite checkpoints off the event loop, Kysely's SQLite
 * dialect with group commit and a prepared statement cache, queries compiled once (`prepare`),
 * PostgreSQL statements prepared once per connection (`withNamedStatements`), and private SQLite
 * files (folder 0700, files 0600). Internal: its API follows those two packages.
 */
export { DriverMissingError, loadPostgresDriver, loadSqliteDriver, resolveDriver, type DriverName } from './drivers.ts';
export { CHECKPOINT_INTERVAL_MS, startCheckpointer, type Checkpointer } from './checkpointer.ts';
export { STATEMENT_CACHE_LIMIT, withStatementCache } from './statement-cache.ts';
export { GroupCommitSqliteDialect } from './group-commit.ts';
export { currentOrLegacyPath, preparePrivateFolder, preparePrivateSqliteFile } from './private-files.ts';
export { ensurePostgresSchema, openPostgresStore, openSqliteStore, SCHEMA_NAME, type ConnectionState, type OpenedStore, type StatementObserver } from './open-store.ts';
export { prepare, PreparedQuery, type Param } from './prepared.ts';
export { NAMED_STATEMENT_LIMIT, withNamedStatements, type NamedStatementOptions, type NamedStatementPool } from './named-statements.ts';
export { databaseFault, retryAfterSeconds, type DatabaseFault } from './database-faults.ts';
export {
  createPostgresPool, postgresPoolConfig, POSTGRES_DEADLINE_DEFAULTS, type PostgresDeadlines, type PostgresPoolSettings,
} from './postgres-pool.ts';
export {
  admitRequest,
  carriesBody,
  closesConnection,
  createInFlightLimiter,
  SHED_EVENT_LOOP_DELAY_MS,
  SHED_REPORT_INTERVAL_MS,
  type AdmissionOptions,
  type AdmitDecision,
  type Admitted,
  type AdmitState,
  type ArrivingRequest,
  type InFlightLimiter,
  type LoadSnapshot,
  type ShedReason,
  type ShedReport,
} from './load-shedding.ts';
export { runMigrator } from './migrate.ts';
