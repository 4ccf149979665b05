/** The store as the router uses it: opened, migrated once, closed on `close()`. */
import { ensureSchema, openDatabase, type ConnectionErrorListener, type DatabaseOption, type Engine, type PoolState } from './database.ts';
import { sql } from 'kysely';
import { migrateToLatest } from './migrations.ts';
import { OrderStore, type UnreadableRow } from './orders.ts';
import { SweepStore } from './sweep.ts';
import { PersonalDataStore } from './personal-data.ts';

export interface Store {
  readonly orders: OrderStore;
  /** The notification sweep's lease and candidates. */
  readonly sweep: SweepStore;
  /** Customers' personal data: find, redact, retention (`personal-data.ts`). */
  readonly personalData: PersonalDataStore;
  readonly engine: Engine;
  /** The PostgreSQL pool's connections, when the store can see its pool. */
  readonly poolState?: (() => PoolState) | undefined;
  /** Creates the schema (PostgreSQL, when named) and runs pending migrations. Idempotent. */
  migrate(): Promise<void>;
  /** One trivial query: does the database answer? */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * `unreadable`: told about a stored value that cannot be read back (the router warns);
 * `onConnectionError`: told about a database connection lost under a query.
 */
export function createStore(option: DatabaseOption, unreadable?: UnreadableRow, onConnectionError?: ConnectionErrorListener): Store {
  const open = openDatabase(option, onConnectionError);
  let migrating: Promise<void> | undefined;
  return {
    // A Kysely instance the merchant gave us may carry plugins: its queries are built every time.
    orders: new OrderStore(open.db, option.kind !== 'kysely', unreadable),
    sweep: new SweepStore(open.db, unreadable),
    personalData: new PersonalDataStore(open.db, open.truncateWal, unreadable),
    engine: open.engine,
    poolState: open.poolState,
    migrate: () =>
      (migrating ??= (async () => {
        await ensureSchema(open);
        // open.db carries withSchema(schema), so the migrations create their tables there too.
        await migrateToLatest(open.db as never, open.schema, open.engine);
      })().catch((error: unknown) => {
        migrating = undefined; // a database that was down is tried again by the next caller
        throw error;
      })),
    ping: async () => {
      await sql`select 1`.execute(open.root);
    },
    close: () => open.close(),
  };
}

export type { DatabaseOption, Engine, PoolState } from './database.ts';
export type { Order, GatewayFacts, NewOrder } from './orders.ts';
export { OrderStore } from './orders.ts';
export type { OrderKind, OrderStatus } from './schema.ts';
