/**
 * Order rows. Every state change is a compare-and-set (`UPDATE ... WHERE status = 'PENDING'`), so
 * of two racing transitions exactly one wins, on SQLite and on PostgreSQL, within one process or
 * across several.
 */
import type { MethodCode, OrderStatus } from '@tombolbayar/protocol';
import { prepare, type Param } from '@tombolbayar/store-kit';
import type { Kysely, Selectable } from 'kysely';
import type { FinalStatus, Order, OrderKind } from '../domain/types.ts';
import type { Executor } from './executor.ts';
import type { GatewayDatabase, OrdersTable } from './schema.ts';

type Db = Kysely<GatewayDatabase>;

function toOrder(row: Selectable<OrdersTable>): Order {
  return {
    platOrderNum: row.plat_order_num,
    merchantCode: row.merchant_code,
    orderNum: row.order_num,
    kind: row.kind as OrderKind,
    status: row.status as OrderStatus,
    method: row.method as MethodCode | null,
    vaNumber: row.va_number,
    payMoney: Number(row.pay_money),
    payFee: row.pay_fee === null ? null : Number(row.pay_fee),
    productDetail: row.product_detail,
    name: row.name,
    email: row.email,
    phone: row.phone,
    notifyUrl: row.notify_url,
    redirectUrl: row.redirect_url,
    expiryPeriod: Number(row.expiry_period),
    requestDateTime: row.request_date_time,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    paidAt: row.paid_at === null ? null : Number(row.paid_at),
    closedAt: row.closed_at === null ? null : Number(row.closed_at),
  };
}

// The queries every create and query request runs, compiled once (store-kit's `prepare`).
const insertOrderQuery = prepare((db: Db, value: Param<Order & { traceParent: string | null }>) =>
  db.insertInto('orders').values({
    plat_order_num: value('platOrderNum'),
    merchant_code: value('merchantCode'),
    order_num: value('orderNum'),
    kind: value('kind'),
    status: value('status'),
    method: value('method'),
    va_number: value('vaNumber'),
    pay_money: value('payMoney'),
    pay_fee: value('payFee'),
    product_detail: value('productDetail'),
    name: value('name'),
    email: value('email'),
    phone: value('phone'),
    notify_url: value('notifyUrl'),
    redirect_url: value('redirectUrl'),
    expiry_period: value('expiryPeriod'),
    request_date_time: value('requestDateTime'),
    created_at: value('createdAt'),
    expires_at: value('expiresAt'),
    paid_at: value('paidAt'),
    closed_at: value('closedAt'),
    trace_parent: value('traceParent'),
  }),
);
const byPlatOrderNum = prepare((db: Db, value: Param<{ platOrderNum: string }>) =>
  db.selectFrom('orders').selectAll().where('plat_order_num', '=', value('platOrderNum')),
);
const byOrderNum = prepare((db: Db, value: Param<{ merchantCode: string; orderNum: string }>) =>
  db.selectFrom('orders').selectAll().where('merchant_code', '=', value('merchantCode')).where('order_num', '=', value('orderNum')),
);

/**
 * Insert a new order, with the W3C `traceparent` of the span that created it (null without tracing):
 * its notifications continue that trace. Throws the driver's unique violation for a taken orderNum or VA number.
 */
export async function insertOrder(db: Executor, order: Order, traceParent: string | null = null): Promise<void> {
  await insertOrderQuery.execute(db, { ...order, traceParent });
}

export async function findOrderByPlatOrderNum(db: Executor, platOrderNum: string): Promise<Order | undefined> {
  const row = await byPlatOrderNum.first(db, { platOrderNum });
  return row ? toOrder(row) : undefined;
}

export async function findOrderByOrderNum(db: Executor, merchantCode: string, orderNum: string): Promise<Order | undefined> {
  const row = await byOrderNum.first(db, { merchantCode, orderNum });
  return row ? toOrder(row) : undefined;
}

