/**
 * The browser half of the plug-in's HTTP contract (`POST {endpoint}/links`, `POST {endpoint}/va`,
 * `GET {endpoint}/orders/:orderNum` with the status token in the `Tombolbayar-Status-Token` header,
 * never in a URL, where proxies and access logs would keep it). Answers are checked by hand rather than with zod (the
 * zod entry would double the script-tag file): anything outside the contract becomes a
 * {@link PayError}, never an exception of another kind and never trusted data.
 */

import { FEE_PATTERN, RUPIAH_PATTERN } from '@tombolbayar/protocol/formats';
import { REQUEST_TIMEOUT_MS, payError, type PayError } from './pay-error.ts';

export { REQUEST_TIMEOUT_MS, SLOW_MS, payError, refusal, toPayError, type PayError } from './pay-error.ts';

export type OrderState = 'pending' | 'paid' | 'expired' | 'failed';

/** What `GET {endpoint}/orders/:orderNum` answers. */
export interface Order {
  orderNum: string;
  status: OrderState;
  /** Whole rupiah, as the plug-in sends it (`"150000"` or `150000`). */
  payMoney: string | number;
  /** The chosen method's fee, whole rupiah, once known: the customer pays `payMoney + payFee`. */
  payFee?: string | number;
  method: string | null;
  vaNumber?: string;
  paidAt?: string;
  /** Until when a pending order may be paid (ISO 8601), when the plug-in knows. */
  expiresAt?: string;
  /**
   * `false`: the plug-in could not check this pending answer with the gateway (see `outcome`);
   * `true`: it checked it now, so "no method" is the gateway's word.
   */
  confirmed?: boolean;
  /**
   * On an order not paid: the merchant's purchase (cart) was paid by this other order, so there is
   * nothing to pay here (and paying this one too would pay twice).
   */
  paidWith?: string;
  /** On a paid order: the purchase had been paid already by this other order (paid twice; the shop refunds one). */
  duplicateOf?: string;
}

/** What `POST {endpoint}/links` answers. */
export interface PaymentLink {
  orderNum: string;
  /** `paid`: the purchase (the merchant's `reference`) is paid already; older plug-ins send none. */
  status?: 'pending' | 'paid';
  url: string;
  expiresAt: string;
  statusToken: string;
}

/** What `POST {endpoint}/va` answers. */
export interface VaOrder {
  orderNum: string;
  /** `paid`: the purchase (the merchant's `reference`) is paid already; older plug-ins send none. */
  status?: 'pending' | 'paid';
  method: string;
  vaNumber: string;
  payMoney: string | number;
  payFee: string | number;
  expiresAt: string;
  statusToken: string;
}

export type Json = Record<string, unknown>;

const STATES: unknown[] = ['pending', 'paid', 'expired', 'failed'];

/** True when every named field is a non-empty string. */
export const strings = (body: Json, names: string) => names.split(' ').every((k) => typeof body[k] === 'string' && body[k]);

export const isLink = (b: Json): boolean =>
  strings(b, 'orderNum url expiresAt statusToken') && /^https?:\/\//i.test(b.url as string);
export const isOrder = (b: Json): boolean =>
  // An amount is the protocol's: whole rupiah, no leading zero, at most 12 digits (a number too: `test` reads it as text).
  strings(b, 'orderNum') && STATES.includes(b.status) && RUPIAH_PATTERN.test(b.payMoney as string) && (b.payFee == null || FEE_PATTERN.test(b.payFee as string));

/** Absolute base URL of the plug-in's routes, without a trailing slash. */
export function endpointUrl(endpoint: string | undefined): string {
  if (!endpoint) throw payError('invalid_config', false);
  return new URL(endpoint, location.href).href.replace(/\/+$/, '');
}

/** The error an HTTP status and body stand for: the contract's `{ error: { code, message, retryable } }` when present. */
export function errorOf(status: number, body: unknown): PayError {
  const e = (body as { error?: Json } | null)?.error;
  return e && strings(e, 'code')
    ? payError(e.code as string, e.retryable === true, status, (e.message as string) || undefined)
    : payError(status === 404 ? 'not_found' : `http_${status}`, status > 499 || status === 429, status);
}

/**
 * One request of the contract, to `path` under `endpoint`: JSON in, JSON checked by `check` out,
 * every failure a PayError (even a bad endpoint is a rejection, never a throw).
 */
export async function request<T>(endpoint: string, path: string, check: (b: Json) => boolean, signal: AbortSignal, body?: Json, headers: Record<string, string> = {}): Promise<T> {
  let res: Response;
  const url = endpointUrl(endpoint) + path;
  const trace = (document.querySelector('meta[name=traceparent]') as HTMLMetaElement | null)?.content;
  try {
    res = await fetch(url, {
      method: body && 'POST',
      // The page's trace context when its server rendered one (`<meta name="traceparent">`, the
      // OpenTelemetry convention for documents): the plug-in's spans join that trace.
      headers: { ...(body ? { 'content-type': 'application/json' } : headers), ...(trace && { traceparent: trace }) },
      body: body && JSON.stringify(body),
      // AbortSignal.any is recent (2024); without it a request has no timeout of its own.
      signal: AbortSignal.any?.([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]) ?? signal,
    });
  } catch (err) {
    if (signal.aborted) throw err;
    throw payError('network', true);
  }
  const json = await res.json().catch(() => null);
  if (!res.ok) throw errorOf(res.status, json);
  if (!json || !check(json)) throw payError('bad_response', true, res.status);
  return json;
}

/** `POST {endpoint}/links`: a payment link for a new (or, with the same key, the same) order. */
export async function createLink(endpoint: string, body: Json, signal: AbortSignal): Promise<PaymentLink> {
  return request(endpoint, '/links', isLink, signal, body);
}

/**
 * `GET {endpoint}/orders/:orderNum`: the order's status, the only source of truth (or, with `path`
 * and its `check`, another token-guarded resource of the order: `<pay-va>`'s `/qr`). The token
 * travels in the `Tombolbayar-Status-Token` header, and an answer about another order than the one
 * asked about is outside the contract (`bad_response`).
 */
export async function getOrder<T = Order>(endpoint: string, orderNum: string, token: string, signal: AbortSignal, check = isOrder, path = ''): Promise<T> {
  return request(endpoint, `/orders/${encodeURIComponent(orderNum)}${path}`, (b) => b.orderNum === orderNum && check(b), signal, undefined, {
    'Tombolbayar-Status-Token': token,
  });
}
