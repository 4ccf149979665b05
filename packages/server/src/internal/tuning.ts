/**
 * Timings a merchant never needs to change (as stripe-node keeps its retry delays), kept here as
 * constants. Tests that must not wait seconds shorten them through `withTuning()`, a seam that
 * lives beside the options instead of among them: it is not exported from the package.
 */

export interface Tuning {
  /** Full-jitter backoff between create retries: first ceiling and cap (ms). */
  readonly retryBaseDelayMs: number;
  readonly retryMaxDelayMs: number;
  /** How long a request's body may take to arrive before it is answered 408 and its connection closed (ms). */
  readonly bodyReadTimeoutMs: number;
}

export const DEFAULT_TUNING: Tuning = { retryBaseDelayMs: 250, retryMaxDelayMs: 4_000, bodyReadTimeoutMs: 10_000 };

const tunings = new WeakMap<object, Partial<Tuning>>();

/** Attach shorter timings to an options object (tests only); returns the same object. */
export function withTuning<T extends object>(options: T, tuning: Partial<Tuning>): T {
  tunings.set(options, tuning);
  return options;
}

/** The timings for these options: the constants, unless a test attached others. */
export function tuningOf(options: unknown): Tuning {
  const attached = typeof options === 'object' && options !== null ? tunings.get(options) : undefined;
  return { ...DEFAULT_TUNING, ...attached };
}