const transitionQuery = (to: FinalStatus, force: boolean) =>
  prepare((db: Db, value: Param<{ platOrderNum: string; now: number }>) => {
    let query = db
      .updateTable('orders')
      .set({ status: to, closed_at: value('now'), ...(to === 'PAID' ? { paid_at: value('now') } : {}) })
      .where('plat_order_num', '=', value('platOrderNum'))
      .where('status', '=', 'PENDING');
    if (to === 'EXPIRED') {
      if (!force) query = query.where('expires_at', '<=', value('now'));
    } else {
      query = query.where('expires_at', '>', value('now'));
    }
    if (to === 'PAID') query = query.where('method', 'is not', null);
    return query.returningAll();
  });
const transitionQueries = new Map<string, ReturnType<typeof transitionQuery>>();

/**
 * PENDING -> `to`, only if the order is still PENDING. A payment or failure also requires the
 * order not to have expired by `now`, and a payment requires a chosen method; expiry requires
 * `expires_at <= now` unless `force` (the sandbox's "simulate expiry"). Returns the updated order,
 * or undefined when the compare-and-set did not apply.
 */
export async function transitionOrder(
  db: Executor,
  platOrderNum: string,
  to: FinalStatus,
  now: number,
  options: { force?: boolean } = {},
): Promise<Order | undefined> {
  const force = to === 'EXPIRED' && options.force === true;
  const key = `${to}:${force}`;
  let query = transitionQueries.get(key);
  if (!query) transitionQueries.set(key, (query = transitionQuery(to, force)));
  const row = await query.first(db, { platOrderNum, now });
  return row ? toOrder(row) : undefined;
}

/** Fix the method of a PENDING, unexpired order that has none. Undefined when that no longer holds. */
export async function assignMethod(
  db: Executor,
  platOrderNum: string,
  choice: { method: MethodCode; vaNumber: string; payFee: number },
  now: number,
): Promise<Order | undefined> {
  const row = await db
    .updateTable('orders')
    .set({ method: choice.method, va_number: choice.vaNumber, pay_fee: choice.payFee })
    .where('plat_order_num', '=', platOrderNum)
    .where('status', '=', 'PENDING')
    .where('method', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
  return row ? toOrder(row) : undefined;
}

/**
 * Undo the method choice of a PENDING, unexpired payment link (`kind = 'link'`) still set to
 * `method`: method, payment code and fee back to null, so the code stops being payable and the
 * customer can choose again. Undefined when that no longer holds (paid, expired, changed meanwhile).
 */
export async function releaseMethod(db: Executor, platOrderNum: string, method: MethodCode, now: number): Promise<Order | undefined> {
  const row = await db
    .updateTable('orders')
    .set({ method: null, va_number: null, pay_fee: null })
    .where('plat_order_num', '=', platOrderNum)
    .where('status', '=', 'PENDING')
    .where('kind', '=', 'link')
    .where('method', '=', method)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
  return row ? toOrder(row) : undefined;
}

/** Platform numbers of PENDING orders whose expiry has passed, oldest first. */
export async function findOverdueOrders(db: Executor, now: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('orders')
    .select('plat_order_num')
    .where('status', '=', 'PENDING')
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.plat_order_num);
}

/** Number of orders a merchant has (for tests and the CLI's merchant list). */
export async function countOrders(db: Executor, merchantCode?: string): Promise<number> {
  let query = db.selectFrom('orders').select((eb) => eb.fn.countAll<number | string>().as('count'));
  if (merchantCode) query = query.where('merchant_code', '=', merchantCode);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Orders a person may mean by one number (the sandbox dashboard and CLI): the platform number,
 * a merchant's `orderNum` (of any merchant) or the VA number / payment code. Newest first.
 */
export async function findOrdersByAnyNumber(db: Executor, term: string, limit: number): Promise<Order[]> {
  const rows = await db
    .selectFrom('orders')
    .selectAll()
    .where((eb) => eb.or([eb('plat_order_num', '=', term), eb('order_num', '=', term), eb('va_number', '=', term)]))
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toOrder);
}

/** The newest orders of every merchant (the sandbox dashboard's list). */
export async function listRecentOrders(db: Executor, limit: number): Promise<Order[]> {
  const rows = await db.selectFrom('orders').selectAll().orderBy('created_at', 'desc').orderBy('plat_order_num', 'desc').limit(limit).execute();
  return rows.map(toOrder);
}
