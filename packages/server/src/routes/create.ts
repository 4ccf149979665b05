/**
 * `POST /links` (payment link, operation 2) and `POST /va` (Create VA, operation 1), and their
 * server-side twins `createPaymentLink()` / `createVaOrder()` for merchants who price in their
 * own code and show the result themselves.
 */
import type { MethodCode } from '@tombolbayar/protocol';
import { PayButtonError } from '../errors.ts';
import type { PayButtonEvents } from '../events.ts';
import { readJsonBody } from '../http/body.ts';
import type { RouteContext, RouteHandler } from '../http/context.ts';
import { jsonAnswer } from '../http/respond.ts';
import { requestFingerprint } from '../ids.ts';
import type { QuoteRequestBody, ResolvedOptions } from '../options.ts';
import type { CreateResult, OrderCreator } from '../orders/create.ts';
import { runQuote, type QuoteResult } from '../quote.ts';
import type { Order } from '../store/orders.ts';
import { linkBodySchema, parseBody, resolveReturnTo, vaBodySchema, type LinkBody, type VaBody } from './bodies.ts';
import type { Answer } from '../http/answer.ts';

/** What the create routes and functions use. */
export interface CreateRouteDeps {
  readonly creator: OrderCreator;
  readonly events: PayButtonEvents;
  readonly options: Pick<ResolvedOptions, 'fields' | 'bodyLimitBytes' | 'quote' | 'expiryPeriod' | 'browserOrigins'>;
}

/**
 * `pending`: pay it (open `url`, show `vaNumber`). `paid`: this purchase is already paid (another
 * tab or device paid it): show the outcome, open nothing.
 */
export type CreatedStatus = 'pending' | 'paid';

const createdStatus = (order: Order): CreatedStatus => (order.status === 'paid' ? 'paid' : 'pending');

/** `201` body of `POST /links`. */
export interface PaymentLink {
  readonly orderNum: string;
  readonly status: CreatedStatus;
  /** The hosted payment page, on the gateway's origin. */
  readonly url: string;
  /** ISO 8601. */
  readonly expiresAt: string;
  /** For `GET /orders/:orderNum?token=`. */
  readonly statusToken: string;
}

/** `201` body of `POST /va`. */
export interface VaOrder {
  readonly orderNum: string;
  readonly status: CreatedStatus;
  readonly method: string;
  readonly vaNumber: string;
  readonly payMoney: string;
  readonly payFee: string | null;
  readonly expiresAt: string;
  readonly statusToken: string;
}

export function toPaymentLink(order: Order): PaymentLink {
  if (!order.url) {
    throw new PayButtonError('gateway_response_invalid', 'The gateway registered the order but gave no payment link for it.');
  }
  return { orderNum: order.orderNum, status: createdStatus(order), url: order.url, expiresAt: (order.expiresAt ?? order.createdAt).toISOString(), statusToken: order.statusToken };
}

export function toVaOrder(order: Order): VaOrder {
  if (!order.vaNumber || !order.method) {
    throw new PayButtonError('gateway_response_invalid', 'The gateway registered the order but gave no payment number for it.');
  }
  return {
    orderNum: order.orderNum,
    status: createdStatus(order),
    method: order.method,
    vaNumber: order.vaNumber,
    payMoney: order.payMoney,
    payFee: order.payFee,
    expiresAt: (order.expiresAt ?? order.createdAt).toISOString(),
    statusToken: order.statusToken,
  };
}

function answer(result: CreateResult, body: unknown): Answer {
  return jsonAnswer(201, body, { 'Cache-Control': 'no-store', ...(result.replayed ? { 'Idempotent-Replayed': 'true' } : {}) });
}

function quoteFrom(deps: CreateRouteDeps, context: RouteContext, body: QuoteRequestBody) {
  return () => runQuote(() => deps.options.quote(context.native as never, body), deps.options.expiryPeriod, deps.events);
}

