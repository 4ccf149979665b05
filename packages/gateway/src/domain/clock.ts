/**
 * The gateway's clock: the injected time source plus an offset the sandbox can advance, so expiry
 * and retry schedules can be exercised without waiting. Every timestamp the gateway writes (order
 * times, expiry, notification schedule, leases) comes from here.
 */
export interface Clock {
  /** Epoch milliseconds, including the sandbox offset. */
  now(): number;
  /** Move time forward (never back); returns the new now. */
  advance(ms: number): number;
  /** Total advance so far, in milliseconds. */
  readonly offsetMs: number;
}

export function createClock(source: () => number = Date.now): Clock {
  let offset = 0;
  return {
    now: () => source() + offset,
    advance(ms: number) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError('the clock only moves forward, by a finite amount');
      offset += ms;
      return source() + offset;
    },
    get offsetMs() {
      return offset;
    },
  };
}
