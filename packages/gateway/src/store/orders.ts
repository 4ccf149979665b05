/**
 * Order rows. Every state change is a compare-and-set (`UPDATE ... WHERE status = 'PENDING'`), so
 * of two racing transitions exactly one wins, on SQLite and on PostgreSQL, within one process or
 * across several.
 */
import type { MethodCode, OrderStatus } from '@paybutton/protocol';
import type { Selectable } from 'kysely';
import type { FinalStatus, Order, OrderKind } from '../domain/types.ts';
import type { Executor } from './executor.ts';
import type { OrdersTable } from './schema.ts';

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

/** Insert a new order. Throws the driver's unique violation for a taken orderNum or VA number. */
export async function insertOrder(db: Executor, order: Order): Promise<void> {
  await db
    .insertInto('orders')
    .values({
      plat_order_num: order.platOrderNum,
      merchant_code: order.merchantCode,
      order_num: order.orderNum,
      kind: order.kind,
      status: order.status,
      method: order.method,
      va_number: order.vaNumber,
      pay_money: order.payMoney,
      pay_fee: order.payFee,
      product_detail: order.productDetail,
      name: order.name,
      email: order.email,
      phone: order.phone,
      notify_url: order.notifyUrl,
      redirect_url: order.redirectUrl,
      expiry_period: order.expiryPeriod,
      request_date_time: order.requestDateTime,
      created_at: order.createdAt,
      expires_at: order.expiresAt,
      paid_at: order.paidAt,
      closed_at: order.closedAt,
    })
    .execute();
}

export async function findOrderByPlatOrderNum(db: Executor, platOrderNum: string): Promise<Order | undefined> {
  const row = await db.selectFrom('orders').selectAll().where('plat_order_num', '=', platOrderNum).executeTakeFirst();
  return row ? toOrder(row) : undefined;
}

export async function findOrderByOrderNum(db: Executor, merchantCode: string, orderNum: string): Promise<Order | undefined> {
  const row = await db
    .selectFrom('orders')
    .selectAll()
    .where('merchant_code', '=', merchantCode)
    .where('order_num', '=', orderNum)
    .executeTakeFirst();
  return row ? toOrder(row) : undefined;
}

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
  let query = db
    .updateTable('orders')
    .set({ status: to, closed_at: now, ...(to === 'PAID' ? { paid_at: now } : {}) })
    .where('plat_order_num', '=', platOrderNum)
    .where('status', '=', 'PENDING');
  if (to === 'EXPIRED') {
    if (!options.force) query = query.where('expires_at', '<=', now);
  } else {
    query = query.where('expires_at', '>', now);
  }
  if (to === 'PAID') query = query.where('method', 'is not', null);
  const row = await query.returningAll().executeTakeFirst();
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
