/**
 * The signed calls to the gateway: Create Payment Link, Create VA and Query. Each call is one
 * HTTP exchange; the retry policy lives in `create.ts`. Nothing from an answer is trusted until
 * its `platSign` verifies over every received field (with any configured platform key), it parses
 * with the protocol's response schema, and it matches what was asked (orderNum, payMoney, method,
 * the payment page's origin). Every call emits `gateway.call` with its duration and outcome.
 */
import type { KeyObject } from 'node:crypto';
import {
  compactFields, createPaymentLinkResponseSchema, createVaResponseSchema, formatDateTime, parseMessage, queryResponseSchema,
  type CreatePaymentLinkSuccess, type CreateVaSuccess, type QuerySuccess,
} from '@tombolbayar/protocol';
import { canonicalString, MAX_REQUEST_SIGN_LENGTH, maxSignableBytes, signatureLength, signCanonical, verify, type SignableFields } from '@tombolbayar/protocol/node';
import type { z } from 'zod';
import { PayButtonError } from '../errors.ts';
import type { GatewayCallOutcome, GatewayOperation, PayButtonEvents } from '../events.ts';
import { TransportError, type Transport } from './http.ts';
import { parseRetryAfter, type AttemptOutcome } from './retry.ts';
import { failed, headersFor, ORDER_NUM, SpanKind, SpanStatusCode, tracer, type Span } from '../observability/tracing.ts';

export interface GatewayClientConfig {
  readonly gatewayUrl: URL;
  readonly merchantCode: string;
  readonly privateKey: KeyObject;
  readonly platformPublicKeys: readonly KeyObject[];
  readonly paymentPageOrigins: readonly string[];
  readonly transport: Transport;
  readonly events: PayButtonEvents;
  readonly now: () => number;
  /** Per call, covering connect, headers and body. */
  readonly timeoutMs: number;
}

/** A call that did not produce a trusted success: how it ended and the error it would raise. */
export interface CallFailure {
  readonly ok: false;
  readonly outcome: AttemptOutcome;
  readonly error: PayButtonError;
}

export type CallResult<T> = { readonly ok: true; readonly value: T } | CallFailure;

/** The order fields a create sends, besides merchantCode, dateTime and sign. */
export interface CreateFields {
  readonly orderNum: string;
  readonly payMoney: string;
  readonly productDetail: string;
  readonly name: string;
  readonly email: string;
  readonly phone: string;
  readonly notifyUrl: string;
  readonly expiryPeriod: string;
  readonly method?: string | null | undefined;
  readonly redirectUrl?: string | undefined;
}

/** Which call a failure or report is about: the `gateway.call` event's identifying fields. */
interface CallContext {
  readonly operation: GatewayOperation;
  readonly orderNum: string;
  readonly attempt: number;
  /** `performance.now()` when the exchange began, for `durationMs`. */
  readonly started: number;
  /** The exchange's CLIENT span, ended with its outcome when the call is reported. */
  readonly span: Span;
}

/** How a call failed: the retry policy's outcome, the error raised, and what `gateway.call` reports. */
interface FailureOptions {
  readonly outcome: AttemptOutcome;
  readonly code: ConstructorParameters<typeof PayButtonError>[0];
  readonly message: string;
  /** The gateway's platRespCode, when a signed answer carried one. */
  readonly gatewayCode?: string | undefined;
  /** The `gateway.call` outcome; `invalid_response` unless said. */
  readonly reported?: GatewayCallOutcome;
  readonly httpStatus?: number;
}

const PATHS: Record<GatewayOperation, string> = { prepaidOrder: '/gateway/prepaidOrder', pay: '/gateway/pay', query: '/gateway/query' };

export class GatewayClient {
  /** Per operation, the endpoint's URL, built once. */
  private readonly urls: Readonly<Record<GatewayOperation, URL>>;
  /** The most bytes of canonical string whose `sign` fits the gateway's 512 characters. */
  private readonly signableBytes: number;

  constructor(private readonly config: GatewayClientConfig) {
    const base = config.gatewayUrl.href.replace(/\/+$/, '');
    this.urls = { prepaidOrder: new URL(base + PATHS.prepaidOrder), pay: new URL(base + PATHS.pay), query: new URL(base + PATHS.query) };
    this.signableBytes = maxSignableBytes(config.privateKey);
  }

