/**
 * When to try a notification again. Pure: the worker stores `nextAttemptAt = now + delay`.
 *
 * The first attempt is immediate. After attempt n (n = 1..10) the next one waits
 * `RETRY_SCHEDULE_SECONDS[n - 1]`, shortened by a random 0-20 % ("jitter"), times the time scale.
 * After the 11th attempt the notification is dead. The schedule adds up to 85 875 s (23 h 51 m),
 * and because jitter only ever shortens a delay, that is a ceiling: a notification is dead no
 * later than about a day after its first attempt (plus the attempts' own durations), and at a
 * time scale of 0.001 within 86 s. Jitter spreads the retries of many notifications that failed
 * together (a merchant outage, a gateway restart) so they do not all hit the merchant at once.
 */

/** Delay before the 2nd, 3rd, ... 11th attempt, in seconds. Strictly increasing. */
export const RETRY_SCHEDULE_SECONDS: readonly number[] = Object.freeze([
  15, // 15 s
  60, // 1 min
  300, // 5 min
  900, // 15 min
  1_800, // 30 min
  3_600, // 1 h
  7_200, // 2 h
  14_400, // 4 h
  21_600, // 6 h
  36_000, // 10 h
]);

/** Attempts in all, the immediate one included. */
export const MAX_DELIVERY_ATTEMPTS = RETRY_SCHEDULE_SECONDS.length + 1;

/** The largest share of a scheduled delay that jitter may remove. */
export const RETRY_JITTER_FRACTION = 0.2;

export interface RetryDelayOptions {
  /** Multiplies every delay; 1 in production, e.g. 0.001 in tests. Must be finite and > 0. */
  readonly timeScale: number;
  /** Uniform in [0, 1), as `Math.random`; injectable so tests can pin the jitter. */
  readonly random?: () => number;
}

/**
 * Milliseconds to wait before the next attempt, given how many attempts were already made
 * (0 means none yet: deliver now, delay 0). Returns null when every attempt is used up: mark the
 * notification dead. Throws RangeError on a negative or fractional count or a bad time scale,
 * which are programming errors, not delivery outcomes.
 */
export function nextRetryDelayMs(attemptsSoFar: number, options: RetryDelayOptions): number | null {
  if (!Number.isInteger(attemptsSoFar) || attemptsSoFar < 0) {
    throw new RangeError(`attemptsSoFar must be a whole number >= 0, got ${attemptsSoFar}`);
  }
  const { timeScale } = options;
  if (!Number.isFinite(timeScale) || timeScale <= 0) {
    throw new RangeError(`timeScale must be a finite number > 0, got ${timeScale}`);
  }
  if (attemptsSoFar === 0) return 0;
  const seconds = RETRY_SCHEDULE_SECONDS[attemptsSoFar - 1];
  if (seconds === undefined) return null;
  const draw = (options.random ?? Math.random)();
  const unit = Number.isFinite(draw) ? Math.min(Math.max(draw, 0), 1) : 0;
  return Math.round(seconds * 1000 * timeScale * (1 - RETRY_JITTER_FRACTION * unit));
}
