/**
 * What the notification sweep (`orders/sweep.ts`) reads and writes: its lease (one process at a
 * time, across every process sharing the store) and the pending orders it may ask about.
 */
import { sql, type Kysely } from 'kysely';
import { iso, toOrder, type Order, type UnreadableRow } from './order-model.ts';
import type { PayButtonDatabase } from './schema.ts';

export class SweepStore {
  /** `unreadable`: told about a stored value that cannot be read back, as the order store is. */
  constructor(readonly db: Kysely<PayButtonDatabase>, private readonly unreadable?: UnreadableRow) {}

  /**
   * Hold the lease `name` for `owner` until `until`: taken when free or run out, renewed when
   * already ours. True when `owner` holds it now.
   */
  async claimLease(name: string, owner: string, now: Date, until: Date): Promise<boolean> {
    await this.db
      .insertInto('tombolbayar_leases')
      .values({ name, owner, expires_at: iso(until) })
      .onConflict((conflict) => conflict.column('name').doNothing())
      .execute();
    const result = await this.db
      .updateTable('tombolbayar_leases')
      .set({ owner, expires_at: iso(until) })
      .where('name', '=', name)
      .where((eb) => eb.or([eb('owner', '=', owner), eb('expires_at', '<', iso(now))]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows ?? 0n) === 1;
  }

  /** Give the lease up (at close), so another process takes over at once. */
  async releaseLease(name: string, owner: string): Promise<void> {
    await this.db.deleteFrom('tombolbayar_leases').where('name', '=', name).where('owner', '=', owner).execute();
  }

  /**
   * Pending orders with a method chosen, created before `createdBefore`, not asked about since
   * `checkedBefore`: never asked first, then the least recently asked (the likeliest due), then
   * the oldest; at most `limit` (the sweep reads its whole backlog, `scanLimit`).
   */
  async listSweepCandidates(createdBefore: Date, checkedBefore: Date, limit: number): Promise<Order[]> {
    const rows = await this.db
      .selectFrom('tombolbayar_orders')
      .selectAll()
      .where('status', '=', 'pending')
      .where('method', 'is not', null)
      .where('plat_order_num', 'is not', null)
      .where('created_at', '<', iso(createdBefore))
      .where((eb) => eb.or([eb('checked_at', 'is', null), eb('checked_at', '<', iso(checkedBefore))]))
      // NULLs first on both engines (PostgreSQL sorts them last by default).
      .orderBy(sql`checked_at is not null`)
      .orderBy('checked_at')
      .orderBy('created_at')
      .limit(limit)
      .execute();
    return rows.map((row) => toOrder(row, this.unreadable));
  }
}
