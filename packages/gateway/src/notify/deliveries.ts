/**
 * The delivery log as the gateway's API and the sandbox show it: notifications with their
 * attempts, as views. The outbox's bookkeeping (leases, the worker that made an attempt, the round
 * count, row times) stays in the store: what a caller reads cannot change with how it is kept.
 */
import type { Clock } from '../domain/clock.ts';
import type { Database } from '../store/database.ts';
import {
  findNotification,
  listAttempts,
  listNotifications,
  resendNotification,
  type DeliveryAttemptRecord,
  type NotificationFilter,
  type NotificationRecord,
} from '../store/outbox.ts';

/** One attempt to deliver a notification, as a caller sees it. */
export interface DeliveryAttempt {
  /** 1 for the first attempt. */
  readonly number: number;
  /** Epoch milliseconds. */
  readonly attemptedAt: number;
  /** The merchant answered HTTP 200 `SUCCESS`. */
  readonly acknowledged: boolean;
  /** null when no HTTP answer came (refused address, timeout, connection error). */
  readonly httpStatus: number | null;
  readonly latencyMs: number;
  /** Why it failed, as a class (`timeout`, `refused-address`, ...); null when answered. */
  readonly errorClass: string | null;
  /** The start of the merchant's answer. */
  readonly bodyExcerpt: string;
  readonly detail: string | null;
}

/** A notification and its attempts, as a caller sees it (never the outbox row). */
export interface Delivery extends Omit<NotificationRecord, OutboxBookkeeping | 'nextAttemptAt'> {
  /** When the next attempt is due (epoch ms); null once it is no longer pending. */
  readonly nextAttemptAt: number | null;
  readonly attempts: readonly DeliveryAttempt[];
}

/** The outbox's own bookkeeping of a row, which a caller never sees. */
type OutboxBookkeeping = 'roundAttempts' | 'leaseOwner' | 'leaseUntil' | 'updatedAt';

function attemptView(attempt: DeliveryAttemptRecord): DeliveryAttempt {
  const { number, attemptedAt, acknowledged, httpStatus, latencyMs, errorClass, bodyExcerpt, detail } = attempt;
  return { number, attemptedAt, acknowledged, httpStatus, latencyMs, errorClass, bodyExcerpt, detail };
}

/** The view of a notification row and its attempts. */
export function deliveryView(record: NotificationRecord, attempts: readonly DeliveryAttemptRecord[]): Delivery {
  const { roundAttempts: _rounds, leaseOwner: _owner, leaseUntil: _until, updatedAt: _updated, ...shown } = record;
  // nextAttemptAt keeps its place among the keys: the JSON reads in the same order as before.
  return { ...shown, nextAttemptAt: record.state === 'pending' ? record.nextAttemptAt : null, attempts: attempts.map(attemptView) };
}

export interface Deliveries {
  /** Newest first; filter by the merchant's orderNum (and merchantCode), or platOrderNum. */
  list(filter?: NotificationFilter): Promise<Delivery[]>;
  get(id: string): Promise<Delivery | undefined>;
  /** Queue it again now with a fresh schedule; undefined when no such notification exists. */
  resend(id: string): Promise<Delivery | undefined>;
}

export function createDeliveries(database: Database, clock: Clock, afterResend: () => void): Deliveries {
  async function withAttempts(records: NotificationRecord[]): Promise<Delivery[]> {
    const attempts = await listAttempts(database.db, records.map((record) => record.id));
    return records.map((record) => deliveryView(record, attempts.filter((attempt) => attempt.notificationId === record.id)));
  }
  return {
    async list(filter = {}) {
      return withAttempts(await listNotifications(database.db, filter));
    },
    async get(id) {
      const record = await findNotification(database.db, id);
      return record ? (await withAttempts([record]))[0] : undefined;
    },
    async resend(id) {
      const record = await resendNotification(database.db, id, clock.now());
      if (!record) return undefined;
      afterResend();
      return (await withAttempts([record]))[0];
    },
  };
}
