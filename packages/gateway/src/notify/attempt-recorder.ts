/**
 * Writing delivery attempts with group commit: an attempt is queued the moment it ends and
 * written at once if the database is idle; attempts that end while a write is running go together
 * into the next transaction. Each attempt is still recorded as soon as the store can take it (the
 * at-least-once window is unchanged), but a busy worker pays one commit per group instead of one
 * per notification (a commit is most of a record's cost on SQLite, and an fsync on PostgreSQL), and
 * three statements per group, not three per attempt.
 *
 * If a group's transaction fails, every attempt in it is reported failed: their leases run out and
 * they are delivered again, exactly as when a single record fails.
 */
import type { Database } from '../store/database.ts';
import { recordAttempts, type AttemptOutcome } from '../store/attempts.ts';
import type { NotificationRecord } from '../store/outbox.ts';
import { inTransactionSpan } from '../observability/tracing.ts';

export interface AttemptRecorder {
  /** Resolves once the attempt is committed, with the notification as it now stands. */
  record(notificationId: string, outcome: AttemptOutcome): Promise<NotificationRecord | undefined>;
}

interface Pending {
  readonly notificationId: string;
  readonly outcome: AttemptOutcome;
  resolve(record: NotificationRecord | undefined): void;
  reject(error: unknown): void;
}

export function createAttemptRecorder(database: Database): AttemptRecorder {
  let queue: Pending[] = [];
  let writing = false;

  async function writeGroups(): Promise<void> {
    writing = true;
    while (queue.length > 0) {
      const group = queue;
      queue = [];
      try {
        // A constant number of statements per group, whatever its size (store/attempts.ts).
        const records = await inTransactionSpan('notification.attempts', database.engine, () =>
          database.db.transaction().execute((trx) => recordAttempts(trx, database.engine, group)),
        );
        group.forEach((item, index) => item.resolve(records[index]));
      } catch (error) {
        for (const item of group) item.reject(error);
      }
    }
    writing = false;
  }

  return {
    record(notificationId, outcome) {
      return new Promise((resolve, reject) => {
        queue.push({ notificationId, outcome, resolve, reject });
        if (!writing) void writeGroups();
      });
    },
  };
}