  /** Sign the fields, refusing (before any I/O) a request whose `sign` would exceed 512 characters. */
  private signed(fields: Record<string, string>): Record<string, string> {
    const canonical = canonicalString(fields as SignableFields);
    const bytes = Buffer.byteLength(canonical, 'utf8');
    if (bytes > this.signableBytes) {
      throw new PayButtonError(
        'signature_too_long',
        `The signed request would carry a ${signatureLength(fields as SignableFields, this.config.privateKey)}-character sign; the gateway allows ${MAX_REQUEST_SIGN_LENGTH}. ` +
          `Its signed fields total ${bytes} bytes and at most ${this.signableBytes} fit: shorten productDetail, name or email, ` +
          'or use a shorter publicUrl / mount path (notifyUrl and redirectUrl are signed too).',
      );
    }
    return { ...fields, sign: signCanonical(canonical, this.config.privateKey) };
  }

  async createPaymentLink(fields: CreateFields, attempt: number, timeoutMs = this.config.timeoutMs): Promise<CallResult<CreatePaymentLinkSuccess>> {
    const body = this.signed(compactFields({ ...fields, merchantCode: this.config.merchantCode, dateTime: formatDateTime(this.config.now()) }));
    const result = await this.exchange('prepaidOrder', fields.orderNum, attempt, body, createPaymentLinkResponseSchema, timeoutMs);
    if (!result.ok) return result;
    const answer = result.value as CreatePaymentLinkSuccess;
    const call: CallContext = { operation: 'prepaidOrder', orderNum: fields.orderNum, attempt, started: result.started, span: result.span };
    const mismatch = this.mismatch(answer, fields);
    if (mismatch) return this.fail(call, { outcome: { kind: 'invalid_response', why: 'mismatch' }, code: 'gateway_response_invalid', message: mismatch });
    if (!this.urlAllowed(answer.url)) {
      return this.fail(call, { outcome: { kind: 'result', code: 'FAIL' }, code: 'gateway_url_untrusted', message: `The payment link is not on an allowed payment-page origin (${this.config.paymentPageOrigins.join(', ')}); it was not given to the customer.` });
    }
    this.report(call, 'success', { httpStatus: 200, platRespCode: 'SUCCESS' });
    return { ok: true, value: answer };
  }

  async createVa(fields: CreateFields & { readonly method: string }, attempt: number, timeoutMs = this.config.timeoutMs): Promise<CallResult<CreateVaSuccess>> {
    const body = this.signed(compactFields({ ...fields, merchantCode: this.config.merchantCode, dateTime: formatDateTime(this.config.now()) }));
    const result = await this.exchange('pay', fields.orderNum, attempt, body, createVaResponseSchema, timeoutMs);
    if (!result.ok) return result;
    const answer = result.value as CreateVaSuccess;
    const call: CallContext = { operation: 'pay', orderNum: fields.orderNum, attempt, started: result.started, span: result.span };
    const mismatch = this.mismatch(answer, fields) ?? (answer.method !== fields.method ? `method is ${answer.method}, ${fields.method} was asked` : undefined);
    if (mismatch) return this.fail(call, { outcome: { kind: 'invalid_response', why: 'mismatch' }, code: 'gateway_response_invalid', message: mismatch });
    this.report(call, 'success', { httpStatus: 200, platRespCode: 'SUCCESS' });
    return { ok: true, value: answer };
  }

  /** `/gateway/query` by orderNum. `NOTEXIST` comes back as a failure with that result code. */
  async query(orderNum: string, attempt: number, timeoutMs = this.config.timeoutMs): Promise<CallResult<QuerySuccess>> {
    const body = this.signed({ merchantCode: this.config.merchantCode, orderNum, queryType: 'ORDER_QUERY', dateTime: formatDateTime(this.config.now()) });
    const result = await this.exchange('query', orderNum, attempt, body, queryResponseSchema, timeoutMs);
    if (!result.ok) return result;
    const answer = result.value as QuerySuccess;
    const call: CallContext = { operation: 'query', orderNum, attempt, started: result.started, span: result.span };
    if (answer.orderNum !== orderNum) {
      return this.fail(call, { outcome: { kind: 'invalid_response', why: 'mismatch' }, code: 'gateway_response_invalid', message: `the answer is about order ${answer.orderNum}` });
    }
    if (answer.url !== undefined && !this.urlAllowed(answer.url)) {
      return this.fail(call, { outcome: { kind: 'invalid_response', why: 'mismatch' }, code: 'gateway_url_untrusted', message: 'The payment link is not on an allowed payment-page origin.' });
    }
    this.report(call, 'success', { httpStatus: 200, platRespCode: 'SUCCESS' });
    return { ok: true, value: answer };
  }

