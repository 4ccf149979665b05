/**
 * The gateway's schema, as ordered migrations run by Kysely's Migrator at start. The Migrator
 * takes a lock (an advisory lock on PostgreSQL), so several gateway processes starting against one
 * database at the same moment migrate it exactly once.
 *
 * Never edit a migration that has shipped: add the next one. (One exception, issue 33: the initial
 * migration no longer creates the sandbox's table; databases that have it keep it, unused unless
 * the sandbox runs on them.)
 */
import { runMigrator } from '@tombolbayar/store-kit';
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';

const initial: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('merchants')
      .addColumn('merchant_code', 'text', (col) => col.primaryKey())
      .addColumn('name', 'text')
      .addColumn('public_key', 'text', (col) => col.notNull())
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('updated_at', 'bigint', (col) => col.notNull())
      .execute();

    await db.schema
      .createTable('orders')
      .addColumn('plat_order_num', 'text', (col) => col.primaryKey())
      .addColumn('merchant_code', 'text', (col) => col.notNull().references('merchants.merchant_code'))
      .addColumn('order_num', 'text', (col) => col.notNull())
      .addColumn('kind', 'text', (col) => col.notNull())
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('method', 'text')
      .addColumn('va_number', 'text')
      .addColumn('pay_money', 'bigint', (col) => col.notNull())
      .addColumn('pay_fee', 'bigint')
      .addColumn('product_detail', 'text', (col) => col.notNull())
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('email', 'text', (col) => col.notNull())
      .addColumn('phone', 'text', (col) => col.notNull())
      .addColumn('notify_url', 'text', (col) => col.notNull())
      .addColumn('redirect_url', 'text')
      .addColumn('expiry_period', 'integer', (col) => col.notNull())
      .addColumn('request_date_time', 'text', (col) => col.notNull())
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('expires_at', 'bigint', (col) => col.notNull())
      .addColumn('paid_at', 'bigint')
      .addColumn('closed_at', 'bigint')
      // The spec's "orderNum is unique per merchant", enforced where races cannot get past it.
      .addUniqueConstraint('orders_merchant_order_unique', ['merchant_code', 'order_num'])
      .addUniqueConstraint('orders_va_number_unique', ['va_number'])
      .execute();
    await db.schema.createIndex('orders_status_expires_idx').on('orders').columns(['status', 'expires_at']).execute();

    await db.schema
      .createTable('notifications')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('plat_order_num', 'text', (col) => col.notNull().references('orders.plat_order_num'))
      .addColumn('merchant_code', 'text', (col) => col.notNull())
      .addColumn('order_num', 'text', (col) => col.notNull())
      .addColumn('event', 'text', (col) => col.notNull())
      .addColumn('url', 'text', (col) => col.notNull())
      .addColumn('fields', 'text', (col) => col.notNull())
      .addColumn('state', 'text', (col) => col.notNull())
      .addColumn('fault', 'text')
      .addColumn('attempt_count', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('round_attempts', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'bigint', (col) => col.notNull())
      .addColumn('lease_owner', 'text')
      .addColumn('lease_until', 'bigint')
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('updated_at', 'bigint', (col) => col.notNull())
      .addColumn('delivered_at', 'bigint')
      .execute();
    await db.schema
      .createIndex('notifications_due_idx')
      .on('notifications')
      .columns(['state', 'next_attempt_at'])
      .execute();
    await db.schema
      .createIndex('notifications_order_idx')
      .on('notifications')
      .columns(['merchant_code', 'order_num'])
      .execute();
    await db.schema.createIndex('notifications_created_idx').on('notifications').column('created_at').execute();

    await db.schema
      .createTable('delivery_attempts')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('notification_id', 'text', (col) => col.notNull().references('notifications.id'))
      .addColumn('number', 'integer', (col) => col.notNull())
      .addColumn('attempted_at', 'bigint', (col) => col.notNull())
      .addColumn('acknowledged', 'integer', (col) => col.notNull())
      .addColumn('http_status', 'integer')
      .addColumn('latency_ms', 'integer', (col) => col.notNull())
      .addColumn('error_class', 'text')
      .addColumn('body_excerpt', 'text', (col) => col.notNull())
      .addColumn('detail', 'text')
      .addColumn('worker', 'text', (col) => col.notNull())
      .execute();
    await db.schema
      .createIndex('delivery_attempts_notification_idx')
      .on('delivery_attempts')
      .columns(['notification_id', 'number'])
      .execute();
    // The sandbox's fault table was created here until issue 33; the sandbox's own migrations
    // (sandbox/migrations.ts) create it now, only in sandbox mode. A database that has it keeps it.
  },
  async down(db: Kysely<any>) {
    for (const table of ['delivery_attempts', 'notifications', 'orders', 'merchants']) {
      await db.schema.dropTable(table).ifExists().execute();
    }
  },
};

