/**
 * The sweep's schedule and its pure decisions (table-tested): when a pending order is due for a
 * check, how many questions a round may send, and which due orders it asks about. Apart from
 * `sweep.ts` so that the options can name the schedule without importing the sweep itself (and
 * through it the lifecycle).
 */
import type { Order } from '../store/orders.ts';

export interface SweepSchedule {
  /** How often a round runs. Default 15 000 ms. */
  readonly intervalMs: number;
  /** An order is first asked about once this old (and never more often). Default 15 000 ms. */
  readonly firstCheckAfterMs: number;
  /** The longest wait between two checks of one order. Default 90 000 ms. */
  readonly maxCheckIntervalMs: number;
  /**
   * The gateway query budget: questions per second this process may send to the gateway, the
   * sweep's own and the status polls' it answered since the last round together. Default 25.
   */
  readonly queriesPerSecond: number;
}

export const DEFAULT_SWEEP: SweepSchedule = { intervalMs: 15_000, firstCheckAfterMs: 15_000, maxCheckIntervalMs: 90_000, queriesPerSecond: 25 };

/** Questions the sweep sends at once within a round (a round of hundreds takes seconds, not minutes). */
export const SWEEP_CONCURRENCY = 4;

/** The wait between two checks of an order of age `ageMs` (pure): a quarter of its age, within bounds. */
export function checkIntervalMs(ageMs: number, schedule: SweepSchedule): number {
  return Math.min(schedule.maxCheckIntervalMs, Math.max(schedule.firstCheckAfterMs, Math.floor(ageMs / 4)));
}

/** Whether `order` is due for a check at `now` (pure). */
export function sweepDue(order: Pick<Order, 'createdAt' | 'checkedAt'>, now: Date, schedule: SweepSchedule): boolean {
  const age = now.getTime() - order.createdAt.getTime();
  if (age < schedule.firstCheckAfterMs) return false;
  if (order.checkedAt === null) return true;
  return now.getTime() - order.checkedAt.getTime() >= checkIntervalMs(age, schedule);
}

/**
 * Whether a paid order whose `onPaid` has not completed (its run was killed, lost its lease, or
 * threw) and whose lease is free is due for another run (pure): at once the first time the sweep
 * meets it, then on the same backoff by its age since payment as a pending order's checks.
 */
export function rerunDue(order: Pick<Order, 'createdAt' | 'checkedAt' | 'paidAt'>, now: Date, schedule: SweepSchedule): boolean {
  if (order.checkedAt === null) return true;
  const age = now.getTime() - (order.paidAt ?? order.createdAt).getTime();
  return now.getTime() - order.checkedAt.getTime() >= checkIntervalMs(age, schedule);
}

/**
 * The questions one round may send (pure): the budget of the time since the last round began
 * (one interval for the first; at most two, so a long pause is not spent in one burst), less the
 * questions this process sent meanwhile that were not the sweep's (status polls, returns).
 */
export function roundBudget(schedule: SweepSchedule, sinceLastRoundMs: number | undefined, othersSpent: number): number {
  const window = Math.min(2 * schedule.intervalMs, Math.max(0, sinceLastRoundMs ?? schedule.intervalMs));
  return Math.max(0, Math.floor((schedule.queriesPerSecond * window) / 1000) - othersSpent);
}

/**
 * The candidate rows one round reads (pure): every due order must be among them, so a few times
 * the budget, and never fewer than a backlog of a thousand (which the sweep must drain).
 */
export function scanLimit(schedule: SweepSchedule): number {
  return Math.max(1_000, 4 * Math.ceil((schedule.queriesPerSecond * 2 * schedule.intervalMs) / 1000));
}

/**
 * The orders a round asks about (pure): the due ones, oldest first (the nearest to expiry, and
 * the longest waiting when first asked about), as many as `budget` allows.
 */
export function pickBatch<T extends Pick<Order, 'createdAt' | 'checkedAt'>>(candidates: readonly T[], now: Date, schedule: SweepSchedule, budget: number): T[] {
  return candidates
    .filter((order) => sweepDue(order, now, schedule))
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
    .slice(0, Math.max(0, budget));
}