  private mismatch(answer: { orderNum: string; payMoney: string }, fields: CreateFields): string | undefined {
    if (answer.orderNum !== fields.orderNum) return `the answer is about order ${answer.orderNum}, not ${fields.orderNum}`;
    if (answer.payMoney !== fields.payMoney) return `payMoney is ${answer.payMoney}, ${fields.payMoney} was asked`;
    return undefined;
  }

  private urlAllowed(url: string): boolean {
    try {
      const parsed = new URL(url);
      return (parsed.protocol === 'https:' || parsed.protocol === 'http:') && this.config.paymentPageOrigins.includes(parsed.origin);
    } catch {
      return false;
    }
  }

  /**
   * POST, then verify and parse. A non-SUCCESS answer that verifies is returned as a failure with
   * its result code; an answer (or a 4xx) without a verifying `platSign` is `invalid_response`.
   * Only a SUCCESS is returned as `ok` (still to be cross-checked by the caller, which also
   * reports the final outcome).
   */
  private async exchange<S extends z.ZodType>(
    operation: GatewayOperation, orderNum: string, attempt: number, body: Record<string, string>, schema: S, timeoutMs = this.config.timeoutMs,
  ): Promise<{ ok: true; value: z.infer<S>; started: number; span: Span } | CallFailure> {
    const started = performance.now();
    const url = this.urls[operation];
    const span = tracer().startSpan(`gateway ${operation}`, {
      kind: SpanKind.CLIENT,
      attributes: { 'http.request.method': 'POST', 'url.full': url.href, 'server.address': url.hostname, [ORDER_NUM]: orderNum, 'tombolbayar.attempt': attempt },
    });
    const call: CallContext = { operation, orderNum, attempt, started, span };
    let response;
    try {
      response = await this.config.transport.post(url, JSON.stringify(body), timeoutMs, headersFor(span));
    } catch (error) {
      if (!(error instanceof TransportError)) {
        failed(span, error);
        span.end();
        throw error;
      }
      if (error.kind === 'timeout') {
        return this.fail(call, { outcome: { kind: 'timeout', maybeReceived: error.maybeReceived }, code: 'gateway_timeout', message: error.message, reported: 'timeout' });
      }
      return this.fail(call, { outcome: { kind: 'network', maybeReceived: error.maybeReceived }, code: 'gateway_unavailable', message: error.message, reported: 'network_error' });
    }
    if (response.status !== 200) {
      const retryAfterMs = parseRetryAfter(response.headers['retry-after'], this.config.now());
      const transient = response.status === 429 || response.status >= 500;
      let detail = '';
      let signed = false;
      try {
        const parsed = JSON.parse(response.body) as Record<string, unknown> | null;
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
          signed = this.verifies(parsed);
          // Only the gateway's own (signed) words are repeated in an error message.
          if (signed && typeof parsed.platRespMessage === 'string') detail = `: ${parsed.platRespMessage.slice(0, 300)}`;
        }
      } catch {
        // not JSON: the status says enough
      }
      if (!transient && !signed) {
        // A 4xx is a definitive refusal only when the gateway signed it; one from a proxy, a WAF
        // or a forger decides nothing, so it is handled like any answer that does not verify.
        return this.fail(call, { outcome: { kind: 'invalid_response', why: 'unsigned' }, code: 'gateway_response_invalid', message: `the gateway answered HTTP ${response.status} without a platSign that verifies; it is not taken as a refusal`, reported: 'http_error', httpStatus: response.status });
      }
      return this.fail(call, { outcome: { kind: 'http', status: response.status, retryAfterMs }, code: transient ? 'gateway_unavailable' : 'gateway_refused', message: `the gateway answered HTTP ${response.status}${detail}`, reported: 'http_error', httpStatus: response.status });
    }
    let json: unknown;
    try {
      json = JSON.parse(response.body);
    } catch {
      return this.fail(call, { outcome: { kind: 'invalid_response', why: 'malformed' }, code: 'gateway_response_invalid', message: 'the gateway answered with something that is not JSON' });
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      return this.fail(call, { outcome: { kind: 'invalid_response', why: 'malformed' }, code: 'gateway_response_invalid', message: 'the gateway answered with JSON that is not an object' });
    }
    const fields = json as Record<string, unknown>;
    // Authenticity first: over every received field, before any of them is looked at. An answer
    // without a signature decides nothing either: an unsigned FAIL or NOTEXIST would otherwise
    // fail an order for good on the word of whoever sits on the path.
    if (typeof fields.platSign !== 'string' || fields.platSign === '') {
      return this.fail(call, { outcome: { kind: 'invalid_response', why: 'unsigned' }, code: 'gateway_response_invalid', message: 'the answer carries no platSign, so nothing in it is trusted' });
    }
    if (!this.verifies(fields)) {
      return this.fail(call, { outcome: { kind: 'invalid_response', why: 'bad_signature' }, code: 'gateway_response_invalid', message: "the answer's platSign does not verify with the platform public key(s)" });
    }
    // zod only when the quick check is not sure: it still decides, and words, every refusal.
    const parsed = parseMessage(schema, fields);
    if (!parsed.ok) {
      return this.fail(call, { outcome: { kind: 'invalid_response', why: 'malformed' }, code: 'gateway_response_invalid', message: `the answer does not match the protocol: ${parsed.message}` });
    }
    const value = parsed.value as { platRespCode: string; platRespMessage: string };
    if (value.platRespCode === 'SUCCESS') return { ok: true, value: parsed.value, started, span };
    const resultCode = value.platRespCode as 'FAIL' | 'NOTEXIST' | 'UNKNOWN' | 'ERROR';
    const message = value.platRespMessage.slice(0, 300);
    const mapping: Record<typeof resultCode, { code: 'gateway_refused' | 'gateway_merchant_unknown' | 'gateway_unknown_outcome'; outcome: GatewayCallOutcome; text: string }> = {
      FAIL: { code: 'gateway_refused', outcome: 'refused', text: `The gateway refused the order: ${message}` },
      NOTEXIST: {
        code: 'gateway_merchant_unknown',
        outcome: 'not_exist',
        text: operation === 'query' ? `The gateway has no such order: ${message}` : `The gateway does not know merchant ${this.config.merchantCode} (check merchantCode and gatewayUrl): ${message}`,
      },
      UNKNOWN: { code: 'gateway_unknown_outcome', outcome: 'unknown', text: `The gateway could not tell the outcome: ${message}` },
      ERROR: { code: 'gateway_unknown_outcome', outcome: 'error', text: `The gateway reported an internal error: ${message}` },
    };
    const { code, outcome, text } = mapping[resultCode];
    return this.fail(call, { outcome: { kind: 'result', code: resultCode, message }, code, message: text, gatewayCode: resultCode, reported: outcome, httpStatus: 200 });
  }

  /** True when `platSign` verifies over every other received field with a configured platform key. */
  private verifies(fields: Record<string, unknown>): boolean {
    return typeof fields.platSign === 'string' && verify(fields as SignableFields, fields.platSign, this.config.platformPublicKeys);
  }

  private fail(call: CallContext, failure: FailureOptions): CallFailure {
    const { outcome, code, message, gatewayCode, reported = 'invalid_response', httpStatus } = failure;
    this.report(call, reported, { ...(httpStatus ? { httpStatus } : {}), ...(gatewayCode ? { platRespCode: gatewayCode } : {}), message });
    return { ok: false, outcome, error: new PayButtonError(code, message, { gatewayCode }) };
  }

  private report(
    { operation, orderNum, attempt, started, span }: CallContext, outcome: GatewayCallOutcome,
    extra: { httpStatus?: number; platRespCode?: string; message?: string },
  ): void {
    span.setAttribute('tombolbayar.outcome', outcome);
    if (extra.httpStatus !== undefined) span.setAttribute('http.response.status_code', extra.httpStatus);
    if (outcome !== 'success' && !(operation === 'query' && outcome === 'not_exist')) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
    span.end();
    this.config.events.emit('gateway.call', { operation, orderNum, attempt, durationMs: Math.round((performance.now() - started) * 100) / 100, outcome, ...extra });
  }
}
