/**
 * The gateway's side of its merchants' duties under UU PDP (No. 27/2022), as their processor:
 * export a person's orders with their personal data, erase them on request, and redact every
 * finished order past the retention period. The CLI (`personal-data erase|export`), the signed API
 * (`/gateway/personalData/*`) and the retention pass all come here.
 *
 * An order still PENDING, or whose notification is still being delivered (it carries the name and
 * e-mail, signed), is refused with its reason: ask again once it has ended. Refusing is visible;
 * erasing later on its own would not be (documented in the README).
 */
import { inTransactionSpan } from '../observability/tracing.ts';
import type { Database } from '../store/database.ts';
import { findPersonalOrders, ordersPastRetention, redactOrders, type PersonalOrder, type PersonQuery } from '../store/personal-data.ts';

export type ErasureRefusal = 'order_pending' | 'notification_pending';

export const REFUSAL_TEXT: Record<ErasureRefusal, string> = {
  order_pending: 'the order can still be paid; ask again once it is paid, expired or failed',
  notification_pending: 'the order\'s notification is still being delivered; ask again once it is delivered or given up',
};

/** Why an order may not be erased now (pure), or undefined when it may. */
export function erasureRefusal(order: Pick<PersonalOrder, 'status' | 'notificationsPending'>): ErasureRefusal | undefined {
  if (order.status === 'PENDING') return 'order_pending';
  if (order.notificationsPending > 0) return 'notification_pending';
  return undefined;
}

export interface ErasureReport {
  readonly erased: readonly { readonly merchantCode: string; readonly orderNum: string; readonly platOrderNum: string; readonly status: string; readonly payMoney: number }[];
  readonly refused: readonly { readonly merchantCode: string; readonly orderNum: string; readonly platOrderNum: string; readonly status: string; readonly reason: ErasureRefusal; readonly message: string }[];
}

/** Orders one request or one retention batch works on at most. */
const MAX_ORDERS = 10_000;
const RETENTION_BATCH = 500;
export const DAY_MS = 24 * 3600 * 1000;

/** Every order of the person with its personal data (`notificationsPending` left out). */
export async function exportPersonalData(database: Database, query: PersonQuery): Promise<Omit<PersonalOrder, 'notificationsPending'>[]> {
  const orders = await findPersonalOrders(database.db, query, MAX_ORDERS);
  return orders.map(({ notificationsPending: _n, ...order }) => order);
}

export async function erasePersonalData(database: Database, query: PersonQuery, now: number): Promise<ErasureReport> {
  const orders = (await findPersonalOrders(database.db, query, MAX_ORDERS)).filter((order) => order.redactedAt === null);
  const refused: ErasureReport['refused'][number][] = [];
  const erasable: string[] = [];
  for (const order of orders) {
    const reason = erasureRefusal(order);
    const ref = { merchantCode: order.merchantCode, orderNum: order.orderNum, platOrderNum: order.platOrderNum, status: order.status };
    if (reason) refused.push({ ...ref, reason, message: REFUSAL_TEXT[reason] });
    else erasable.push(order.platOrderNum);
  }
  const done = new Set(await inTransactionSpan('personal_data.erase', database.engine, () => database.db.transaction().execute((trx) => redactOrders(trx, erasable, now))));
  for (const order of orders) {
    // A resend queued its notification between the read and the write: refused like any other.
    if (erasable.includes(order.platOrderNum) && !done.has(order.platOrderNum)) {
      refused.push({ merchantCode: order.merchantCode, orderNum: order.orderNum, platOrderNum: order.platOrderNum, status: order.status, reason: 'notification_pending', message: REFUSAL_TEXT.notification_pending });
    }
  }
  if (done.size > 0) await database.truncateWal?.();
  const erased = orders
    .filter((order) => done.has(order.platOrderNum))
    .map((order) => ({ merchantCode: order.merchantCode, orderNum: order.orderNum, platOrderNum: order.platOrderNum, status: order.status, payMoney: order.payMoney }));
  return { erased, refused };
}

/** Redact every finished order that ended more than `retentionDays` before `now`; returns how many. */
export async function applyRetention(database: Database, now: number, retentionDays: number): Promise<number> {
  const cutoff = now - retentionDays * DAY_MS;
  let redacted = 0;
  for (;;) {
    const due = await ordersPastRetention(database.db, cutoff, RETENTION_BATCH);
    if (due.length === 0) break;
    const done = await inTransactionSpan('personal_data.retention', database.engine, () => database.db.transaction().execute((trx) => redactOrders(trx, due, now)));
    redacted += done.length;
    if (due.length < RETENTION_BATCH || done.length === 0) break;
  }
  return redacted;
}
