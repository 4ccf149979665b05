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

export interface PollOptions {
  /** One status request. */
  get: () => Promise<Order>;
  /** Whether to ask again after this answer (n answers so far); called only for `pending`. */
  more: (n: number) => boolean;
  base: number;
  cap: number;
  signal: AbortSignal;
}

/**
 * Asks for the order until it is no longer pending or `more` says stop, then returns the last
 * answer. Retryable errors (network, 5xx) are retried on the same schedule while `more` allows;
 * the last one is thrown when it does not.
 */
export async function pollOrder({ get, more, base, cap, signal }: PollOptions): Promise<Order> {
  for (let n = 0; ; n++) {
    let order: Order | undefined;
    try {
      order = await get();
    } catch (err) {
      if (!(err as PayError)?.retryable || !more(n + 1)) throw err;
    }
    if (order && (order.status !== 'pending' || !more(n + 1))) return order;
    await new Promise((resolve) => setTimeout(resolve, backoff(n, base, cap)));
    // An aborted attempt stops here, at the latest one delay after its end.
    signal.throwIfAborted();
  }
}
