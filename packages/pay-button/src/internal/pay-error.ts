/**
 * Failures as the elements report them, and when a request counts as one. Apart from `api.ts`
 * (the requests themselves), so that what the element needs before its first request (`refusal`,
 * `toPayError`, `SLOW_MS`) stays in the script-tag file while the requests go in the chunk it
 * loads for an attempt (see `attempt-io.ts`).
 */

/**
 * A failure, as `pay-error` reports it. `code` is the plug-in's error code when it sent one
 * (`not_for_sale`, `quote_refused`, `rate_limited`, `gateway_unavailable`, `invalid_request`, ...), else ours:
 * `network` (no answer, or none within `REQUEST_TIMEOUT_MS`), `bad_response` (an answer outside the
 * contract), `not_found` (404: unknown order or wrong status token), `http_<status>` (an error
 * without the contract's body), `invalid_config` (no `endpoint`).
 */
export interface PayError {
  code: string;
  retryable: boolean;
  message: string;
  /** HTTP status of the plug-in's answer, when there was one. */
  status?: number | undefined;
}

/**
 * How long one request may take before it counts as `network` (retryable). Well under the 15 s a
 * customer would wait on "Opening…" before giving up; the button says it is still connecting
 * after `SLOW_MS`.
 */
export const REQUEST_TIMEOUT_MS = 8000;
export const SLOW_MS = 3000;

/** A PayError (a plain object, so it is also the `pay-error` event's detail). */
export function payError(code: string, retryable: boolean, status?: number, message = code): PayError {
  return { code, retryable, message, status };
}

/**
 * The merchant's own words when its `quote()` refused the order and asking again cannot help:
 * `not_for_sale` (a `NotForSaleError`) or `quote_refused` (an http-errors-style 4xx it threw), not
 * retryable; or the plug-in's, in the element's language, when the purchase is paid already by an
 * order of the other element (`already_paid`). Undefined for anything else, which keeps the generic "try again" wording.
 */
export const refusal = (e: PayError): string | undefined => (!e.retryable && /^(not_for_sale|quote_refused|already_paid)$/.test(e.code) ? e.message : undefined);

/** Any thrown value as a PayError. */
export function toPayError(err: unknown): PayError {
  return typeof (err as PayError)?.retryable === 'boolean' ? (err as PayError) : payError('unexpected', false, undefined, String(err));
}
