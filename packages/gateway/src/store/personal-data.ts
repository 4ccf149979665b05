/**
 * Customers' personal data in the gateway's store (issue 35, UU PDP): finding a person's orders,
 * redacting them in place, and the retention pass's list. Redaction blanks the order's name,
 * e-mail and phone, rewrites its notifications' fields (name and e-mail blanked, `platSign`
 * dropped: a signature over the old values would let anyone holding a guess confirm it) and
 * empties the merchant's answers kept in the attempt log. The financial record stays: numbers,
 * amounts, fee, method, times, state, and the attempts' times and statuses.
 *
 * On SQLite every connection runs with `secure_delete` (`database.ts`), so freed bytes are zeroed;
 * the caller then truncates the WAL (`Database.truncateWal`).
 */
import { sql } from 'kysely';
import type { OrderStatus } from '@tombolbayar/protocol';
import type { Order } from '../domain/types.ts';
import type { Executor } from './executor.ts';

/** Who the data belongs to: an order matches when it matches every key given. */
export interface PersonQuery {
  readonly email?: string | undefined;
  readonly phone?: string | undefined;
  readonly orderNum?: string | undefined;
  /** Only this merchant's orders (the signed API); every merchant's when absent (the CLI). */
  readonly merchantCode?: string | undefined;
}

/** One order of the person, with its personal data and what says whether it may be erased now. */
export interface PersonalOrder
  extends Pick<
    Order,
    'platOrderNum' | 'merchantCode' | 'orderNum' | 'status' | 'name' | 'email' | 'phone' | 'payMoney' | 'payFee' | 'productDetail' | 'createdAt' | 'paidAt' | 'closedAt'
  > {
  /** As stored: a code this gateway may no longer list. */
  readonly method: string | null;
  readonly redactedAt: number | null;
  /** Notifications of the order still being delivered (they carry the name and e-mail, signed). */
  readonly notificationsPending: number;
}

const nullable = (value: number | null): number | null => (value === null ? null : Number(value));

/** The person's orders, first created first, at most `limit`. */
export async function findPersonalOrders(db: Executor, query: PersonQuery, limit: number): Promise<PersonalOrder[]> {
  let select = db
    .selectFrom('orders')
    .select([
      'plat_order_num', 'merchant_code', 'order_num', 'status', 'name', 'email', 'phone', 'pay_money', 'pay_fee', 'method', 'product_detail',
      'created_at', 'paid_at', 'closed_at', 'redacted_at',
    ])
    .select((eb) =>
      eb
        .selectFrom('notifications')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('notifications.plat_order_num', '=', 'orders.plat_order_num')
        .where('notifications.state', '=', 'pending')
        .as('pending_notifications'),
    );
  // E-mail addresses are compared without case (the part people type differently).
  if (query.email !== undefined) select = select.where(sql<string>`lower(email)`, '=', query.email.toLowerCase());
  if (query.phone !== undefined) select = select.where('phone', '=', query.phone);
  if (query.orderNum !== undefined) select = select.where('order_num', '=', query.orderNum);
  if (query.merchantCode !== undefined) select = select.where('merchant_code', '=', query.merchantCode);
  const rows = await select.orderBy('created_at').orderBy('plat_order_num').limit(limit).execute();
  return rows.map((row) => ({
    platOrderNum: row.plat_order_num,
    merchantCode: row.merchant_code,
    orderNum: row.order_num,
    status: row.status as OrderStatus,
    name: row.name,
    email: row.email,
    phone: row.phone,
    payMoney: Number(row.pay_money),
    payFee: nullable(row.pay_fee),
    method: row.method,
    productDetail: row.product_detail,
    createdAt: Number(row.created_at),
    paidAt: nullable(row.paid_at),
    closedAt: nullable(row.closed_at),
    redactedAt: nullable(row.redacted_at),
    notificationsPending: Number(row.pending_notifications ?? 0),
  }));
}

/** What a redacted notification's fields hold instead of the customer's. */
export function redactedFields(fields: Readonly<Record<string, string>>): Record<string, string> {
  const { platSign: _dropped, ...rest } = fields;
  return { ...rest, ...('name' in rest ? { name: '' } : {}), ...('email' in rest ? { email: '' } : {}) };
}

/**
 * Redact these orders, each only while it is final and has no notification still being delivered
 * (re-checked in the same statement, so a race loses nothing). Run it in a transaction: the
 * order, its notifications and its attempts change together. Returns the orders redacted.
 */
export async function redactOrders(db: Executor, platOrderNums: readonly string[], now: number): Promise<string[]> {
  if (platOrderNums.length === 0) return [];
  const rows = await db
    .updateTable('orders')
    .set({ name: '', email: '', phone: '', redacted_at: now })
    .where('plat_order_num', 'in', [...platOrderNums])
    .where('status', '!=', 'PENDING')
    .where((eb) => eb.not(eb.exists(eb.selectFrom('notifications').select('id').whereRef('notifications.plat_order_num', '=', 'orders.plat_order_num').where('notifications.state', '=', 'pending'))))
    .returning('plat_order_num')
    .execute();
  const redacted = rows.map((row) => row.plat_order_num);
  if (redacted.length === 0) return [];
  const notifications = await db.selectFrom('notifications').select(['id', 'fields']).where('plat_order_num', 'in', redacted).execute();
  for (const notification of notifications) {
    const fields = redactedFields(JSON.parse(notification.fields) as Record<string, string>);
    await db.updateTable('notifications').set({ fields: JSON.stringify(fields) }).where('id', '=', notification.id).execute();
  }
  if (notifications.length > 0) {
    await db.updateTable('delivery_attempts').set({ body_excerpt: '' }).where('notification_id', 'in', notifications.map((notification) => notification.id)).execute();
  }
  return redacted;
}

/**
 * The retention pass's next batch: finished orders that ended before `cutoff`, not redacted yet,
 * without a notification still being delivered (it would then be skipped until delivered or dead).
 */
export async function ordersPastRetention(db: Executor, cutoff: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('orders')
    .select('plat_order_num')
    .where('redacted_at', 'is', null)
    .where('closed_at', 'is not', null)
    .where('closed_at', '<', cutoff)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('notifications').select('id').whereRef('notifications.plat_order_num', '=', 'orders.plat_order_num').where('notifications.state', '=', 'pending'))))
    .orderBy('closed_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.plat_order_num);
}
