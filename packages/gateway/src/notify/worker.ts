/**
 * The notification worker: claims due outbox rows under a lease, delivers each once, records the
 * attempt, and reschedules (retry schedule of `delivery/`), marks delivered, or marks dead.
 * Several workers (processes) may run on one database: the lease keeps each notification to one
 * deliverer at a time. At-least-once: a worker killed mid-attempt leaves a lease that expires, and
 * the notification is delivered again.
 *
 * Deliveries run in a pool of `concurrency` slots; each slot that frees takes the next due row
 * (claimed in batches, `claims.ts`), so one receiver that hangs until the timeout holds up one
 * slot, never the other merchants. Connections to merchants are kept alive (`delivery/`).
 * Leases are measured on real time (`Date.now`), the retry schedule on the gateway clock (which the
 * sandbox moves): moving the clock never frees the lease of an attempt in flight.
 */
import type { LookupFunction } from 'node:net';
import { nanoid } from 'nanoid';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.ts';
import type { Database } from '../store/database.ts';
import { nextClaimDelayMs, type NotificationRecord } from '../store/outbox.ts';
import { createAttemptRecorder } from './attempt-recorder.ts';
import { createClaims } from './claims.ts';
import { createDeliveryConnections, deliverNotification, nextRetryDelayMs, type AttemptResult, type DeliveryOptions } from './delivery/index.ts';
import { loggableUrl } from './delivery/loggable-url.ts';
import { leaseTooShort, resolveLeaseMs } from './lease.ts';
import { NO_METRICS, type GatewayMetrics } from '../observability/metrics.ts';
import { attemptOutcome, deliverTraced, lostLease } from './observed-attempt.ts';

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
  /**
   * How long a claim protects a row, on real time; at least the timeout plus a margin (`lease.ts`).
   * Default 60 s (longer when the timeout needs it).
   */
  readonly leaseMs?: number;
  /** How often to look for due rows when nothing wakes the worker. Default 1 s. */
  readonly pollIntervalMs?: number;
  /** Deliveries in flight at most (the pool's slots). Default 10. */
  readonly concurrency?: number;
  /**
   * The longest one round (claiming due rows, finding the next wake-up) may take, on real time.
   * A round still waiting on the database then is abandoned, logged, and the next one starts on a
   * fresh claim chain, so a silent connection never stops the worker. Default 30 000 ms.
   */
  readonly roundDeadlineMs?: number;
  readonly lookup?: LookupFunction;
  /** The HTTP attempt; the delivery module's by default (tests never replace it). */
  readonly deliver?: (url: string, fields: Record<string, string>, options: DeliveryOptions) => Promise<AttemptResult>;
  /** Attempts, retry lag, rounds, lease losses and notifications given up are counted here. */
  readonly metrics?: GatewayMetrics;
}

/** Never spin: even a row due "now" waits this long after a round. */
const MIN_SLEEP_MS = 5;

export const DEFAULT_ROUND_DEADLINE_MS = 30_000;

/** How the worker is doing, for `/readyz`. */
export interface WorkerHealth {
  /** Real time (`Date.now`) the last round finished, or the worker started. */
  readonly lastRoundAt: number;
  /** True when no round has finished within the round deadline plus a poll interval. */
  readonly stalled: boolean;
}

class RoundDeadlineError extends Error {
  override readonly name = 'RoundDeadlineError';
}

export interface NotificationWorker {
  /** This worker's identity in leases and the attempt log. */
  readonly id: string;
  /** Look for due rows now (after a transaction queued one). */
  nudge(): void;
  /** Claim due rows into the free slots now and wait for those deliveries; returns how many. */
  runOnce(): Promise<number>;
  /** Stop polling and wait for the deliveries in flight. */
  stop(): Promise<void>;
  health(): WorkerHealth;
}

