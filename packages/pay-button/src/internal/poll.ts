/**
 * Status polling with exponential backoff. The decision of when to stop belongs to the caller
 * (`more`), so one loop serves the popup return (poll for a while), the closed popup (ask twice)
 * and `<pay-va>` (poll until the order ends).
 */
import type { Order, PayError } from './api.ts';

/**
 * Delay before poll number `n` (0-based): `base * 2^n`, capped, with "equal jitter" (between half
 * and all of it) so that many pages returning at once do not poll in lockstep.
 */
export function backoff(n: number, base: number, cap: number, random: number = Math.random()): number {
  return Math.min(cap, base * 2 ** n) * (1 + random) / 2;
}

/**
 * Asks for the order (`get`, one status request) until it is no longer pending or `more` (called
 * with the number of answers so far and the pending answer, or no answer after a retryable error)
 * says stop, then returns the last answer, waiting `backoff(n, base, cap)` between requests.
 * Retryable errors (network, 5xx) are retried on the same schedule while `more` allows; the last
 * one is thrown when it does not.
 */
export async function pollOrder(get: () => Promise<Order>, more: (n: number, answer?: Order) => boolean, base: number, cap: number, signal: AbortSignal): Promise<Order> {
  for (let n = 0; ; n++) {
    let order: Order | undefined;
    try {
      order = await get();
    } catch (err) {
      if (!(err as PayError)?.retryable || !more(n + 1)) throw err;
    }
    if (order && (order.status !== 'pending' || !more(n + 1, order))) return order;
    await new Promise((resolve) => setTimeout(resolve, backoff(n, base, cap)));
    // An aborted attempt stops here, at the latest one delay after its end.
    signal.throwIfAborted();
  }
}
