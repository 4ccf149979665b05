/**
 * The order store. Every state change is a single conditional UPDATE (compare-and-set): it names
 * the states it may leave, and the caller learns whether it won. That is what makes a duplicated
 * notification, a reordered one and a racing status poll change an order exactly once, on SQLite
 * and PostgreSQL alike, across processes.
 *
 * A change that wins gives back the row it wrote (RETURNING), so no step reads the order again
 * after writing it; the queries of the hot paths (create, notify, poll, fulfil) are compiled once
 * (`queries.ts`) and only their values change from one request to the next.
 */
import { sql, type Kysely } from 'kysely';
import type { Selectable } from 'kysely';
import { iso, toOrder as rowToOrder, truncate, type GatewayFacts, type NewOrder, type Order, type UnreadableRow } from './order-model.ts';
import { factValues, ORDER_QUERIES as Q } from './queries.ts';
import type { OrderStatus, OrdersTable, PayButtonDatabase } from './schema.ts';

export type { GatewayFacts, NewOrder, Order, UnreadableRow } from './order-model.ts';

export class OrderStore {
  /**
   * `reuseQueries`: run the hot-path queries compiled once. False for a Kysely instance the
   * merchant gave us (`database: { kind: 'kysely' }`): its plugins then see every query built.
   */
  constructor(
    readonly db: Kysely<PayButtonDatabase>,
    private readonly reuseQueries = true,
    /** Told about a stored value that cannot be read back (the router makes it a `warning`). */
    private readonly unreadable?: UnreadableRow,
  ) {}

  private readonly toOrder = (row: Selectable<OrdersTable>): Order => rowToOrder(row, this.unreadable);

  /**
   * Store a new order in `creating`, holding the create lease until `leaseUntil`. When the
   * idempotency key is taken, nothing is written and the existing order is returned instead.
   */
  async insertCreating(order: NewOrder, now: Date, leaseUntil: Date): Promise<{ inserted: true; order: Order } | { inserted: false; order: Order | undefined }> {
    const row = await Q.insertCreating.first(this.db, {
      orderNum: order.orderNum,
      kind: order.kind,
      idempotencyKey: order.idempotencyKey,
      requestHash: order.requestHash,
      statusToken: order.statusToken,
      merchantCode: order.merchantCode,
      payMoney: order.payMoney,
      productDetail: order.productDetail,
      name: order.name,
      email: order.email,
      phone: order.phone,
      method: order.method,
      expiryPeriod: order.expiryPeriod,
      item: order.item,
      metadata: order.metadata === null ? null : JSON.stringify(order.metadata),
      returnTo: order.returnTo,
      reference: order.reference,
      purchaseKey: order.purchaseKey,
      now: iso(now),
      leaseUntil: iso(leaseUntil),
    }, this.reuseQueries);
    if (row) return { inserted: true, order: this.toOrder(row) };
    const existing =
      (order.idempotencyKey === null ? undefined : await this.getByIdempotencyKey(order.idempotencyKey))
      ?? (order.purchaseKey === null ? undefined : await this.payableByPurchase(order.purchaseKey));
    // The conflicting order moved on (paid, expired) between the insert and the read: say so.
    if (!existing) return { inserted: false, order: undefined };
    return { inserted: false, order: existing };
  }

  async get(orderNum: string): Promise<Order | undefined> {
    const row = await Q.byOrderNum.first(this.db, { orderNum }, this.reuseQueries);
    return row ? this.toOrder(row) : undefined;
  }

  async getByIdempotencyKey(key: string): Promise<Order | undefined> {
    const row = await Q.byIdempotencyKey.first(this.db, { key }, this.reuseQueries);
    return row ? this.toOrder(row) : undefined;
  }

  /** The purchase's order that can still be paid (`creating` or `pending`), if any. */
  async payableByPurchase(purchaseKey: string): Promise<Order | undefined> {
    const row = await Q.payableByPurchase.first(this.db, { purchaseKey }, this.reuseQueries);
    return row ? this.toOrder(row) : undefined;
  }

  /** The purchase (`reference`) paid for `payMoney` by any of its orders, whatever its kind or method: the first that paid it. */
  async paidOfReference(reference: string, payMoney: string): Promise<Order | undefined> {
    const first = await this.firstPaidOf({ reference, payMoney });
    return first === null ? undefined : this.get(first);
  }

  /**
   * For an order that is not paid: the order that paid its purchase (its `reference` and amount),
   * so this one needs no payment, and paying it too would pay the purchase twice.
   */
  async paidInstead(order: Pick<Order, 'orderNum' | 'reference' | 'payMoney'>): Promise<string | null> {
    return this.otherFirstPaid(order);
  }

