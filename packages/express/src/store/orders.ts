/**
 * The order store. Every state change is a single conditional UPDATE (compare-and-set): it names
 * the states it may leave, and the caller learns whether it won. That is what makes a duplicated
 * notification, a reordered one and a racing status poll change an order exactly once, on SQLite
 * and PostgreSQL alike, across processes.
 */
import type { Kysely } from 'kysely';
import { factColumns, iso, toOrder, truncate, type GatewayFacts, type NewOrder, type Order } from './order-model.ts';
import type { OrderStatus, PayButtonDatabase } from './schema.ts';

export type { GatewayFacts, NewOrder, Order } from './order-model.ts';

export class OrderStore {
  constructor(readonly db: Kysely<PayButtonDatabase>) {}

  /**
   * Store a new order in `creating`, holding the create lease until `leaseUntil`. When the
   * idempotency key is taken, nothing is written and the existing order is returned instead.
   */
  async insertCreating(order: NewOrder, now: Date, leaseUntil: Date): Promise<{ inserted: true; order: Order } | { inserted: false; order: Order }> {
    const result = await this.db
      .insertInto('paybutton_orders')
      .values({
        order_num: order.orderNum,
        kind: order.kind,
        status: 'creating',
        idempotency_key: order.idempotencyKey,
        request_hash: order.requestHash,
        status_token: order.statusToken,
        merchant_code: order.merchantCode,
        pay_money: order.payMoney,
        product_detail: order.productDetail,
        customer_name: order.name,
        email: order.email,
        phone: order.phone,
        method: order.method,
        expiry_period: order.expiryPeriod,
        item: order.item,
        metadata: order.metadata === null ? null : JSON.stringify(order.metadata),
        return_to: order.returnTo,
        created_at: iso(now),
        updated_at: iso(now),
        create_lease_until: iso(leaseUntil),
        fulfil_attempts: 0,
      })
      .onConflict((conflict) => conflict.column('idempotency_key').doNothing())
      .executeTakeFirst();
    if (Number(result.numInsertedOrUpdatedRows ?? 0n) === 1) {
      const stored = await this.get(order.orderNum);
      if (!stored) throw new Error('order vanished right after insert');
      return { inserted: true, order: stored };
    }
    const existing = order.idempotencyKey === null ? undefined : await this.getByIdempotencyKey(order.idempotencyKey);
    if (!existing) throw new Error('insert ignored but no order holds the idempotency key');
    return { inserted: false, order: existing };
  }

  async get(orderNum: string): Promise<Order | undefined> {
    const row = await this.db.selectFrom('paybutton_orders').selectAll().where('order_num', '=', orderNum).executeTakeFirst();
    return row ? toOrder(row) : undefined;
  }

  async getByIdempotencyKey(key: string): Promise<Order | undefined> {
    const row = await this.db.selectFrom('paybutton_orders').selectAll().where('idempotency_key', '=', key).executeTakeFirst();
    return row ? toOrder(row) : undefined;
  }

