/**
 * The order store's hot-path queries, each compiled once (`@tombolbayar/store-kit`'s `prepare`): creating an order, reading it, the compare-and-set transitions and the fulfilment
 * lease. Every write that wins returns the row it wrote (RETURNING), so its caller never reads the
 * order again. Rarely run queries (leases of stuck creations, reconcile's lists) stay in
 * `orders.ts`, built per call.
 *
 * The gateway's facts are written with COALESCE(new, old): one statement shape whatever the gateway
 * told us, and a known value is never overwritten with null.
 */
import { prepare, type Param } from '@tombolbayar/store-kit';
import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import { iso, type GatewayFacts, type NewOrder } from './order-model.ts';
import type { OrderStatus, PayButtonDatabase } from './schema.ts';

type Db = Kysely<PayButtonDatabase>;
type Eb = ExpressionBuilder<PayButtonDatabase, 'tombolbayar_orders'>;

/** The gateway's facts as query values (null where it told us nothing). */
export interface FactValues {
  readonly platOrderNum: string | null;
  readonly url: string | null;
  readonly vaNumber: string | null;
  readonly payFee: string | null;
  readonly method: string | null;
  readonly expiresAt: string | null;
}

export function factValues(facts: GatewayFacts): FactValues {
  return {
    platOrderNum: facts.platOrderNum || null,
    url: facts.url || null,
    vaNumber: facts.vaNumber || null,
    payFee: facts.payFee || null,
    method: facts.method || null,
    expiresAt: facts.expiresAt ? iso(facts.expiresAt) : null,
  };
}

/** SET columns for the facts: COALESCE(new value, current value). */
function factSet(eb: Eb, value: Param<FactValues>) {
  const keep = <C extends 'plat_order_num' | 'pay_url' | 'va_number' | 'pay_fee' | 'method' | 'expires_at'>(column: C, name: keyof FactValues) =>
    eb.fn.coalesce(eb.val(value(name)), eb.ref(column));
  return {
    plat_order_num: keep('plat_order_num', 'platOrderNum'),
    pay_url: keep('pay_url', 'url'),
    va_number: keep('va_number', 'vaNumber'),
    pay_fee: keep('pay_fee', 'payFee'),
    method: keep('method', 'method'),
    expires_at: keep('expires_at', 'expiresAt'),
  };
}

/** A new order's values: the stored shape (`metadata` as JSON), its time and create lease. */
type NewOrderValues = Omit<NewOrder, 'metadata'> & {
  readonly metadata: string | null;
  readonly now: string;
  readonly leaseUntil: string;
};

type Keyed = { readonly orderNum: string; readonly now: string };

/**
 * `claim`: the move to `paid` also takes the first `onPaid` lease (what `claimFulfilment` would
 * write next), one statement instead of two. An order entering `paid` has never held one: nothing
 * leaves `paid`, and only a paid order's lease is ever claimed.
 */
const transitionQuery = (from: readonly OrderStatus[], to: 'paid' | 'expired' | 'failed', claim: boolean) =>
  prepare((db: Db, value: Param<Keyed & FactValues & { paidAt: string | null; leaseUntil: string | null }>) =>
    db
      .updateTable('tombolbayar_orders')
      .set((eb) => ({
        ...factSet(eb, value),
        previous_status: eb.ref('status'),
        status: to,
        create_lease_until: null,
        ...(to === 'paid' ? { paid_at: value('paidAt') } : {}),
        ...(claim ? { fulfil_lease_until: value('leaseUntil'), fulfil_attempts: eb('fulfil_attempts', '+', 1) } : {}),
        updated_at: value('now'),
      }))
      .where('order_num', '=', value('orderNum'))
      .where('status', 'in', [...from])
      .returningAll(),
  );

const transitions = new Map<string, ReturnType<typeof transitionQuery>>();

