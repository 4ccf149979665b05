/**
 * Pure decisions of the create loop, table-tested: what one try's outcome means, whether another
 * try may help, whether the gateway must be asked (`/gateway/query`) before it, and how long to
 * wait (exponential backoff, full jitter, `Retry-After` honoured, never past the deadline).
 *
 * The family's API has no idempotency header, so a second create is only safe when the first
 * certainly did not register the order: after a timeout, a dropped connection, a 5xx, `UNKNOWN`
 * or `ERROR`, the loop queries first and only re-sends when the gateway says `NOTEXIST`.
 */

/** What one create try produced, before any interpretation. */
export type AttemptOutcome =
  | { readonly kind: 'success' }
  | { readonly kind: 'result'; readonly code: 'FAIL' | 'NOTEXIST' | 'UNKNOWN' | 'ERROR'; /** The gateway's signed `platRespMessage`. */ readonly message?: string }
  | { readonly kind: 'http'; readonly status: number; readonly retryAfterMs?: number | undefined }
  | { readonly kind: 'timeout'; readonly maybeReceived: boolean }
  | { readonly kind: 'network'; readonly maybeReceived: boolean }
  | { readonly kind: 'invalid_response'; readonly why?: InvalidResponseReason };

/**
 * Why an answer was not trusted: `unsigned` (no platSign, or a non-200 without one: not the
 * gateway, or something in between), `bad_signature` (a platSign the platform key(s) do not
 * verify), `malformed` (not JSON, not an object, not the protocol's shape), `mismatch` (about
 * another order, amount or method, or a payment page on an origin not allowed).
 */
export type InvalidResponseReason = 'unsigned' | 'bad_signature' | 'malformed' | 'mismatch';

export type Decision =
  /** The order exists at the gateway: done. */
  | { readonly action: 'done' }
  /** Definitive: the gateway did not and will not take this order. */
  | { readonly action: 'give_up' }
  /** Try again (after the wait), asking the gateway first when `queryFirst`. */
  | { readonly action: 'retry'; readonly queryFirst: boolean };

export function decideAfterCreate(outcome: AttemptOutcome): Decision {
  switch (outcome.kind) {
    case 'success':
      return { action: 'done' };
    case 'result':
      // FAIL: refused (validation, duplicate, range). NOTEXIST: unknown merchant. Both are final.
      if (outcome.code === 'FAIL' || outcome.code === 'NOTEXIST') return { action: 'give_up' };
      // UNKNOWN / ERROR: the gateway itself cannot say whether the order was registered.
      return { action: 'retry', queryFirst: true };
    case 'http':
      if (outcome.status === 429) return { action: 'retry', queryFirst: false };
      if (outcome.status >= 500) return { action: 'retry', queryFirst: true };
      // 4xx: the request itself is wrong; sending it again cannot help.
      return { action: 'give_up' };
    case 'timeout':
    case 'network':
      return { action: 'retry', queryFirst: outcome.maybeReceived };
    case 'invalid_response':
      // An answer we cannot trust: the order may exist. Never re-send blindly; let a query decide.
      return { action: 'retry', queryFirst: true };
  }
}

/** What a `/gateway/query` before a retry found (a `Confirmation` of `orders/confirm.ts`, reduced). */
export type QueryOutcome =
  | { readonly kind: 'found' }
  | { readonly kind: 'not_found' }
  /** The query itself failed (network, timeout, UNKNOWN, bad answer): still undetermined. */
  | { readonly kind: 'undetermined'; readonly retryAfterMs?: number | undefined }
  /** A verified answer that disagrees with the order we are creating (amount, another order). */
  | { readonly kind: 'mismatch' };

export type QueryDecision =
  | { readonly action: 'adopt' }
  | { readonly action: 'send_create' }
  | { readonly action: 'wait_and_query' }
  /**
   * Stop without a decision: the order stays `creating` (never adopted, never re-sent) for
   * `reconcile()` and a person, as the one mismatch policy says. Asking again cannot help: the
   * gateway would give the same signed answer.
   */
  | { readonly action: 'abandon' };

export function decideAfterQuery(outcome: QueryOutcome): QueryDecision {
  if (outcome.kind === 'found') return { action: 'adopt' };
  if (outcome.kind === 'not_found') return { action: 'send_create' };
  if (outcome.kind === 'mismatch') return { action: 'abandon' };
  return { action: 'wait_and_query' };
}

export interface BackoffPolicy {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

/**
 * Full jitter (AWS architecture blog, "Exponential Backoff And Jitter"): a uniform wait in
 * [0, min(max, base * 2^retry)), so clients that failed together do not retry together. A
 * `Retry-After` from the gateway is a floor. `retry` counts from 0 for the first retry.
 */
export function backoffDelay(retry: number, policy: BackoffPolicy, random: () => number, retryAfterMs?: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(retry, 30));
  const jittered = Math.floor(random() * ceiling);
  return Math.max(jittered, retryAfterMs ?? 0);
}

/** `Retry-After` in ms: delta-seconds or an HTTP date; `undefined` when absent or unreadable. */
export function parseRetryAfter(header: string | string[] | undefined, nowMs: number): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
