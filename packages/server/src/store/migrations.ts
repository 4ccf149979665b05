/**
 * Migrations, shipped in the package and run by `payButton()` at start-up (or `store.migrate()`).
 * Kysely's Migrator takes a lock, so several processes starting together migrate once.
 *
 * A migration that has shipped is never edited: a database that already ran it would never see the
 * change. Fixes are new migrations, which may depend on the engine (`migrationsFor`).
 */
import { runMigrator } from '@tombolbayar/store-kit';
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Engine } from './database.ts';
import type { PayButtonDatabase } from './schema.ts';

function migrationsFor(engine: Engine): Record<string, Migration> {
  return {
    '2026_01_001_orders': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('paybutton_orders')
          .addColumn('order_num', 'varchar(64)', (col) => col.primaryKey())
          .addColumn('kind', 'varchar(8)', (col) => col.notNull())
          .addColumn('status', 'varchar(16)', (col) => col.notNull())
          .addColumn('idempotency_key', 'varchar(128)', (col) => col.unique())
          .addColumn('request_hash', 'varchar(64)')
          .addColumn('status_token', 'varchar(64)', (col) => col.notNull())
          .addColumn('merchant_code', 'varchar(50)', (col) => col.notNull())
          .addColumn('pay_money', 'varchar(16)', (col) => col.notNull())
          .addColumn('product_detail', 'varchar(64)', (col) => col.notNull())
          .addColumn('customer_name', 'varchar(64)', (col) => col.notNull())
          .addColumn('email', 'varchar(254)', (col) => col.notNull())
          .addColumn('phone', 'varchar(20)', (col) => col.notNull())
          .addColumn('method', 'varchar(32)')
          .addColumn('expiry_period', 'integer', (col) => col.notNull())
          .addColumn('item', 'varchar(128)')
          .addColumn('metadata', 'text')
          .addColumn('return_to', 'varchar(2048)')
          .addColumn('plat_order_num', 'varchar(64)')
          .addColumn('pay_url', 'varchar(2048)')
          .addColumn('va_number', 'varchar(64)')
          .addColumn('pay_fee', 'varchar(16)')
          .addColumn('created_at', 'varchar(24)', (col) => col.notNull())
          .addColumn('updated_at', 'varchar(24)', (col) => col.notNull())
          .addColumn('expires_at', 'varchar(24)')
          .addColumn('paid_at', 'varchar(24)')
          .addColumn('create_lease_until', 'varchar(24)')
          .addColumn('error_code', 'varchar(64)')
          .addColumn('error_message', 'varchar(1024)')
          .addColumn('gateway_code', 'varchar(16)')
          .addColumn('checked_at', 'varchar(24)')
          .addColumn('fulfilled_at', 'varchar(24)')
          .addColumn('fulfil_attempts', 'integer', (col) => col.notNull().defaultTo(0))
          .addColumn('fulfil_lease_until', 'varchar(24)')
          .addColumn('fulfil_error', 'varchar(1024)')
          .execute();
        // reconcile(): pending orders past expiry, paid orders not yet fulfilled, stuck creations.
        await db.schema.createIndex('paybutton_orders_status_expires').on('paybutton_orders').columns(['status', 'expires_at']).execute();
        await db.schema.createIndex('paybutton_orders_fulfilled').on('paybutton_orders').columns(['status', 'fulfilled_at']).execute();
      },
      async down(db: Kysely<unknown>) {
        await db.schema.dropTable('paybutton_orders').execute();
      },
    },
    /**
     * Values whose length we do not control get `text`: a QRIS "vaNumber" is a whole EMVCo payload
     * (~250 characters), a server-side idempotency key is stored as `server:` + up to 128
     * characters, and `returnTo` is a URL. SQLite never enforces varchar lengths, so only
     * PostgreSQL has anything to change.
     */
    '2026_02_001_wide_columns': {
      async up(db: Kysely<unknown>) {
        if (engine !== 'postgres') return;
        for (const column of WIDENED_COLUMNS) {
          await db.schema.alterTable('paybutton_orders').alterColumn(column, (col) => col.setDataType('text')).execute();
        }
      },
      async down(db: Kysely<unknown>) {
        if (engine !== 'postgres') return;
        for (const [column, type] of Object.entries(NARROW_TYPES)) {
          await db.schema.alterTable('paybutton_orders').alterColumn(column, (col) => col.setDataType(sql.raw(type))).execute();
        }
      },
    },
    /**
     * The state an order left at its last transition, written by the same conditional UPDATE that
     * moves it (SET reads the old row on both engines) and read back with RETURNING: one statement
     * per compare-and-set, and the `order.transition` event still knows where the order came from.
     */
    '2026_02_002_previous_status': {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('paybutton_orders').addColumn('previous_status', 'varchar(16)').execute();
      },
      async down(db: Kysely<unknown>) {
        await db.schema.alterTable('paybutton_orders').dropColumn('previous_status').execute();
      },
    },
    /**
     * The merchant's reference of a purchase, and its purchase key: a partial unique index keeps
     * at most one payable (`creating` or `pending`) order per key, across processes, on both
     * engines; a second index finds the paid orders of a reference (duplicate payments).
     */
    '2026_11_001_reference': {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('paybutton_orders').addColumn('reference', 'varchar(64)').execute();
        await db.schema.alterTable('paybutton_orders').addColumn('purchase_key', 'text').execute();
        await db.schema
          .createIndex('paybutton_orders_payable_purchase')
          .on('paybutton_orders')
          .column('purchase_key')
          .unique()
          .where(sql<boolean>`status in ('creating', 'pending')`)
          .execute();
        await db.schema.createIndex('paybutton_orders_reference').on('paybutton_orders').columns(['reference', 'status']).execute();
      },
      async down(db: Kysely<unknown>) {
        await db.schema.dropIndex('paybutton_orders_reference').execute();
        await db.schema.dropIndex('paybutton_orders_payable_purchase').execute();
        await db.schema.alterTable('paybutton_orders').dropColumn('purchase_key').execute();
        await db.schema.alterTable('paybutton_orders').dropColumn('reference').execute();
      },
    },
    /**
     * Leases held by one process at a time across every process sharing the store: the sweep
     * that asks the gateway about pending orders whose notification may have been lost.
     */
    '2026_11_002_leases': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('paybutton_leases')
          .addColumn('name', 'varchar(64)', (col) => col.primaryKey())
          .addColumn('owner', 'varchar(64)', (col) => col.notNull())
          .addColumn('expires_at', 'varchar(24)', (col) => col.notNull())
          .execute();
      },
      async down(db: Kysely<unknown>) {
        await db.schema.dropTable('paybutton_leases').execute();
      },
    },
    /**
     * Fewer index entries per write (bench/: an order's two commits of a payment link cost about a
     * third less CPU on SQLite): the indexes that only serve rows with a purchase key, a reference,
     * or a paid order not fulfilled yet hold only those rows, so an order without them (most) is
     * written to two index fewer, and a fulfilled one leaves the reconcile index. Same lookups, same
     * uniqueness (NULL keys were never unique-checked). New indexes first, then the old ones go,
     * each step repeatable: an interrupted run (SQLite's DDL runs outside a transaction) ends the
     * same when run again.
     */
    '2026_11_003_lean_indexes': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createIndex('paybutton_orders_payable_purchase_key')
          .ifNotExists()
          .on('paybutton_orders')
          .column('purchase_key')
          .unique()
          .where(sql<boolean>`purchase_key is not null and status in ('creating', 'pending')`)
          .execute();
        await db.schema
          .createIndex('paybutton_orders_reference_set')
          .ifNotExists()
          .on('paybutton_orders')
          .columns(['reference', 'status'])
          .where(sql<boolean>`reference is not null`)
          .execute();
        await db.schema
          .createIndex('paybutton_orders_unfulfilled')
          .ifNotExists()
          .on('paybutton_orders')
          .column('paid_at')
          .where(sql<boolean>`status = 'paid' and fulfilled_at is null`)
          .execute();
        for (const index of LEAN_REPLACED_INDEXES) await db.schema.dropIndex(index).ifExists().execute();
      },
      async down(db: Kysely<unknown>) {
        await db.schema.createIndex('paybutton_orders_fulfilled').ifNotExists().on('paybutton_orders').columns(['status', 'fulfilled_at']).execute();
        await db.schema
          .createIndex('paybutton_orders_payable_purchase')
          .ifNotExists()
          .on('paybutton_orders')
          .column('purchase_key')
          .unique()
          .where(sql<boolean>`status in ('creating', 'pending')`)
          .execute();
        await db.schema.createIndex('paybutton_orders_reference').ifNotExists().on('paybutton_orders').columns(['reference', 'status']).execute();
        for (const index of ['paybutton_orders_unfulfilled', 'paybutton_orders_reference_set', 'paybutton_orders_payable_purchase_key']) {
          await db.schema.dropIndex(index).ifExists().execute();
        }
      },
    },
    /**
     * Personal data kept only as long as needed (UU PDP): when an order's customer data was
     * redacted (by retention or on request), and an index holding only the finished orders not
     * redacted yet, by their last change, so a retention pass reads only what it may redact.
     */
    '2026_11_004_personal_data': {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('paybutton_orders').addColumn('redacted_at', 'varchar(24)').execute();
        await db.schema
          .createIndex('paybutton_orders_unredacted_final')
          .ifNotExists()
          .on('paybutton_orders')
          .column('updated_at')
          .where(sql<boolean>`redacted_at is null and status in ('paid', 'expired', 'failed')`)
          .execute();
      },
      async down(db: Kysely<unknown>) {
        await db.schema.dropIndex('paybutton_orders_unredacted_final').ifExists().execute();
        await db.schema.alterTable('paybutton_orders').dropColumn('redacted_at').execute();
      },
    },
    /**
     * One name (`tombolbayar`): the tables an earlier version made as `paybutton_*` are renamed in
     * place (their indexes follow them and keep their names). The migrator's own tables are
     * renamed before it runs (`adoptEarlierMigrationTables`).
     */
    '2026_11_005_tombolbayar_names': {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('paybutton_orders').renameTo('tombolbayar_orders').execute();
        await db.schema.alterTable('paybutton_leases').renameTo('tombolbayar_leases').execute();
      },
      async down(db: Kysely<unknown>) {
        await db.schema.alterTable('tombolbayar_leases').renameTo('paybutton_leases').execute();
        await db.schema.alterTable('tombolbayar_orders').renameTo('paybutton_orders').execute();
      },
    },
    /**
     * The first paid order of each purchase (a merchant `reference` and an amount), claimed by a
     * unique key in the database when an order is found paid: of two orders of one purchase paid
     * at once in two processes, exactly one wins the claim, so exactly one is the duplicate (the
     * gateway's paid times are to the second, and a lost notification can come late). Purchases
     * paid before it are claimed for their first paid order (by the gateway's paid time).
     */
    '2026_12_001_first_paid': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('tombolbayar_first_paid')
          .ifNotExists()
          .addColumn('reference', 'varchar(64)', (column) => column.notNull())
          .addColumn('pay_money', 'varchar(16)', (column) => column.notNull())
          .addColumn('order_num', 'varchar(64)', (column) => column.notNull())
          .addPrimaryKeyConstraint('tombolbayar_first_paid_pk', ['reference', 'pay_money'])
          .execute();
        // Through the builder (never raw table names): a PostgreSQL store may live in a schema of its own.
        const orders = db as unknown as Kysely<PayButtonDatabase>;
        const paid = await orders
          .selectFrom('tombolbayar_orders')
          .select(['reference', 'pay_money', 'order_num'])
          .where('status', '=', 'paid')
          .where('reference', 'is not', null)
          .orderBy('paid_at')
          .orderBy('created_at')
          .orderBy('order_num')
          .execute();
        const claimed = new Set<string>();
        for (const row of paid) {
          const purchase = `${row.pay_money}|${row.reference}`;
          if (claimed.has(purchase)) continue;
          claimed.add(purchase);
          // A run cut short and started again (SQLite runs DDL outside a transaction) finds its claims made.
          await orders
            .insertInto('tombolbayar_first_paid')
            .values({ reference: row.reference!, pay_money: row.pay_money, order_num: row.order_num })
            .onConflict((conflict) => conflict.columns(['reference', 'pay_money']).doNothing())
            .execute();
        }
      },
      async down(db: Kysely<unknown>) {
        await db.schema.dropTable('tombolbayar_first_paid').ifExists().execute();
      },
    },
  };
}

