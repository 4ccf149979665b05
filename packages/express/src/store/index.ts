/** The store as the router uses it: opened, migrated once, closed on `close()`. */
import { ensureSchema, openDatabase, type DatabaseOption, type Engine } from './database.ts';
import { migrateToLatest } from './migrations.ts';
import { OrderStore, type UnreadableRow } from './orders.ts';

export interface Store {
  readonly orders: OrderStore;
  readonly engine: Engine;
  /** Creates the schema (PostgreSQL, when named) and runs pending migrations. Idempotent. */
  migrate(): Promise<void>;
  close(): Promise<void>;
}

/** `unreadable`: told about a stored value that cannot be read back (the router warns). */
export function createStore(option: DatabaseOption, unreadable?: UnreadableRow): Store {
  const open = openDatabase(option);
  let migrating: Promise<void> | undefined;
  return {
    // A Kysely instance the merchant gave us may carry plugins: its queries are built every time.
    orders: new OrderStore(open.db, option.kind !== 'kysely', unreadable),
    engine: open.engine,
    migrate: () =>
      (migrating ??= (async () => {
        await ensureSchema(open);
        // open.db carries withSchema(schema), so the migrations create their tables there too.
        await migrateToLatest(open.db as never, open.schema, open.engine);
      })()),
    close: () => open.close(),
  };
}

export type { DatabaseOption, Engine } from './database.ts';
export type { Order, GatewayFacts, NewOrder } from './orders.ts';
export { OrderStore } from './orders.ts';
export type { OrderKind, OrderStatus } from './schema.ts';
