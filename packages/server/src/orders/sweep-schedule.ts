/**
 * The sweep's schedule and its pure decisions (table-tested): when a pending order is due for a
 * check. Apart from `sweep.ts` so that the options can name the schedule without importing the
 * sweep itself (and through it the lifecycle).
 */
import type { Order } from '../store/orders.ts';

export interface SweepSchedule {
  /** How often a round runs. Default 15 000 ms. */
  readonly intervalMs: number;
  /** An order is first asked about once this old (and never more often). Default 15 000 ms. */
  readonly firstCheckAfterMs: number;
  /** The longest wait between two checks of one order. Default 90 000 ms. */
  readonly maxCheckIntervalMs: number;
  /** Orders asked about per round at most. Default 50. */
  readonly limit: number;
}

export const DEFAULT_SWEEP: SweepSchedule = { intervalMs: 15_000, firstCheckAfterMs: 15_000, maxCheckIntervalMs: 90_000, limit: 50 };

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