/** A merchant's display name, logo and accent colour, set from the sandbox dashboard (issue 21). */
const merchantBranding: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('merchant_branding')
      .addColumn('merchant_code', 'text', (col) => col.primaryKey().references('merchants.merchant_code'))
      .addColumn('display_name', 'text')
      .addColumn('logo', 'text')
      .addColumn('accent_color', 'text')
      .addColumn('updated_at', 'bigint', (col) => col.notNull())
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('merchant_branding').ifExists().execute();
  },
};

/** How customers reach the merchant, shown on the hosted page (issue 20). */
const brandingSupportContact: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('merchant_branding').addColumn('support_contact', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('merchant_branding').dropColumn('support_contact').execute();
  },
};

/**
 * Which final states each merchant is notified of (issue 36), as a JSON array of kinds. New
 * merchants get `["paid"]`, what the family sends. Merchants registered before this migration
 * were notified of every final state, and their handlers may count on it: they keep all three
 * (`merchant update CODE --notify paid` narrows it), so an upgrade changes nothing under them.
 */
const merchantNotifyKinds: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('merchants')
      .addColumn('notify_kinds', 'text', (col) => col.notNull().defaultTo('["paid"]'))
      .execute();
    await db.updateTable('merchants').set({ notify_kinds: '["paid","failed","expired"]' }).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('merchants').dropColumn('notify_kinds').execute();
  },
};

/**
 * Customers' personal data kept only as long as needed (issue 35, UU PDP): when an order's name,
 * e-mail and phone were redacted; an index holding only the finished orders not redacted yet, by
 * the time they ended, so a retention pass reads only what it may redact; and named leases, so
 * one process at a time runs that pass.
 */
const personalData: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('orders').addColumn('redacted_at', 'bigint').execute();
    await db.schema
      .createIndex('orders_unredacted_closed_idx')
      .ifNotExists()
      .on('orders')
      .column('closed_at')
      .where(sql<boolean>`redacted_at is null and closed_at is not null`)
      .execute();
    await db.schema
      .createTable('leases')
      .ifNotExists()
      .addColumn('name', 'text', (col) => col.primaryKey())
      .addColumn('owner', 'text', (col) => col.notNull())
      .addColumn('expires_at', 'bigint', (col) => col.notNull())
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('leases').ifExists().execute();
    await db.schema.dropIndex('orders_unredacted_closed_idx').ifExists().execute();
    await db.schema.alterTable('orders').dropColumn('redacted_at').execute();
  },
};

/**
 * The trace an order was created in (issue 34): the creating span's W3C `traceparent`, so each
 * notification attempt continues that trace. Null for orders made without tracing and before this.
 */
const orderTraceParent: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('orders').addColumn('trace_parent', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('orders').dropColumn('trace_parent').execute();
  },
};

/** Every migration, by name; names sort in the order they run. */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '2026_11_22_001_initial': initial,
  '2026_11_25_001_merchant_branding': merchantBranding,
  '2026_11_25_002_branding_support_contact': brandingSupportContact,
  '2026_11_28_001_personal_data': personalData,
  '2026_12_01_001_merchant_notify_kinds': merchantNotifyKinds,
  '2026_12_08_001_order_trace_parent': orderTraceParent,
};

/** A list of migrations and the tables the Migrator keeps its record and its lock in. */
export interface MigrationSet {
  readonly migrations: Readonly<Record<string, Migration>>;
  readonly table: string;
  readonly lockTable: string;
}

/** The gateway's own schema (the sandbox adds its set on top: sandbox/migrations.ts). */
export const GATEWAY_MIGRATIONS: MigrationSet = { migrations: MIGRATIONS, table: 'gateway_migrations', lockTable: 'gateway_migrations_lock' };

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

/**
 * The PostgreSQL schema the connection works in. The Migrator must be told: it looks for its own
 * tables in every schema, and would take another gateway's (in another schema) for its own.
 */
async function currentSchema(db: Kysely<any>, engine: 'sqlite' | 'postgres'): Promise<string | undefined> {
  if (engine !== 'postgres') return undefined;
  const result = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const schema = result.rows[0]?.schema;
  if (!schema) throw new MigrationError('the PostgreSQL search_path names no existing schema');
  return schema;
}

/** Bring a set of migrations up to date. Safe to call from several processes at once. */
export async function runMigrationSet(db: Kysely<any>, engine: 'sqlite' | 'postgres', set: MigrationSet): Promise<void> {
  const schema = await currentSchema(db, engine);
  const provider: MigrationProvider = { getMigrations: () => Promise.resolve({ ...set.migrations }) };
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: set.table,
    migrationLockTableName: set.lockTable,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await runMigrator(migrator);
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    const reason = error instanceof Error ? error.message : String(error);
    throw new MigrationError(`database migration ${failed?.migrationName ?? ''} failed: ${reason}`.replace('  ', ' '));
  }
}

/** Bring the gateway's schema up to date. Safe to call from several processes at once. */
export function migrateToLatest(db: Kysely<any>, engine: 'sqlite' | 'postgres'): Promise<void> {
  return runMigrationSet(db, engine, GATEWAY_MIGRATIONS);
}
