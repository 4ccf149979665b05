/**
 * The notification worker: claims due outbox rows under a lease, delivers each once, records the
 * attempt, and reschedules (retry schedule of `delivery/`), marks delivered, or marks dead.
 * Several workers (processes) may run on one database: the lease keeps each notification to one
 * deliverer at a time. At-least-once: a worker killed mid-attempt leaves a lease that expires, and
 * the notification is delivered again.
 */
import type { LookupFunction } from 'node:net';
import { nanoid } from 'nanoid';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.ts';
import type { Database } from '../store/database.ts';
import { claimDueNotifications, nextClaimableTime, recordAttempt, type NotificationRecord } from '../store/outbox.ts';
import { deliverNotification, nextRetryDelayMs, type AttemptResult, type DeliveryOptions } from './delivery/index.ts';

export interface WorkerOptions {
  readonly database: Database;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Multiplies every retry delay (the CLI's --time-scale). */
  readonly timeScale: number;
  /** True in the sandbox: loopback and private receivers are allowed. */
  readonly allowPrivateNetworks: boolean;
  /** Per attempt; default 10 s. */
  readonly timeoutMs?: number;
  /** How long a claim protects a row; must exceed the attempt timeout. Default 60 s. */
  readonly leaseMs?: number;
  /** How often to look for due rows when nothing wakes the worker. Default 1 s. */
  readonly pollIntervalMs?: number;
  /** Rows claimed (and delivered concurrently) per round. Default 10. */
  readonly batchSize?: number;
  readonly lookup?: LookupFunction;
  /** The HTTP attempt; the delivery module's by default (tests never replace it). */
  readonly deliver?: (url: string, fields: Record<string, string>, options: DeliveryOptions) => Promise<AttemptResult>;
}

/** Never spin: even a row due "now" waits this long after a round. */
const MIN_SLEEP_MS = 5;

export interface NotificationWorker {
  /** This worker's identity in leases and the attempt log. */
  readonly id: string;
  /** Look for due rows now (after a transaction queued one). */
  nudge(): void;
  /** One claim-and-deliver round; returns how many rows it handled. */
  runOnce(): Promise<number>;
  /** Stop polling and wait for the deliveries in flight. */
  stop(): Promise<void>;
}

export function startNotificationWorker(options: WorkerOptions): NotificationWorker {
  const id = `worker-${process.pid}-${nanoid(8)}`;
  const leaseMs = options.leaseMs ?? 60_000;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const batchSize = options.batchSize ?? 10;
  const deliver = options.deliver ?? deliverNotification;
  const { database, clock, logger } = options;

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;

  async function deliverOne(notification: NotificationRecord): Promise<void> {
    const result = await deliver(notification.url, { ...notification.fields }, {
      allowPrivateNetworks: options.allowPrivateNetworks,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.lookup ? { lookup: options.lookup } : {}),
    });
    const at = clock.now();
    const updated = await database.db.transaction().execute((trx) =>
      recordAttempt(trx, notification.id, {
        attemptId: nanoid(),
        owner: id,
        at,
        acknowledged: result.acknowledged,
        httpStatus: result.httpStatus,
        latencyMs: result.latencyMs,
        errorClass: result.errorClass,
        bodyExcerpt: result.bodyExcerpt,
        detail: result.detail ?? null,
        nextAttemptAt: (roundAttempts) => {
          const delay = nextRetryDelayMs(roundAttempts, { timeScale: options.timeScale });
          return delay === null ? null : at + delay;
        },
      }),
    );
    const entry = {
      notificationId: notification.id,
      platOrderNum: notification.platOrderNum,
      orderNum: notification.orderNum,
      event: notification.event,
      httpStatus: result.httpStatus,
      errorClass: result.errorClass,
      latencyMs: result.latencyMs,
      state: updated?.state,
    };
    if (result.acknowledged) logger.info(entry, 'notification delivered');
    else if (updated?.state === 'dead') logger.error(entry, 'notification dead: every attempt failed');
    else logger.warn(entry, 'notification attempt failed');
  }

  async function runOnce(): Promise<number> {
    const claimed = await claimDueNotifications(database.db, database.engine, { owner: id, now: clock.now(), leaseMs, limit: batchSize });
    await Promise.all(
      claimed.map((notification) =>
        deliverOne(notification).catch((error: unknown) => {
          // The lease expires and another round retries it; nothing is lost.
          logger.error({ err: error, notificationId: notification.id }, 'recording a delivery attempt failed');
        }),
      ),
    );
    return claimed.length;
  }

  /** Sleep until the next row can be claimed, at most one poll interval (other processes add rows too). */
  async function nextWakeMs(): Promise<number> {
    const next = await nextClaimableTime(database.db).catch(() => undefined);
    if (next === undefined) return pollIntervalMs;
    return Math.min(pollIntervalMs, Math.max(MIN_SLEEP_MS, next - clock.now()));
  }

  function schedule(ms: number): void {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(tick, ms);
    timer.unref();
  }

  function tick(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      try {
        do {
          again = false;
          const handled = await runOnce();
          if (handled === batchSize) again = true;
        } while (again && !stopped);
      } catch (error) {
        logger.error({ err: error }, 'notification worker round failed');
      }
      const wake = stopped ? pollIntervalMs : await nextWakeMs();
      running = undefined;
      schedule(again ? 0 : wake);
    })();
  }

  schedule(0);
  return {
    id,
    nudge: () => {
      if (!stopped) schedule(0);
    },
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