export function startNotificationWorker(options: WorkerOptions): NotificationWorker {
  const id = `worker-${process.pid}-${nanoid(8)}`;
  const leaseMs = resolveLeaseMs(options.leaseMs, options.timeoutMs);
  const tooShort = leaseTooShort(leaseMs, options.timeoutMs);
  if (tooShort) throw new RangeError(`leaseMs: ${tooShort}`);
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const concurrency = options.concurrency ?? 10;
  const deliver = options.deliver ?? deliverNotification;
  const roundDeadlineMs = options.roundDeadlineMs ?? DEFAULT_ROUND_DEADLINE_MS;
  let lastRoundAt = Date.now();
  const { database, clock, logger } = options;
  const metrics = options.metrics ?? NO_METRICS;

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  // Attempts that end together are written in one transaction (group commit).
  const recorder = createAttemptRecorder(database);
  // Claims in batches, with a reserve for the next slots to free (claims.ts).
  const claimer = createClaims({ database, clock, owner: id, leaseMs, timeoutMs: options.timeoutMs, concurrency });
  // Keep-alive to merchants: each attempt still resolves and checks its destination (delivery/).
  const connections = createDeliveryConnections();

  async function deliverOne(notification: NotificationRecord): Promise<void> {
    metrics.retryLag((clock.now() - notification.nextAttemptAt) / 1000);
    // A CLIENT span `notify <kind>` in the order's trace; its headers go with the POST (observed-attempt.ts).
    const result = await deliverTraced(notification, (headers) =>
      deliver(notification.url, { ...notification.fields }, {
        allowPrivateNetworks: options.allowPrivateNetworks,
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.lookup ? { lookup: options.lookup } : {}),
        connections,
        headers,
      }),
    );
    metrics.attempt(attemptOutcome(result), result.latencyMs / 1000);
    const at = clock.now();
    const updated = await recorder.record(notification.id, {
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
    });
    const entry = {
      notificationId: notification.id,
      platOrderNum: notification.platOrderNum,
      orderNum: notification.orderNum,
      event: notification.event,
      // Where it went (query values and credentials left out): what a failed line most needs.
      url: loggableUrl(notification.url),
      httpStatus: result.httpStatus,
      errorClass: result.errorClass,
      latencyMs: result.latencyMs,
      state: updated?.state,
      ...(result.detail ? { detail: result.detail } : {}),
    };
    if (lostLease(updated, result.acknowledged, at)) metrics.leaseLost();
    else if (updated?.state === 'dead') metrics.givenUp();
    if (result.acknowledged) logger.info(entry, 'notification delivered');
    else if (updated?.state === 'dead') logger.error(entry, 'notification dead: every attempt failed');
    else logger.warn(entry, 'notification attempt failed');
  }

  /** Deliveries in flight, one per busy slot. */
  const inFlight = new Set<Promise<void>>();
  /** Claims run one at a time, so two of them never fill the same free slots. */
  let claims: Promise<unknown> = Promise.resolve();

  function serially<T>(task: () => Promise<T>): Promise<T> {
    const result = claims.then(task);
    claims = result.catch(() => undefined);
    return result;
  }

  function start(notification: NotificationRecord): Promise<void> {
    const delivery: Promise<void> = deliverOne(notification)
      .catch((error: unknown) => {
        // The lease expires and another claim retries it; nothing is lost.
        logger.error({ err: error, notificationId: notification.id }, 'recording a delivery attempt failed');
      })
      .finally(() => {
        inFlight.delete(delivery);
        wake(); // a slot is free: claim the next due row
      });
    inFlight.add(delivery);
    return delivery;
  }

  /** Start as many due rows as there are free slots (reserved ones first, else a batch claim). */
  function fillFreeSlots(): Promise<Promise<void>[]> {
    return serially(async () => {
      const free = concurrency - inFlight.size;
      if (free <= 0) return [];
      return (await claimer.take(free)).map(start);
    });
  }

  async function runOnce(): Promise<number> {
    const started = await fillFreeSlots();
    await Promise.all(started);
    return started.length;
  }

  /** Sleep until the next row can be claimed, at most one poll interval (other processes add rows too). */
  async function nextWakeMs(): Promise<number> {
    const delay = await nextClaimDelayMs(database.db, { now: clock.now(), leaseNow: Date.now() }).catch(() => undefined);
    if (delay === undefined) return pollIntervalMs;
    return Math.min(pollIntervalMs, Math.max(MIN_SLEEP_MS, delay));
  }

  function schedule(ms: number): void {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(tick, ms);
    timer.unref();
  }

  /** Something may be claimable now (a slot freed, a row was queued): look as soon as possible. */
  function wake(): void {
    if (stopped) return;
    again = true;
    schedule(0);
  }

  function tick(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    let failed = false;
    const work = (async () => {
      try {
        do {
          again = false;
          const free = concurrency - inFlight.size;
          if (free <= 0) break; // every slot busy: the next one to free wakes us
          const started = await fillFreeSlots();
          // Every free slot filled: more rows may be due.
          if (started.length === free) again = true;
        } while (again && !stopped);
      } catch (error) {
        failed = true;
        logger.error({ err: error }, 'notification worker round failed');
      }
      return stopped || inFlight.size >= concurrency ? pollIntervalMs : await nextWakeMs();
    })();
    const round = withinDeadline(work).then(({ wait, overran }) => {
      lastRoundAt = Date.now();
      metrics.workerRound(overran ? 'overran' : failed ? 'failed' : 'ok');
      return wait;
    });
    // Cleared after the assignment, never inside the round: with every slot busy the round has no
    // await and finishes before `running` is even set, which would leave it set (and the worker
    // asleep) for good.
    running = round.then((wait) => {
      running = undefined;
      schedule(again ? 0 : wait);
    });
  }

  /**
   * The round, or the poll interval once the deadline passed: a claim stuck on a silent connection
   * stays behind (its query times out on its own) and the next claims no longer queue behind it.
   */
  function withinDeadline(work: Promise<number>): Promise<{ wait: number; overran: boolean }> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new RoundDeadlineError(`a round took longer than ${roundDeadlineMs} ms`)), roundDeadlineMs);
      timer.unref();
    });
    return Promise.race([work, deadline])
      .then((wait) => ({ wait, overran: false }))
      .catch((error: unknown) => {
        logger.error({ err: error }, 'notification worker round passed its deadline; starting a fresh one');
        claims = Promise.resolve();
        again = false;
        return { wait: pollIntervalMs, overran: true };
      })
      .finally(() => clearTimeout(timer));
  }

  schedule(0);
  return {
    id,
    nudge: wake,
    runOnce,
    health: () => ({ lastRoundAt, stalled: !stopped && Date.now() - lastRoundAt > roundDeadlineMs + pollIntervalMs }),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      await claims;
      await serially(() => claimer.releaseReserve()).catch((error: unknown) => {
        // Their leases run out instead; nothing is lost.
        logger.warn({ err: error }, 'releasing the reserved notifications failed');
      });
      await Promise.all(inFlight);
      connections.close();
    },
  };
}