/** The store's hot-path queries; each runs on the store's instance (or a transaction of it). */
export const ORDER_QUERIES = {
  insertCreating: prepare((db: Db, value: Param<NewOrderValues>) =>
    db
      .insertInto('tombolbayar_orders')
      .values({
        order_num: value('orderNum'),
        kind: value('kind'),
        status: 'creating',
        idempotency_key: value('idempotencyKey'),
        request_hash: value('requestHash'),
        status_token: value('statusToken'),
        merchant_code: value('merchantCode'),
        pay_money: value('payMoney'),
        product_detail: value('productDetail'),
        customer_name: value('name'),
        email: value('email'),
        phone: value('phone'),
        method: value('method'),
        expiry_period: value('expiryPeriod'),
        item: value('item'),
        metadata: value('metadata'),
        return_to: value('returnTo'),
        reference: value('reference'),
        purchase_key: value('purchaseKey'),
        created_at: value('now'),
        updated_at: value('now'),
        create_lease_until: value('leaseUntil'),
        fulfil_attempts: 0,
      })
      // Any unique conflict inserts nothing: the idempotency key, or a purchase that already has a payable order.
      .onConflict((conflict) => conflict.doNothing())
      .returningAll(),
  ),

  byOrderNum: prepare((db: Db, value: Param<{ orderNum: string }>) => db.selectFrom('tombolbayar_orders').selectAll().where('order_num', '=', value('orderNum'))),

  /**
   * The purchase's order that can still be paid (at most one: a partial unique index). The states
   * are written into the SQL, not bound: only then can SQLite's planner prove the partial index
   * applies (bound, it walks every `creating` and `pending` order instead).
   */
  payableByPurchase: prepare((db: Db, value: Param<{ purchaseKey: string }>) =>
    db.selectFrom('tombolbayar_orders').selectAll().where('purchase_key', '=', value('purchaseKey')).where('status', 'in', [sql.lit<OrderStatus>('creating'), sql.lit<OrderStatus>('pending')])),

  /**
   * Claims the first payment of a purchase (`reference` and amount) for `orderNum`: a no-op when
   * another order claimed it already (the unique key decides, across processes).
   */
  claimFirstPaid: prepare((db: Db, value: Param<{ reference: string; payMoney: string; orderNum: string }>) =>
    db
      .insertInto('tombolbayar_first_paid')
      .values({ reference: value('reference'), pay_money: value('payMoney'), order_num: value('orderNum') })
      .onConflict((conflict) => conflict.columns(['reference', 'pay_money']).doNothing())),

  /**
   * The earliest paid order of a purchase by the gateway's paid time: the claim's stand-in when it
   * was never written (see `OrderStore.firstPaidOf`).
   */
  earliestPaid: prepare((db: Db, value: Param<{ reference: string; payMoney: string }>) =>
    db
      .selectFrom('tombolbayar_orders')
      .select('order_num')
      .where('reference', '=', value('reference'))
      .where('status', '=', 'paid')
      .where('pay_money', '=', value('payMoney'))
      .orderBy('paid_at')
      .orderBy('created_at')
      .orderBy('order_num')
      .limit(1)),

  /** The order that paid a purchase (`reference` and amount) first, once one did. */
  firstPaid: prepare((db: Db, value: Param<{ reference: string; payMoney: string }>) =>
    db.selectFrom('tombolbayar_first_paid').select('order_num').where('reference', '=', value('reference')).where('pay_money', '=', value('payMoney'))),

  byIdempotencyKey: prepare((db: Db, value: Param<{ key: string }>) => db.selectFrom('tombolbayar_orders').selectAll().where('idempotency_key', '=', value('key'))),

  /** creating -> pending with the create's answer. */
  markCreated: prepare((db: Db, value: Param<Keyed & FactValues & { checkedAt: string | null }>) =>
    db
      .updateTable('tombolbayar_orders')
      .set((eb) => ({
        ...factSet(eb, value),
        status: 'pending',
        create_lease_until: null,
        error_code: null,
        error_message: null,
        gateway_code: null,
        checked_at: value('checkedAt'),
        updated_at: value('now'),
      }))
      .where('order_num', '=', value('orderNum'))
      .where('status', '=', 'creating')
      .returningAll(),
  ),

  /** The create's answer for an order a notification already moved on. */
  recordFacts: prepare((db: Db, value: Param<Keyed & FactValues>) =>
    db
      .updateTable('tombolbayar_orders')
      .set((eb) => ({ ...factSet(eb, value), create_lease_until: null, updated_at: value('now') }))
      .where('order_num', '=', value('orderNum'))
      .returningAll(),
  ),

  /** One compiled query per (from, to, claim): the states listed are part of the SQL text. */
  transition(from: readonly OrderStatus[], to: 'paid' | 'expired' | 'failed', claim: boolean) {
    const key = `${from.join(',')}>${to}${claim ? '+lease' : ''}`;
    let query = transitions.get(key);
    if (!query) transitions.set(key, (query = transitionQuery(from, to, claim)));
    return query;
  },

  claimCheck: prepare((db: Db, value: Param<Keyed & { notAfter: string }>) =>
    db
      .updateTable('tombolbayar_orders')
      .set({ checked_at: value('now') })
      .where('order_num', '=', value('orderNum'))
      .where((eb) => eb.or([eb('checked_at', 'is', null), eb('checked_at', '<', value('notAfter'))])),
  ),

  claimFulfilment: prepare((db: Db, value: Param<Keyed & { leaseUntil: string }>) =>
    db
      .updateTable('tombolbayar_orders')
      .set((eb) => ({ fulfil_lease_until: value('leaseUntil'), fulfil_attempts: eb('fulfil_attempts', '+', 1), updated_at: value('now') }))
      .where('order_num', '=', value('orderNum'))
      .where('status', '=', 'paid')
      .where('fulfilled_at', 'is', null)
      .where((eb) => eb.or([eb('fulfil_lease_until', 'is', null), eb('fulfil_lease_until', '<', value('now'))]))
      .returningAll(),
  ),

  /** Fenced: only run `attempt`, and only while its lease has not run out (a stalled run cannot revive it). */
  renewFulfilment: prepare((db: Db, value: Param<Keyed & { attempt: number; leaseUntil: string }>) =>
    db
      .updateTable('tombolbayar_orders')
      .set({ fulfil_lease_until: value('leaseUntil'), updated_at: value('now') })
      .where('order_num', '=', value('orderNum'))
      .where('fulfilled_at', 'is', null)
      .where('fulfil_attempts', '=', value('attempt'))
      .where('fulfil_lease_until', '>=', value('now')),
  ),

  /**
   * Fenced by the attempt: a run that was taken over records nothing. A run whose lease ran out
   * while nobody took over (its write met a long database outage) still records: its `onPaid`
   * returned, and recording it is what keeps a second run from starting.
   */
  completeFulfilment: prepare((db: Db, value: Param<Keyed & { attempt: number }>) =>
    db
      .updateTable('tombolbayar_orders')
      .set({ fulfilled_at: value('now'), fulfil_lease_until: null, fulfil_error: null, updated_at: value('now') })
      .where('order_num', '=', value('orderNum'))
      .where('fulfilled_at', 'is', null)
      .where('fulfil_attempts', '=', value('attempt')),
  ),

  failFulfilment: prepare((db: Db, value: Param<Keyed & { attempt: number; message: string }>) =>
    db
      .updateTable('tombolbayar_orders')
      .set({ fulfil_lease_until: null, fulfil_error: value('message'), updated_at: value('now') })
      .where('order_num', '=', value('orderNum'))
      .where('fulfilled_at', 'is', null)
      .where('fulfil_attempts', '=', value('attempt')),
  ),
};