  /**
   * For a paid order: the order that paid its purchase first, if it is not `order` itself (`order`
   * is then a second payment of one purchase: the merchant refunds it). Decided by the claim the
   * move to `paid` made (see `transition`), under a unique key: exactly one order of a purchase is
   * first, whatever the gateway's paid times (to the second) or processes racing say.
   */
  async duplicateOf(order: Pick<Order, 'orderNum' | 'reference' | 'payMoney'>): Promise<string | null> {
    return this.otherFirstPaid(order);
  }

  private async otherFirstPaid(order: Pick<Order, 'orderNum' | 'reference' | 'payMoney'>): Promise<string | null> {
    if (order.reference === null) return null;
    const first = await this.firstPaidOf({ reference: order.reference, payMoney: order.payMoney });
    return first !== null && first !== order.orderNum ? first : null;
  }

  /**
   * The order that paid a purchase first: its claim, or, when a paid order's claim was never
   * written (its process ended, or the database failed, between the two writes), the earliest
   * paid order by the gateway's time, claimed now. Null while nothing paid it.
   */
  private async firstPaidOf(purchase: { readonly reference: string; readonly payMoney: string }): Promise<string | null> {
    const claimed = await Q.firstPaid.first(this.db, purchase, this.reuseQueries);
    if (claimed) return claimed.order_num;
    const earliest = await Q.earliestPaid.first(this.db, purchase, this.reuseQueries);
    if (!earliest) return null;
    await this.claimFirstPaid({ ...purchase, orderNum: earliest.order_num });
    return (await Q.firstPaid.first(this.db, purchase, this.reuseQueries))?.order_num ?? earliest.order_num;
  }

  private async claimFirstPaid(claim: { readonly orderNum: string; readonly reference: string; readonly payMoney: string }): Promise<void> {
    await Q.claimFirstPaid.execute(this.db, claim, this.reuseQueries);
  }

