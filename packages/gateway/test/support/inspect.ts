/** Read the gateway's database directly, through a second connection, to check what was stored. */
import { openDatabase } from '../../src/store/database.ts';
import type { FreshStore } from './engines.ts';

export async function countRows(store: FreshStore, table: 'orders' | 'notifications' | 'delivery_attempts', where: Record<string, string> = {}): Promise<number> {
  const database = openDatabase(store.database);
  try {
    let query = database.db.selectFrom(table).select((eb) => eb.fn.countAll<number | string>().as('count'));
    for (const [column, value] of Object.entries(where)) query = query.where(column as never, '=', value as never);
    const row = await query.executeTakeFirstOrThrow();
    return Number(row.count);
  } finally {
    await database.close();
  }
}

/** The lease a notification's row holds (bookkeeping the public `Delivery` view does not show). */
export async function notificationLease(store: FreshStore, id: string): Promise<{ readonly leaseOwner: string | null; readonly leaseUntil: number | null } | undefined> {
  const database = openDatabase(store.database);
  try {
    const row = await database.db.selectFrom('notifications').select(['lease_owner', 'lease_until']).where('id', '=', id).executeTakeFirst();
    return row ? { leaseOwner: row.lease_owner, leaseUntil: row.lease_until === null ? null : Number(row.lease_until) } : undefined;
  } finally {
    await database.close();
  }
}
