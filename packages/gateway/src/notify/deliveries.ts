/** The delivery log as the gateway's API and the sandbox show it: notifications with their attempts. */
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

export interface Delivery extends NotificationRecord {
  readonly attempts: readonly DeliveryAttemptRecord[];
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
    return records.map((record) => ({ ...record, attempts: attempts.filter((attempt) => attempt.notificationId === record.id) }));
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