export function linksHandler(deps: CreateRouteDeps): RouteHandler {
  const schema = linkBodySchema(deps.options.fields);
  return async (request, context) => {
    const body = parseBody<LinkBody>(schema, await readJsonBody(request, deps.options.bodyLimitBytes, context.facts.parsedBody));
    const returnTo = resolveReturnTo(deps.options.browserOrigins, request, body.returnTo);
    // Where to come back to, and in which language, are not part of what was bought: a retry that
    // falls back from a popup to a full-page redirect sends another returnTo (a page switched to
    // another language, another lang) and must still get the same order.
    const { returnTo: _notFingerprinted, lang: _notFingerprintedEither, ...asked } = body;
    const result = await deps.creator.create({
      kind: 'link',
      idempotencyKey: body.idempotencyKey,
      requestHash: requestFingerprint('link', asked),
      method: body.method ?? null,
      item: body.item ?? null,
      returnTo,
      lang: body.lang ?? null,
      quote: quoteFrom(deps, context, body),
    });
    return answer(result, toPaymentLink(result.order));
  };
}

export function vaHandler(deps: CreateRouteDeps): RouteHandler {
  const schema = vaBodySchema(deps.options.fields);
  return async (request, context) => {
    const body = parseBody<VaBody>(schema, await readJsonBody(request, deps.options.bodyLimitBytes, context.facts.parsedBody));
    // The language is not part of what was bought (as for a link).
    const { lang: _notFingerprinted, ...asked } = body;
    const result = await deps.creator.create({
      kind: 'va',
      idempotencyKey: body.idempotencyKey,
      requestHash: requestFingerprint('va', asked),
      method: body.method,
      item: body.item ?? null,
      returnTo: null,
      lang: body.lang ?? null,
      quote: quoteFrom(deps, context, body),
    });
    return answer(result, toVaOrder(result.order));
  };
}

/** Input of the server-side create functions. */
export interface ServerCreateInput {
  /** The price and customer, decided by the caller. */
  readonly quote: QuoteResult;
  /** Makes a retried call return the same order; recommended. */
  readonly idempotencyKey?: string;
  readonly item?: string;
}

const SERVER_KEY = /^[A-Za-z0-9_-]{1,128}$/;

function serverKey(key: string | undefined): string | null {
  if (key === undefined) return null;
  if (!SERVER_KEY.test(key)) throw new PayButtonError('invalid_request', 'idempotencyKey: must be 1 to 128 letters, digits, "-" or "_"', { issues: [{ field: 'idempotencyKey', message: 'must be 1 to 128 letters, digits, "-" or "_"' }] });
  return `server:${key}`;
}

export async function createPaymentLinkFor(deps: CreateRouteDeps, input: ServerCreateInput & { readonly method?: MethodCode | null; readonly returnTo?: string }): Promise<PaymentLink & { readonly order: Order }> {
  const quote = await runQuote(() => input.quote, deps.options.expiryPeriod, deps.events);
  const key = serverKey(input.idempotencyKey);
  const result = await deps.creator.create({
    kind: 'link',
    idempotencyKey: key,
    requestHash: key === null ? null : requestFingerprint('link', { ...quote, method: input.method ?? null, item: input.item ?? null }),
    method: input.method ?? null,
    item: input.item ?? null,
    returnTo: input.returnTo ?? null,
    quote: async () => quote,
  });
  return { ...toPaymentLink(result.order), order: result.order };
}

export async function createVaOrderFor(deps: CreateRouteDeps, input: ServerCreateInput & { readonly method: MethodCode }): Promise<VaOrder & { readonly order: Order }> {
  const quote = await runQuote(() => input.quote, deps.options.expiryPeriod, deps.events);
  const key = serverKey(input.idempotencyKey);
  const result = await deps.creator.create({
    kind: 'va',
    idempotencyKey: key,
    requestHash: key === null ? null : requestFingerprint('va', { ...quote, method: input.method, item: input.item ?? null }),
    method: input.method,
    item: input.item ?? null,
    returnTo: null,
    quote: async () => quote,
  });
  return { ...toVaOrder(result.order), order: result.order };
}
