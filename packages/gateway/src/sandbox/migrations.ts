/**
 * The sandbox's own tables, migrated only when a gateway runs in sandbox mode, recorded in a
 * migration table of their own (`sandbox_migrations`) so the gateway's list stays production's.
 * A database whose gateway created `sandbox_faults` before issue 33 keeps it: `IF NOT EXISTS`.
 *
 * Never edit a migration that has shipped: add the next one.
 */
import type { Kysely, Migration } from 'kysely';
import type { Database } from '../store/database.ts';
import { runMigrationSet, type MigrationSet } from '../store/migrations.ts';

/** Fault rules per merchant (`order_num` `''`) or per order (`fault-store.ts`). */
const faultRules: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('sandbox_faults')
      .ifNotExists()
      .addColumn('merchant_code', 'text', (col) => col.notNull())
      .addColumn('order_num', 'text', (col) => col.notNull())
      .addColumn('settings', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'bigint', (col) => col.notNull())
      .addPrimaryKeyConstraint('sandbox_faults_pk', ['merchant_code', 'order_num'])
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('sandbox_faults').ifExists().execute();
  },
};

export const SANDBOX_MIGRATIONS: MigrationSet = {
  migrations: { '2026_12_05_001_sandbox_faults': faultRules },
  table: 'sandbox_migrations',
  lockTable: 'sandbox_migrations_lock',
};

/** Bring the sandbox's tables up to date, after the gateway's own. Safe from several processes at once. */
export function migrateSandbox(database: Database): Promise<void> {
  return runMigrationSet(database.db, database.engine, SANDBOX_MIGRATIONS);
}
