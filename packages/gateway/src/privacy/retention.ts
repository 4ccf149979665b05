/**
 * The retention pass in a running gateway: after an expiry sweep once every `RETENTION_INTERVAL_MS`
 * (not every sweep: a pass claims its lease, a write, and data kept for days need not be looked at
 * every few seconds), by one process at a time
 * (a named lease in the store, on real time so moving the sandbox clock never frees it), against
 * the gateway clock (so the sandbox can move past the period). A WAL truncation a reader held
 * back is tried again at the next pass.
 */
import { nanoid } from 'nanoid';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.ts';
import type { Database } from '../store/database.ts';
import { claimLease, releaseLease } from '../store/leases.ts';
import { applyRetention } from './personal-data.ts';

/** The default retention period of a finished order's personal data. */
export const DEFAULT_RETENTION_DAYS = 90;

const LEASE = 'personal-data-retention';
const LEASE_MS = 5 * 60_000;
/** How often a process runs the pass after its sweeps (gateway clock). */
export const RETENTION_INTERVAL_MS = 10 * 60_000;

export interface Retention {
  /** One pass now, when this process holds the lease; returns how many orders it redacted. */
  run(): Promise<number>;
  /** `run()` when this process has not run one for `RETENTION_INTERVAL_MS` (after each sweep). */
  runWhenDue(): Promise<number>;
  /** Give the lease up (at close). */
  stop(): Promise<void>;
}

export function createRetention(options: { readonly database: Database; readonly clock: Clock; readonly logger: Logger; readonly retentionDays: number }): Retention {
  const owner = `retention-${process.pid}-${nanoid(8)}`;
  const { database } = options;
  let unflushed = false;
  let lastPassAt: number | undefined;
  const retention: Retention = {
    async runWhenDue() {
      // On the gateway clock, like the period itself: moving the sandbox clock makes a pass due.
      const now = options.clock.now();
      if (lastPassAt !== undefined && now - lastPassAt < RETENTION_INTERVAL_MS) return 0;
      lastPassAt = now;
      return retention.run();
    },
    async run() {
      if (!(await claimLease(database.db, LEASE, owner, Date.now(), Date.now() + LEASE_MS))) return 0;
      const redacted = await applyRetention(database, options.clock.now(), options.retentionDays);
      if (redacted > 0) options.logger.info({ redacted, retentionDays: options.retentionDays }, 'personal data of finished orders redacted (retention)');
      if (database.truncateWal && (redacted > 0 || unflushed)) unflushed = !(await database.truncateWal());
      return redacted;
    },
    stop: () => releaseLease(database.db, LEASE, owner).catch(() => {}),
  };
  return retention;
}
