/**
 * The record of one delivery attempt, and how low-level failures map to a small set of error
 * classes that a merchant can act on (and the sandbox log can show).
 */

/** Every `errorClass` an attempt can carry. */
export const DELIVERY_ERROR_CLASSES = [
  /** The URL does not parse, is not http(s), or carries a user name or password. */
  'invalid-url',
  /** The host name did not resolve (NXDOMAIN, no addresses, resolver failure). */
  'dns',
  /** The host is, or resolves to, an address production delivery refuses; nothing was sent. */
  'refused-address',
  /** The TCP connection failed or was reset before a response (refused, unreachable, reset). */
  'connect',
  /** The TLS handshake failed (untrusted or expired certificate, wrong host name, protocol). */
  'tls',
  /** The whole attempt (DNS, connect, headers and body) took longer than `timeoutMs`. */
  'timeout',
  /** The connection closed after the response started but before its body ended. */
  'aborted',
  /** The response was not valid HTTP (garbage, oversized headers). */
  'protocol',
  /** HTTP 3xx: redirects are never followed. */
  'redirect',
  /** An HTTP status other than 200 (and not 3xx). */
  'http-status',
  /** HTTP 200 whose body, trimmed, is not exactly `SUCCESS` or `"SUCCESS"` (or is longer than the read limit). */
  'unexpected-body',
  /** A bug in the gateway; the attempt counts as failed and is retried like any other. */
  'internal',
] as const;

export type DeliveryErrorClass = (typeof DELIVERY_ERROR_CLASSES)[number];

export interface AttemptResult {
  /** True only for HTTP 200 with body `SUCCESS` or `"SUCCESS"` (surrounding whitespace ignored). */
  acknowledged: boolean;
  /** The response status, or null when no response arrived. */
  httpStatus: number | null;
  /** From the start of the attempt (DNS included) to its outcome, whole milliseconds. */
  latencyMs: number;
  /** One of DELIVERY_ERROR_CLASSES, or null when acknowledged. */
  errorClass: string | null;
  /** At most EXCERPT_MAX_CHARS of the response body, control characters removed; '' without a response. */
  bodyExcerpt: string;
  /**
   * Why the attempt failed, in a few words for the delivery log (e.g. which address was refused,
   * the system error code). Never contains the request body. Absent when acknowledged, except for
   * the note on an answer accepted beyond the strict reading (`JSON_QUOTED_ACK_NOTE`).
   */
  detail?: string;
}

/** The most body bytes an attempt reads; a larger body is never an acknowledgement. */
export const MAX_BODY_BYTES = 4096;
/** The longest excerpt an attempt records. */
export const EXCERPT_MAX_CHARS = 200;

/**
 * Printable excerpt of a body: UTF-8 decoded leniently, line breaks and tabs turned into spaces,
 * other control and format characters (including bidi overrides) removed, at most
 * EXCERPT_MAX_CHARS code points. Safe to log; still HTML-escape it when rendering.
 */
export function excerptOf(body: Buffer | string): string {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const cleaned = text
    .replace(/[\t\n\v\f\r\u0085\u2028\u2029]+/g, ' ')
    .replace(/[\p{Cc}\p{Cf}\p{Cs}\p{Co}\uFFFD]/gu, '')
    .trim();
  return Array.from(cleaned).slice(0, EXCERPT_MAX_CHARS).join('');
}

/** Map a Node network/TLS/parser error to an error class. Errors of our own carry their class. */
export function classifyError(error: unknown): DeliveryErrorClass {
  const code = typeof error === 'object' && error !== null ? String((error as { code?: unknown }).code ?? '') : '';
  if (code === 'ETIMEDOUT') return 'timeout';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'ENODATA') return 'dns';
  if (code.startsWith('HPE_') || code === 'ERR_HTTP_INVALID_HEADER_VALUE') return 'protocol';
  if (
    code.startsWith('ERR_TLS') ||
    code.startsWith('ERR_SSL') ||
    code === 'EPROTO' ||
    /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(code)
  ) {
    return 'tls';
  }
  if (
    ['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'EPIPE', 'EADDRNOTAVAIL', 'ECONNABORTED'].includes(code)
  ) {
    return 'connect';
  }
  if (error instanceof Error && /socket hang up/i.test(error.message)) return 'connect';
  if (error instanceof AggregateError) {
    // Happy eyeballs (several addresses tried) reports one error per address.
    const inner = error.errors.map(classifyError);
    return inner.find((c) => c !== 'connect' && c !== 'internal') ?? (inner.length > 0 ? 'connect' : 'internal');
  }
  return code === '' ? 'internal' : 'connect';
}
