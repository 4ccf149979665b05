/**
 * The worker's claims, in batches: when slots free up and no claimed row is waiting, one claim
 * leases rows for the free slots plus a reserve of up to `concurrency` more, so the next slots to
 * free start at once instead of each paying a claim of its own (a statement pair and a commit on
 * SQLite, round trips on PostgreSQL; bench/ "drain").
 *
 * A reserved row is leased like one in flight, so no other worker delivers it meanwhile. It waits
 * at most until a slot frees, i.e. about one attempt; before it starts, its lease must still cover
 * a whole attempt plus the margin (`lease.ts`), else it is released for any worker to claim. The
 * reserve is kept only when the lease is long enough for that wait (the default 60 s lease and
 * 10 s timeout are), and is released when the worker stops.
 */
import type { Clock } from '../domain/clock.ts';
import type { Database } from '../store/database.ts';
import { claimDueNotifications, releaseLeases, type NotificationRecord } from '../store/outbox.ts';
import { DEFAULT_DELIVERY_TIMEOUT_MS } from './delivery/index.ts';
import { minimumLeaseMs } from './lease.ts';

export interface Claims {
  /** Up to `free` rows to start now: reserved ones first, else a fresh batch claim. */
  take(free: number): Promise<NotificationRecord[]>;
  /** Give the reserved rows back (their leases end now). */
  releaseReserve(): Promise<void>;
}

export function createClaims(options: {
  readonly database: Database;
  readonly clock: Clock;
  readonly owner: string;
  readonly leaseMs: number;
  readonly timeoutMs: number | undefined;
  readonly concurrency: number;
}): Claims {
  const { database, clock, owner, leaseMs, concurrency } = options;
  const minimum = minimumLeaseMs(options.timeoutMs);
  // A reserved row may wait for about one attempt before its own attempt starts.
  const reserveSize = leaseMs >= minimum + (options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS) ? concurrency : 0;
  const reserve: NotificationRecord[] = [];

  async function release(rows: readonly NotificationRecord[]): Promise<void> {
    if (rows.length > 0) await releaseLeases(database.db, owner, rows.map((row) => row.id));
  }

  return {
    async take(free) {
      const started: NotificationRecord[] = [];
      const expiring: NotificationRecord[] = [];
      while (started.length < free && reserve.length > 0) {
        const row = reserve.shift()!;
        if ((row.leaseUntil ?? 0) - Date.now() >= minimum) started.push(row);
        else expiring.push(row);
      }
      await release(expiring);
      if (started.length < free) {
        const claimed = await claimDueNotifications(database.db, database.engine, {
          owner,
          now: clock.now(),
          leaseNow: Date.now(),
          leaseMs,
          limit: free - started.length + reserveSize,
        });
        started.push(...claimed.splice(0, free - started.length));
        reserve.push(...claimed);
      }
      return started;
    },
    async releaseReserve() {
      await release(reserve.splice(0));
    },
  };
}
