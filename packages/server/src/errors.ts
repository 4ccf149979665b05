/**
 * Typed errors. Every failure the plug-in reports, to the browser or to the merchant's code, is a
 * `PayButtonError` with a stable `code`, whether retrying can help (`retryable`), the gateway's
 * `platRespCode` when the gateway said something (`gatewayCode`) and the HTTP status the router
 * answers with (`httpStatus`). Messages say what happened and what to do; they never carry a key,
 * a signature or a value the merchant did not choose to show.
 */
import { describeIssues, type FieldIssue } from '@tombolbayar/protocol';

export const ERROR_CODES = {
  /** The options given to `payButton()` are wrong; thrown at start-up. */
  config_invalid: { httpStatus: 500, retryable: false },
  /** A browser request is malformed: bad JSON, a missing or wrong field, an unknown field. */
  invalid_request: { httpStatus: 400, retryable: false },
  /** The request body is not of the content type the route reads. */
  unsupported_media_type: { httpStatus: 415, retryable: false },
  /** The request body is larger than the route allows. */
  payload_too_large: { httpStatus: 413, retryable: false },
  /** A browser route was called from an origin that is not allowed. */
  origin_not_allowed: { httpStatus: 403, retryable: false },
  /** Too many requests from one client. */
  rate_limited: { httpStatus: 429, retryable: true },
  /** No such order, or a wrong status token (the two are indistinguishable on purpose). */
  not_found: { httpStatus: 404, retryable: false },
  /** The merchant's `quote()` refused the item (sold out, unknown, not for this customer). */
  not_for_sale: { httpStatus: 422, retryable: false },
  /** `quote()` returned something that is not an order (a bug in the merchant's code). */
  quote_invalid: { httpStatus: 500, retryable: false },
  /**
   * `quote()` threw an error carrying a 4xx `status`/`statusCode` (the `http-errors` convention):
   * the router answers with that status instead of 500.
   */
  quote_refused: { httpStatus: 400, retryable: false },
  /** `quote()` threw something other than a `NotForSaleError`. */
  quote_failed: { httpStatus: 500, retryable: false },
  /**
   * The purchase (`quote()`'s `reference`) is paid already, by an order of another kind (a number
   * for a link request, or a link for a number): the message, in the request's language, names it.
   */
  already_paid: { httpStatus: 409, retryable: false },
  /** The same idempotency key was sent with a different body. */
  idempotency_mismatch: { httpStatus: 422, retryable: false },
  /** The first request with this idempotency key is still running. */
  idempotency_in_progress: { httpStatus: 409, retryable: true },
  /** The signed request would carry a `sign` longer than the gateway's 512 characters. */
  signature_too_long: { httpStatus: 500, retryable: false },
  /** The gateway refused the order (`FAIL`): a rule of the gateway was broken. */
  gateway_refused: { httpStatus: 502, retryable: false },
  /** The gateway does not know the merchant (`NOTEXIST` on create): wrong merchantCode or environment. */
  gateway_merchant_unknown: { httpStatus: 502, retryable: false },
  /** The gateway could not say whether the order exists, after every retry (`UNKNOWN`/`ERROR`). */
  gateway_unknown_outcome: { httpStatus: 503, retryable: true },
  /** The gateway did not answer in time, after every retry. */
  gateway_timeout: { httpStatus: 504, retryable: true },
  /** The gateway could not be reached or answered 5xx/429, after every retry. */
  gateway_unavailable: { httpStatus: 503, retryable: true },
  /** The gateway's answer did not verify (platSign), did not parse, or did not match the request. */
  gateway_response_invalid: { httpStatus: 502, retryable: false },
  /** The payment `url` is not on an allowed payment-page origin. */
  gateway_url_untrusted: { httpStatus: 502, retryable: false },
  /** The order store could not be opened or migrated, or failed under the request (a lost connection). */
  store_unavailable: { httpStatus: 503, retryable: true },
  /** This process is working on `maxInFlight` requests already (or is short of CPU): try again in a moment. */
  overloaded: { httpStatus: 503, retryable: true },
  /** The request's body did not arrive within the deadline (10 s); the connection is closed. */
  request_timeout: { httpStatus: 408, retryable: true },
  /** Anything else; details go to events, never to the response. */
  internal: { httpStatus: 500, retryable: false },
} as const satisfies Record<string, { httpStatus: number; retryable: boolean }>;

export type PayButtonErrorCode = keyof typeof ERROR_CODES;

export interface PayButtonErrorOptions {
  readonly gatewayCode?: string | undefined;
  /** Overrides the code's default (e.g. a `FAIL` that may be retried after a query). */
  readonly retryable?: boolean;
  /** Overrides the code's HTTP status (`quote_refused` answers with the status `quote()` threw). */
  readonly httpStatus?: number;
  readonly issues?: readonly FieldIssue[];
  readonly cause?: unknown;
}

export class PayButtonError extends Error {
  override readonly name: string = 'PayButtonError';
  readonly code: PayButtonErrorCode;
  readonly retryable: boolean;
  /** `platRespCode` of the gateway's answer, when there was one. */
  readonly gatewayCode: string | undefined;
  /** The HTTP status the router answers with. */
  readonly httpStatus: number;
  /** For `invalid_request`: one entry per offending field. */
  readonly issues: readonly FieldIssue[] | undefined;

  constructor(code: PayButtonErrorCode, message: string, options: PayButtonErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.httpStatus = options.httpStatus ?? ERROR_CODES[code].httpStatus;
    this.retryable = options.retryable ?? ERROR_CODES[code].retryable;
    this.gatewayCode = options.gatewayCode;
    this.issues = options.issues;
  }

  /** The JSON body of an error response: no stack, no cause, nothing secret. */
  toJSON(): { error: { code: string; message: string; retryable: boolean; gatewayCode?: string; issues?: readonly FieldIssue[] } } {
    return {
      error: {
        code: this.code,
        message: this.message,
        retryable: this.retryable,
        ...(this.gatewayCode ? { gatewayCode: this.gatewayCode } : {}),
        ...(this.issues ? { issues: this.issues } : {}),
      },
    };
  }
}

/**
 * Thrown by the merchant's `quote()` when the item cannot be sold; the browser gets a 422 with
 * this message, so write it for the customer ("This ticket is sold out").
 */
export class NotForSaleError extends PayButtonError {
  override readonly name = 'NotForSaleError';
  constructor(message = 'This item is not for sale.') {
    super('not_for_sale', message);
  }
}

export function isPayButtonError(error: unknown): error is PayButtonError {
  return error instanceof PayButtonError;
}

/** An `invalid_request` error naming each field: "item: must be at most 128 characters". */
export function invalidRequest(issues: readonly FieldIssue[], prefix = 'Invalid request'): PayButtonError {
  const detail = describeIssues(issues);
  return new PayButtonError('invalid_request', `${prefix}: ${detail}`, { issues });
}
