/**
 * The notification outbox. A row is inserted in the same transaction as the order's state change,
 * so a committed PAID always has its notification and a rolled-back one never does. Workers claim
 * due rows with a lease (`FOR UPDATE SKIP LOCKED` on PostgreSQL; a single atomic UPDATE on
 * SQLite), so two processes never deliver one notification at the same time.
 */
import type { Selectable } from 'kysely';
import type { FinalStatus } from '../domain/types.ts';
import type { Engine } from './database.ts';
import type { Executor } from './executor.ts';
import type { DeliveryAttemptsTable, NotificationsTable } from './schema.ts';

export type NotificationState = 'pending' | 'delivered' | 'dead' | 'dropped';

export interface NotificationRecord {
  readonly id: string;
  readonly platOrderNum: string;
  readonly merchantCode: string;
  readonly orderNum: string;
  /** The final state it tells. */
  readonly event: FinalStatus;
  /** The merchant's `notifyUrl` it is sent to. */
  readonly url: string;
  /** The signed form fields, exactly as every attempt sends them. */
  readonly fields: Readonly<Record<string, string>>;
  readonly state: NotificationState;
  /** The sandbox fault applied to it, if any. */
  readonly fault: string | null;
  readonly attemptCount: number;
  readonly roundAttempts: number;
  readonly nextAttemptAt: number;
  readonly leaseOwner: string | null;
  readonly leaseUntil: number | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly deliveredAt: number | null;
  /**
   * The W3C `traceparent` its order was created under, on a claimed row only (the worker's attempt
   * continues that trace); absent when the order has none.
   */
  readonly traceParent?: string;
}

export interface DeliveryAttemptRecord {
  readonly id: string;
  readonly notificationId: string;
  readonly number: number;
  readonly attemptedAt: number;
  readonly acknowledged: boolean;
  readonly httpStatus: number | null;
  readonly latencyMs: number;
  readonly errorClass: string | null;
  readonly bodyExcerpt: string;
  readonly detail: string | null;
  readonly worker: string;
}

const nullableNumber = (value: number | null): number | null => (value === null ? null : Number(value));

/** The record of a notification row (for the store's own modules). */
export function toNotification(row: Selectable<NotificationsTable>): NotificationRecord {
  return {
    id: row.id,
    platOrderNum: row.plat_order_num,
    merchantCode: row.merchant_code,
    orderNum: row.order_num,
    event: row.event as FinalStatus,
    url: row.url,
    fields: JSON.parse(row.fields) as Record<string, string>,
    state: row.state as NotificationState,
    fault: row.fault,
    attemptCount: Number(row.attempt_count),
    roundAttempts: Number(row.round_attempts),
    nextAttemptAt: Number(row.next_attempt_at),
    leaseOwner: row.lease_owner,
    leaseUntil: nullableNumber(row.lease_until),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    deliveredAt: nullableNumber(row.delivered_at),
  };
}

function toAttempt(row: Selectable<DeliveryAttemptsTable>): DeliveryAttemptRecord {
  return {
    id: row.id,
    notificationId: row.notification_id,
    number: Number(row.number),
    attemptedAt: Number(row.attempted_at),
    acknowledged: Number(row.acknowledged) === 1,
    httpStatus: nullableNumber(row.http_status),
    latencyMs: Number(row.latency_ms),
    errorClass: row.error_class,
    bodyExcerpt: row.body_excerpt,
    detail: row.detail,
    worker: row.worker,
  };
}

/** A row to queue: the record's own fields; counters, lease and times start fresh. */
export type NewNotification = Pick<
  NotificationRecord,
  'id' | 'platOrderNum' | 'merchantCode' | 'orderNum' | 'event' | 'url' | 'fields' | 'fault' | 'nextAttemptAt'
> & { readonly state: 'pending' | 'dropped' };

export async function insertNotification(db: Executor, notification: NewNotification, now: number): Promise<void> {
  await db
    .insertInto('notifications')
    .values({
      id: notification.id,
      plat_order_num: notification.platOrderNum,
      merchant_code: notification.merchantCode,
      order_num: notification.orderNum,
      event: notification.event,
      url: notification.url,
      fields: JSON.stringify(notification.fields),
      state: notification.state,
      fault: notification.fault,
      attempt_count: 0,
      round_attempts: 0,
      next_attempt_at: notification.nextAttemptAt,
      lease_owner: null,
      lease_until: null,
      created_at: now,
      updated_at: now,
      delivered_at: null,
    })
    .execute();
}

/**
 * Lease up to `limit` due notifications to `owner` until `leaseNow + leaseMs`. A row is due when it
 * is pending, its next attempt time has come on the gateway clock (`now`, which the sandbox moves),
 * and nobody holds a live lease on it. Leases are measured on real time (`leaseNow`), never on the
 * gateway clock: moving the sandbox clock must not free a lease an attempt in flight still holds.
 */
