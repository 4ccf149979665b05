/**
 * Kysely's Migrator, run to its end. It looks for its own tables by listing every table of the
 * database (`introspection.getTables()`), and on PostgreSQL that listing calls catalog functions
 * per row: a schema another process drops at that moment (another app's, another test's) makes
 * the listing fail with `3F000 invalid_schema_name`, though nothing of ours changed. Such a
 * failure is asked again, a few times; any other failure is the caller's at once.
 */
import type { MigrationResultSet, Migrator } from 'kysely';

/** PostgreSQL's invalid_schema_name: a schema went away while the catalog was being read. */
const SCHEMA_DROPPED_MEANWHILE = '3F000';
const ATTEMPTS = 3;

function droppedMeanwhile(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === SCHEMA_DROPPED_MEANWHILE;
}

/** `migrateToLatest()` (or `migrateTo(upTo)`), asked again when another schema vanished under it. */
export async function runMigrator(migrator: Migrator, upTo?: string): Promise<MigrationResultSet> {
  for (let attempt = 1; ; attempt++) {
    const result = upTo === undefined ? await migrator.migrateToLatest() : await migrator.migrateTo(upTo);
    if (!droppedMeanwhile(result.error) || attempt === ATTEMPTS) return result;
  }
}