  /** Take over the create lease of an order still in `creating` whose lease has run out. */
  async claimCreateLease(orderNum: string, now: Date, leaseUntil: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('tombolbayar_orders')
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
      .updateTable('tombolbayar_orders')
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

  /**
   * creating -> pending with what the gateway answered: the order as written, or undefined when it
   * had left `creating`. `checkedAt`: when the gateway last told us about it (the create's answer),
   * or null when a status poll should ask it at once.
   */
  async markCreated(orderNum: string, facts: GatewayFacts, now: Date, checkedAt: Date | null = now): Promise<Order | undefined> {
    const checked = checkedAt === null ? null : iso(checkedAt);
    const row = await Q.markCreated.first(this.db, { orderNum, now: iso(now), checkedAt: checked, ...factValues(facts) }, this.reuseQueries);
    return row ? this.toOrder(row) : undefined;
  }

  /** Record what the gateway said without changing the state (a notification got there first). */
  async recordFacts(orderNum: string, facts: GatewayFacts, now: Date): Promise<Order | undefined> {
    const row = await Q.recordFacts.first(this.db, { orderNum, now: iso(now), ...factValues(facts) }, this.reuseQueries);
    return row ? this.toOrder(row) : undefined;
  }

  /** creating -> failed: the gateway definitely did not take the order. */
  async markCreateFailed(orderNum: string, now: Date, error: { code: string; message: string; gatewayCode?: string | undefined }): Promise<boolean> {
    const result = await this.db
      .updateTable('tombolbayar_orders')
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
   * conditional UPDATE. Returns the state the order left (SET reads the old row) and the order as
   * written, or `undefined` when the order was in none of `from` (another writer got there first).
   * `leaseUntil` (a move to `paid` only): the same UPDATE takes the first `onPaid` lease, as
   * `claimFulfilment` would, and `attempt` is that run's number.
   */
  async transition(
    orderNum: string, from: readonly OrderStatus[], to: 'paid' | 'expired' | 'failed', facts: GatewayFacts, now: Date, leaseUntil?: Date,
  ): Promise<{ readonly left: OrderStatus; readonly order: Order; readonly attempt?: number | undefined } | undefined> {
    if (from.length === 0) return undefined;
    const paidAt = to === 'paid' ? iso(facts.paidAt ?? now) : null;
    const claim = to === 'paid' && leaseUntil !== undefined;
    const values = { orderNum, now: iso(now), paidAt, leaseUntil: claim ? iso(leaseUntil) : null, ...factValues(facts) };
    const row = await Q.transition(from, to, claim).first(this.db, values, this.reuseQueries);
    if (!row) return undefined;
    // Paid, an order of a purchase claims its first payment: of two, exactly one wins (see
    // `duplicateOf`). The move is written already: a claim that fails here is made by the next
    // read of the purchase (`firstPaidOf`), so the move is still reported as made.
    if (to === 'paid' && row.reference) {
      await this.claimFirstPaid({ orderNum, reference: row.reference, payMoney: row.pay_money }).catch(() => {});
    }
    return { left: row.previous_status ?? from[0]!, order: this.toOrder(row), ...(claim ? { attempt: Number(row.fulfil_attempts) } : {}) };
  }

  /** Keep the page to return to current: a retried create may come from another page (popup -> full page). */
  async updateReturnTo(orderNum: string, returnTo: string, now: Date): Promise<void> {
    await this.db.updateTable('tombolbayar_orders').set({ return_to: returnTo, updated_at: iso(now) }).where('order_num', '=', orderNum).execute();
  }

  /** Remember when the gateway was last asked, so status polls do not hammer it. */
  async claimCheck(orderNum: string, now: Date, notAfter: Date): Promise<boolean> {
    const result = await Q.claimCheck.execute(this.db, { orderNum, now: iso(now), notAfter: iso(notAfter) }, this.reuseQueries);
    return Number(result.numAffectedRows ?? 0n) === 1;
  }

  /**
   * Take the right to run `onPaid` for a paid, unfulfilled order until `leaseUntil`; returns the
   * attempt number and the order, or `undefined` when it is fulfilled or another run holds the lease.
   */
  async claimFulfilment(orderNum: string, now: Date, leaseUntil: Date): Promise<{ readonly attempt: number; readonly order: Order } | undefined> {
    const row = await Q.claimFulfilment.first(this.db, { orderNum, now: iso(now), leaseUntil: iso(leaseUntil) }, this.reuseQueries);
    return row ? { attempt: Number(row.fulfil_attempts), order: this.toOrder(row) } : undefined;
  }

  /**
   * Extend the fulfilment lease of run `attempt` while its `onPaid` is still working (heartbeat).
   * False when the run no longer holds it (fulfilled, or taken over after it ran out).
   */
  async renewFulfilment(orderNum: string, attempt: number, now: Date, leaseUntil: Date): Promise<boolean> {
    const result = await Q.renewFulfilment.execute(this.db, { orderNum, attempt, now: iso(now), leaseUntil: iso(leaseUntil) }, this.reuseQueries);
    return Number(result.numAffectedRows ?? 0n) === 1;
  }

  /**
   * Record that run `attempt`'s `onPaid` returned; false when another run took the order over (or
   * it is fulfilled). Its lease may have run out meanwhile: nobody else ran since, so it counts.
   * `afterFault`: an earlier try met a database fault, and a write that failed may still have
   * committed, so a try that changes nothing reads whether this run's completion is the one
   * recorded. (Tried again, while the lease is held, by `orders/fulfilment.ts`.)
   */
  async completeFulfilment(orderNum: string, attempt: number, now: Date, afterFault = false): Promise<boolean> {
    const result = await Q.completeFulfilment.execute(this.db, { orderNum, attempt, now: iso(now) }, this.reuseQueries);
    if (Number(result.numAffectedRows ?? 0n) === 1) return true;
    if (!afterFault) return false;
    const order = await this.get(orderNum);
    return order !== undefined && order.fulfilledAt !== null && order.fulfilAttempts === attempt;
  }

  /** Run `attempt`'s `onPaid` threw: release its lease, and only its own (a newer run may hold it). */
  async failFulfilment(orderNum: string, attempt: number, now: Date, message: string): Promise<void> {
    await Q.failFulfilment.execute(this.db, { orderNum, attempt, now: iso(now), message: truncate(message, 1024) }, this.reuseQueries);
  }

  /** Pending orders whose expiry has passed: the gateway should have told us their end. */
  async listPendingPastExpiry(now: Date, limit: number): Promise<Order[]> {
    const rows = await this.db
      .selectFrom('tombolbayar_orders')
      .selectAll()
      .where('status', '=', 'pending')
      .where('expires_at', '<', iso(now))
      .orderBy('expires_at')
      .limit(limit)
      .execute();
    return rows.map(this.toOrder);
  }

  /** Orders left in `creating` (gateway down, process killed) created before `before`, lease free. */
  async listStuckCreating(now: Date, before: Date, limit: number): Promise<Order[]> {
    const rows = await this.db
      .selectFrom('tombolbayar_orders')
      .selectAll()
      .where('status', '=', 'creating')
      .where('created_at', '<', iso(before))
      .where((eb) => eb.or([eb('create_lease_until', 'is', null), eb('create_lease_until', '<', iso(now))]))
      .orderBy('created_at')
      .limit(limit)
      .execute();
    return rows.map(this.toOrder);
  }

  /** Paid orders whose `onPaid` has not succeeded yet (it threw, or the process died). */
  async listUnfulfilled(now: Date, limit: number): Promise<Order[]> {
    const rows = await this.db
      .selectFrom('tombolbayar_orders')
      .selectAll()
      // Written into the SQL so both planners see the partial index `paybutton_orders_unfulfilled` (named before the table was renamed) applies.
      .where('status', '=', sql.lit<OrderStatus>('paid'))
      .where('fulfilled_at', 'is', null)
      .where((eb) => eb.or([eb('fulfil_lease_until', 'is', null), eb('fulfil_lease_until', '<', iso(now))]))
      .orderBy('paid_at')
      .limit(limit)
      .execute();
    return rows.map(this.toOrder);
  }
}