/** The indexes `2026_11_003_lean_indexes` replaces with partial ones. */
const LEAN_REPLACED_INDEXES = ['paybutton_orders_fulfilled', 'paybutton_orders_payable_purchase', 'paybutton_orders_reference'] as const;

const WIDENED_COLUMNS = ['va_number', 'idempotency_key', 'return_to'] as const;
/** What `2026_01_001_orders` declared, for `down`. */
const NARROW_TYPES: Record<(typeof WIDENED_COLUMNS)[number], string> = { va_number: 'varchar(64)', idempotency_key: 'varchar(128)', return_to: 'varchar(2048)' };

const MIGRATION_TABLE = 'tombolbayar_migration';
const MIGRATION_LOCK_TABLE = 'tombolbayar_migration_lock';
/** What an earlier version called the migrator's tables. */
const EARLIER_MIGRATION_TABLES = [['paybutton_migration', MIGRATION_TABLE], ['paybutton_migration_lock', MIGRATION_LOCK_TABLE]] as const;

/**
 * A store an earlier version migrated keeps its history under the earlier names: renamed to the
 * current ones before the migrator looks, so it sees what already ran (and then renames the
 * tables themselves, `2026_11_005_tombolbayar_names`). Said once in the process's warnings.
 * Two processes starting together: the loser of the race finds the table already renamed.
 */