export async function claimDueNotifications(
  db: Executor,
  engine: Engine,
  claim: { owner: string; now: number; leaseNow: number; leaseMs: number; limit: number },
): Promise<NotificationRecord[]> {
  const { owner, leaseMs, limit } = claim;
  // Whole milliseconds: the columns are integers, and PostgreSQL refuses a fraction for bigint.
  const now = Math.floor(claim.now);
  const leaseNow = Math.floor(claim.leaseNow);
  let due = db
    .selectFrom('notifications')
    .select('id')
    .where('state', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', leaseNow)]))
    .orderBy('next_attempt_at')
    .limit(limit);
  if (engine === 'postgres') due = due.forUpdate().skipLocked();
  // On SQLite the ids are read first and the UPDATE finds its rows by primary key: given the
  // subquery, SQLite's planner walks every pending row through the state index instead, so a claim
  // cost grew with the backlog (0.6 ms per notification with 4,000 pending; bench/).
  const ids = engine === 'postgres' ? due : (await due.execute()).map((row) => row.id);
  if (Array.isArray(ids) && ids.length === 0) return [];
  const rows = await db
    .updateTable('notifications')
    .set({ lease_owner: owner, lease_until: leaseNow + Math.ceil(leaseMs), updated_at: now })
    .where('id', 'in', ids)
    // Re-checked on the row itself: another process may have claimed it since it was read.
    .where('state', '=', 'pending')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', leaseNow)]))
    .returningAll()
    // The order's trace, read with the claim by primary key: no round trip of its own per attempt.
    .returning((eb) => eb.selectFrom('orders').select('orders.trace_parent').whereRef('orders.plat_order_num', '=', 'notifications.plat_order_num').as('order_trace_parent'))
    .execute();
  return rows.map(({ order_trace_parent: traceParent, ...row }) => {
    const record = toNotification(row);
    return traceParent ? { ...record, traceParent } : record;
  });
}

/**
 * End `owner`'s leases on these rows, claimed but never attempted (a worker's reserve), so any
 * worker may claim them now. Rows no longer `owner`'s, or no longer pending, are left alone.
 */
export async function releaseLeases(db: Executor, owner: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('notifications')
    .set({ lease_owner: null, lease_until: null })
    .where('id', 'in', [...ids])
    .where('lease_owner', '=', owner)
    .where('state', '=', 'pending')
    .execute();
}

/** Queue a notification again, now, with a fresh retry schedule (its attempts stay in the log); undefined for an unknown one or one of a redacted order. */
export async function resendNotification(db: Executor, notificationId: string, now: number): Promise<NotificationRecord | undefined> {
  const row = await db
    .updateTable('notifications')
    .set({ state: 'pending', next_attempt_at: now, round_attempts: 0, lease_owner: null, lease_until: null, updated_at: now })
    .where('id', '=', notificationId)
    // A redacted order's notification has lost its signature and its customer: never sent again.
    .where((eb) => eb.not(eb.exists(eb.selectFrom('orders').select('plat_order_num').whereRef('orders.plat_order_num', '=', 'notifications.plat_order_num').where('orders.redacted_at', 'is not', null))))
    .returningAll()
    .executeTakeFirst();
  return row ? toNotification(row) : undefined;
}

export async function findNotification(db: Executor, id: string): Promise<NotificationRecord | undefined> {
  const row = await db.selectFrom('notifications').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toNotification(row) : undefined;
}

export interface NotificationFilter {
  readonly merchantCode?: string;
  readonly orderNum?: string;
  readonly platOrderNum?: string;
  readonly limit?: number;
}

/** Notifications matching the filter, newest first. */
export async function listNotifications(db: Executor, filter: NotificationFilter = {}): Promise<NotificationRecord[]> {
  let query = db.selectFrom('notifications').selectAll();
  if (filter.merchantCode !== undefined) query = query.where('merchant_code', '=', filter.merchantCode);
  if (filter.orderNum !== undefined) query = query.where('order_num', '=', filter.orderNum);
  if (filter.platOrderNum !== undefined) query = query.where('plat_order_num', '=', filter.platOrderNum);
  const rows = await query.orderBy('created_at', 'desc').orderBy('id').limit(filter.limit ?? 50).execute();
  return rows.map(toNotification);
}

/** The attempts of the given notifications, oldest first. */
export async function listAttempts(db: Executor, notificationIds: readonly string[]): Promise<DeliveryAttemptRecord[]> {
  if (notificationIds.length === 0) return [];
  const rows = await db
    .selectFrom('delivery_attempts')
    .selectAll()
    .where('notification_id', 'in', [...notificationIds])
    .orderBy('notification_id')
    .orderBy('number')
    .execute();
  return rows.map(toAttempt);
}

/**
 * How long until the first pending notification can be claimed (its next attempt on the gateway
 * clock, `now`, or the end of a lease someone holds on it, on real time, `leaseNow`, whichever
 * comes later), if any is pending: lets a worker sleep exactly that long. Zero or less: now.
 */
export async function nextClaimDelayMs(db: Executor, clocks: { now: number; leaseNow: number }): Promise<number | undefined> {
  const now = Math.floor(clocks.now);
  const leaseNow = Math.floor(clocks.leaseNow);
  const row = await db
    .selectFrom('notifications')
    .select((eb) => {
      const untilDue = eb('next_attempt_at', '-', now);
      const untilLeaseEnds = eb('lease_until', '-', leaseNow);
      return eb.fn
        .min(
          eb
            .case()
            .when(eb.and([eb('lease_until', 'is not', null), eb(untilLeaseEnds, '>', untilDue)]))
            .then(untilLeaseEnds)
            .else(untilDue)
            .end(),
        )
        .as('delay');
    })
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return row?.delay === null || row?.delay === undefined ? undefined : Number(row.delay);
}

/**
 * How many notifications wait to be delivered (pending: neither delivered, dead nor dropped), and
 * when the oldest of them was queued (null when none): what the queue gauges report.
 */
export async function undeliveredQueue(db: Executor): Promise<{ depth: number; oldestCreatedAt: number | null }> {
  const row = await db
    .selectFrom('notifications')
    .select((eb) => [eb.fn.countAll().as('depth'), eb.fn.min('created_at').as('oldest')])
    .where('state', '=', 'pending')
    .executeTakeFirst();
  const oldest = row?.oldest;
  return { depth: Number(row?.depth ?? 0), oldestCreatedAt: oldest === null || oldest === undefined ? null : Number(oldest) };
}