  /** Take over the create lease of an order still in `creating` whose lease has run out. */
  async claimCreateLease(orderNum: string, now: Date, leaseUntil: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('paybutton_orders')
      .set({ create_lease_until: iso(leaseUntil), updated_at: iso(now) })
      .where('order_num', '=', orderNum)
      .where('status', '=', 'creating')
      .where((eb) => eb.or([eb('create_lease_until', 'is', null), eb('create_lease_until', '<', iso(now))]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** The outcome is still unknown: keep `creating`, free the lease, remember why. */
  async releaseCreateLease(orderNum: string, now: Date, error: { code: string; message: string; gatewayCode?: string | undefined }): Promise<void> {
    await this.db
      .updateTable('paybutton_orders')
      .set({
        create_lease_until: null,
        error_code: error.code,
        error_message: truncate(error.message, 1024),
        gateway_code: error.gatewayCode ?? null,
        updated_at: iso(now),
      })
      .where('order_num', '=', orderNum)
      .where('status', '=', 'creating')
      .execute();
  }

  /** creating -> pending with what the gateway answered. */
  async markCreated(orderNum: string, facts: GatewayFacts, now: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('paybutton_orders')
      .set({ ...factColumns(facts), status: 'pending', create_lease_until: null, error_code: null, error_message: null, gateway_code: null, checked_at: iso(now), updated_at: iso(now) })
      .where('order_num', '=', orderNum)
      .where('status', '=', 'creating')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Record what the gateway said without changing the state (a notification got there first). */
  async recordFacts(orderNum: string, facts: GatewayFacts, now: Date): Promise<void> {
    const columns = factColumns(facts);
    if (Object.keys(columns).length === 0) return;
    await this.db.updateTable('paybutton_orders').set({ ...columns, create_lease_until: null, updated_at: iso(now) }).where('order_num', '=', orderNum).execute();
  }

  /** creating -> failed: the gateway definitely did not take the order. */
  async markCreateFailed(orderNum: string, now: Date, error: { code: string; message: string; gatewayCode?: string | undefined }): Promise<boolean> {
    const result = await this.db
      .updateTable('paybutton_orders')
      .set({
        status: 'failed',
        create_lease_until: null,
        error_code: error.code,
        error_message: truncate(error.message, 1024),
        gateway_code: error.gatewayCode ?? null,
        updated_at: iso(now),
      })
      .where('order_num', '=', orderNum)
      .where('status', '=', 'creating')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Compare-and-set to a final state from any of `from`, recording the gateway's facts: one
   * conditional UPDATE. Returns the state the order left (SET reads the old row, RETURNING gives
   * it back), or `undefined` when the order was in none of `from` (another writer got there first).
   */
  async transition(orderNum: string, from: readonly OrderStatus[], to: 'paid' | 'expired' | 'failed', facts: GatewayFacts, now: Date): Promise<OrderStatus | undefined> {
    if (from.length === 0) return undefined;
    const row = await this.db
      .updateTable('paybutton_orders')
      .set((eb) => ({
        ...factColumns(facts),
        previous_status: eb.ref('status'),
        status: to,
        create_lease_until: null,
        ...(to === 'paid' ? { paid_at: iso(facts.paidAt ?? now) } : {}),
        updated_at: iso(now),
      }))
      .where('order_num', '=', orderNum)
      .where('status', 'in', [...from])
      .returning('previous_status')
      .executeTakeFirst();
    return row?.previous_status ?? undefined;
  }

  /** Keep the page to return to current: a retried create may come from another page (popup -> full page). */
  async updateReturnTo(orderNum: string, returnTo: string, now: Date): Promise<void> {
    await this.db.updateTable('paybutton_orders').set({ return_to: returnTo, updated_at: iso(now) }).where('order_num', '=', orderNum).execute();
  }

  /** Remember when the gateway was last asked, so status polls do not hammer it. */
  async claimCheck(orderNum: string, now: Date, notAfter: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('paybutton_orders')
      .set({ checked_at: iso(now) })
      .where('order_num', '=', orderNum)
      .where((eb) => eb.or([eb('checked_at', 'is', null), eb('checked_at', '<', iso(notAfter))]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Take the right to run `onPaid` for a paid, unfulfilled order until `leaseUntil`; returns the
   * attempt number, or `undefined` when it is fulfilled or another run holds the lease.
   */
  async claimFulfilment(orderNum: string, now: Date, leaseUntil: Date): Promise<number | undefined> {
    const result = await this.db
      .updateTable('paybutton_orders')
      .set((eb) => ({ fulfil_lease_until: iso(leaseUntil), fulfil_attempts: eb('fulfil_attempts', '+', 1), updated_at: iso(now) }))
      .where('order_num', '=', orderNum)
      .where('status', '=', 'paid')
      .where('fulfilled_at', 'is', null)
      .where((eb) => eb.or([eb('fulfil_lease_until', 'is', null), eb('fulfil_lease_until', '<', iso(now))]))
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return undefined;
    const row = await this.db.selectFrom('paybutton_orders').select('fulfil_attempts').where('order_num', '=', orderNum).executeTakeFirst();
    return Number(row?.fulfil_attempts ?? 1);
  }

  /**
   * Extend the fulfilment lease of run `attempt` while its `onPaid` is still working (heartbeat).
   * False when the run no longer holds it (fulfilled, or taken over after it ran out).
   */
  async renewFulfilment(orderNum: string, attempt: number, now: Date, leaseUntil: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('paybutton_orders')
      .set({ fulfil_lease_until: iso(leaseUntil), updated_at: iso(now) })
      .where('order_num', '=', orderNum)
      .where('fulfilled_at', 'is', null)
      .where('fulfil_attempts', '=', attempt)
      .where('fulfil_lease_until', 'is not', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async completeFulfilment(orderNum: string, now: Date): Promise<void> {
    await this.db
      .updateTable('paybutton_orders')
      .set({ fulfilled_at: iso(now), fulfil_lease_until: null, fulfil_error: null, updated_at: iso(now) })
      .where('order_num', '=', orderNum)
      .where('fulfilled_at', 'is', null)
      .execute();
  }

  /** Run `attempt`'s `onPaid` threw: release its lease, and only its own (a newer run may hold it). */
  async failFulfilment(orderNum: string, attempt: number, now: Date, message: string): Promise<void> {
    await this.db
      .updateTable('paybutton_orders')
      .set({ fulfil_lease_until: null, fulfil_error: truncate(message, 1024), updated_at: iso(now) })
      .where('order_num', '=', orderNum)
      .where('fulfilled_at', 'is', null)
      .where('fulfil_attempts', '=', attempt)
      .execute();
  }

  /** Pending orders whose expiry has passed: the gateway should have told us their end. */
  async listPendingPastExpiry(now: Date, limit: number): Promise<Order[]> {
    const rows = await this.db
      .selectFrom('paybutton_orders')
      .selectAll()
      .where('status', '=', 'pending')
      .where('expires_at', '<', iso(now))
      .orderBy('expires_at')
      .limit(limit)
      .execute();
    return rows.map(toOrder);
  }

  /** Orders left in `creating` (gateway down, process killed) created before `before`, lease free. */
  async listStuckCreating(now: Date, before: Date, limit: number): Promise<Order[]> {
    const rows = await this.db
      .selectFrom('paybutton_orders')
      .selectAll()
      .where('status', '=', 'creating')
      .where('created_at', '<', iso(before))
      .where((eb) => eb.or([eb('create_lease_until', 'is', null), eb('create_lease_until', '<', iso(now))]))
      .orderBy('created_at')
      .limit(limit)
      .execute();
    return rows.map(toOrder);
  }

  /** Paid orders whose `onPaid` has not succeeded yet (it threw, or the process died). */
  async listUnfulfilled(now: Date, limit: number): Promise<Order[]> {
    const rows = await this.db
      .selectFrom('paybutton_orders')
      .selectAll()
      .where('status', '=', 'paid')
      .where('fulfilled_at', 'is', null)
      .where((eb) => eb.or([eb('fulfil_lease_until', 'is', null), eb('fulfil_lease_until', '<', iso(now))]))
      .orderBy('paid_at')
      .limit(limit)
      .execute();
    return rows.map(toOrder);
  }
}