async function adoptEarlierMigrationTables(db: Kysely<unknown>, schema: string | undefined, engine: Engine): Promise<void> {
  const names = await migratorTables(db, schema, engine);
  const renames = EARLIER_MIGRATION_TABLES.filter(([earlier, current]) => names.has(earlier) && !names.has(current));
  for (const [earlier, current] of renames) {
    try {
      await db.schema.alterTable(earlier).renameTo(current).execute();
    } catch (error) {
      if (!(await migratorTables(db, schema, engine)).has(current)) throw error; // not the race: a real failure
    }
  }
  if (renames.length > 0) {
    process.emitWarning(`the order store's tables were renamed from paybutton_* to tombolbayar_* (${renames.map(([earlier]) => earlier).join(', ')} and the tables they track)`, { code: 'TOMBOLBAYAR_RENAMED_TABLES' });
  }
}

/**
 * Which of the migrator's tables (earlier and current names) exist in the store's schema, asked
 * of those names alone: listing every table of a PostgreSQL database (Kysely's introspection)
 * fails when another process drops a schema of its own meanwhile (`3F000`, see store-kit's
 * `runMigrator`), and is more work than four names need.
 */
async function migratorTables(db: Kysely<unknown>, schema: string | undefined, engine: Engine): Promise<Set<string>> {
  const names = EARLIER_MIGRATION_TABLES.flat();
  if (engine === 'sqlite') {
    const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name in (${sql.join(names)})`.execute(db);
    return new Set(rows.map((row) => row.name));
  }
  const found = new Set<string>();
  for (const name of names) {
    const qualified = `"${(schema ?? 'public').replaceAll('"', '""')}"."${name}"`;
    const { rows } = await sql<{ found: string | null }>`select to_regclass(${qualified}) as found`.execute(db);
    if (rows[0]?.found) found.add(name);
  }
  return found;
}

class InPackageProvider implements MigrationProvider {
  constructor(private readonly engine: Engine) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrationsFor(this.engine);
  }
}

/**
 * Bring the schema up to date (or, with `upTo`, to that migration: tests that upgrade a database
 * made by an earlier release); throws with the failing migration's name.
 */
export async function migrateToLatest(db: Kysely<unknown>, schema: string | undefined, engine: Engine, upTo?: string): Promise<void> {
  await adoptEarlierMigrationTables(db, schema, engine);
  const migrator = new Migrator({
    db,
    provider: new InPackageProvider(engine),
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await runMigrator(migrator, upTo);
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${reason}`, { cause: error });
  }
}
