/**
 * Creating an order, once per idempotency key:
 *
 * 1. A known key is answered from the store (the same link, never a second order), without
 *    asking `quote()` again: the item may have sold out in between, but this customer already
 *    holds the order.
 * 2. Otherwise `quote()` prices it, the order is stored in `creating` with a fresh orderNum and a
 *    create lease, and only then is the gateway called (a notification can never arrive for an
 *    order we do not have).
 * 3. A concurrent duplicate (double click) waits for the first to finish, in-process through a
 *    shared promise, across processes by polling the row; an order left in `creating` by a failed
 *    or crashed request is resumed by the next request with its key, query first.
 */
import { createHash } from 'node:crypto';
import { parseWith, urlField, type MethodCode } from '@tombolbayar/protocol';
import { inBackground, type Context } from '../context.ts';
import type { ResolvedOptions } from '../options.ts';
import { PayButtonError, isPayButtonError } from '../errors.ts';
import type { CreateFields } from '../gateway/client.ts';
import { CreateFailure, registerAtGateway, type Registered } from '../gateway/create.ts';
import { newOrderNum, newStatusToken, ORDER_SUFFIX_CHARS } from '../ids.ts';
import type { Quote } from '../quote.ts';
import type { GatewayFacts, Order } from '../store/orders.ts';
import type { OrderKind } from '../store/schema.ts';
import { applyConfirmation, confirmOrder } from './confirm.ts';
import { fulfil } from './settle.ts';

export interface CreateInput {
  readonly kind: OrderKind;
  readonly idempotencyKey: string | null;
  /** Fingerprint of what was asked, to refuse one key reused for something else. */
  readonly requestHash: string | null;
  readonly method: MethodCode | null;
  readonly item: string | null;
  /** Not part of the fingerprint: a replay with another page to return to updates it. */
  readonly returnTo: string | null;
  /** Prices the order; called only when the key is new. */
  readonly quote: () => Promise<Quote>;
}

export interface CreateResult {
  readonly order: Order;
  /** True when the answer comes from an earlier request with the same key. */
  readonly replayed: boolean;
}

const POLL_MS = 50;
const RETURN_TOKEN_CHARS = 22;

/**
 * The short secret in the `redirectUrl` (`rt`): whoever follows the order's own return link may be
 * sent back to the page that started the payment; someone who only knows the orderNum lands on
 * the site's root. Derived from the status token, so it needs no column, and it does not reveal
 * the token to the gateway or to access logs (the token itself never travels in a URL).
 */
export function returnToken(statusToken: string): string {
  return createHash('sha256').update(`paybutton-return:${statusToken}`, 'utf8').digest('base64url').slice(0, RETURN_TOKEN_CHARS);
}

/** The signed `redirectUrl` of an order: the return page, with the order and its return token. */
function redirectUrlOf(base: string, orderNum: string, token: string): string {
  return `${base}/return?order=${orderNum}&rt=${token}`;
}

/**
 * `publicUrl + mountPath`, the base of notifyUrl and redirectUrl, checked against the protocol's
 * URL rule with the longest orderNum and return token a redirectUrl can carry. `payButton()` runs
 * it once at start-up (`context.callbackBase`): a configuration the gateway would refuse fails
 * there, and no request checks its own URLs again.
 */
export function callbackBase(options: Pick<ResolvedOptions, 'publicUrl' | 'mountPath' | 'orderNumPrefix'>): string {
  const mount = options.mountPath;
  const base = `${options.publicUrl.href.replace(/\/+$/, '')}${mount === '/' ? '' : mount}`;
  const longestOrderNum = 'X'.repeat(options.orderNumPrefix.length + ORDER_SUFFIX_CHARS);
  const urls = { notifyUrl: `${base}/notify`, redirectUrl: redirectUrlOf(base, longestOrderNum, 'x'.repeat(RETURN_TOKEN_CHARS)) };
  for (const [field, url] of Object.entries(urls)) {
    const checked = parseWith(urlField, url);
    if (!checked.ok) {
      const rule = checked.issues[0]?.message ?? 'is invalid';
      throw new PayButtonError('config_invalid', `invalid payButton() options: ${field}: ${rule} (check publicUrl and mountPath)`, { issues: [{ field, message: rule }] });
    }
  }
  return base;
}

function createFields(context: Context, order: Order): CreateFields {
  const base = context.callbackBase;
  return {
    orderNum: order.orderNum,
    payMoney: order.payMoney,
    productDetail: order.productDetail,
    name: order.name,
    email: order.email,
    phone: order.phone,
    notifyUrl: `${base}/notify`,
    expiryPeriod: String(order.expiryPeriod),
    method: order.method,
    ...(order.kind === 'link' ? { redirectUrl: redirectUrlOf(base, order.orderNum, returnToken(order.statusToken)) } : {}),
  };
}

/** The facts a registration gives: the create's answer (expiring `expiryPeriod` from now) or the query's. */
function registeredFacts(registered: Registered, order: Order, now: Date): GatewayFacts {
  if (registered.adopted) return registered.confirmation.facts;
  const { adopted: _created, ...facts } = registered;
  return { ...facts, expiresAt: new Date(now.getTime() + order.expiryPeriod * 60_000) };
}

/**
 * Call the gateway for an order this request holds the create lease of, and record the outcome.
 * An order found by asking (an earlier try did reach the gateway) may have ended already: its
 * confirmation is applied by `applyConfirmation`, as a notification's or a poll's would be.
 */
async function register(context: Context, order: Order, resumed: boolean): Promise<Order> {
  const { orders } = context.store;
  try {
    const registered = await registerAtGateway(context.client, order.kind, createFields(context, order), context.policy, {
      resumed,
      // The create loop's question is the plug-in's one question: shared with a notification or a
      // poll in flight for this order, and under the one mismatch policy.
      confirm: (attempt, timeoutMs) => confirmOrder(context, order, { attempt, timeoutMs }),
    });
    const now = context.now();
    const facts = registeredFacts(registered, order, now);
    // A link created without a method is one the customer picks a method for on the hosted page:
    // the first status poll after the popup closes must ask the gateway, not find a fresh check.
    const methodKnown = (order.method ?? facts.method ?? null) !== null;
    let stored = await orders.markCreated(order.orderNum, facts, now, methodKnown ? now : null);
    if (stored) {
      context.events.emit('order.transition', { orderNum: order.orderNum, kind: order.kind, from: 'creating', to: 'pending', source: registered.adopted ? 'query' : 'create', at: now });
    } else {
      // A notification overtook the create's answer (the order is already paid): keep the link.
      stored = await orders.recordFacts(order.orderNum, facts, now);
      if (!stored) throw new PayButtonError('internal', 'The order disappeared while it was being created.');
    }
    if (!registered.adopted) return stored;
    const { order: settled } = await applyConfirmation(context, stored, registered.confirmation, 'query');
    if (settled.status === 'paid' && !settled.fulfilledAt) inBackground(context, () => fulfil(context, settled.orderNum, 'query'));
    return settled;
  } catch (caught) {
    const failure = caught instanceof CreateFailure ? caught : isPayButtonError(caught) ? new CreateFailure(caught, true) : undefined;
    if (!failure) {
      await orders.releaseCreateLease(order.orderNum, context.now(), { code: 'internal', message: 'unexpected error while creating' });
      throw caught;
    }
    const error = { code: failure.error.code, message: failure.error.message, gatewayCode: failure.error.gatewayCode };
    const now = context.now();
    if (failure.definitive) {
      if (await orders.markCreateFailed(order.orderNum, now, error)) {
        context.events.emit('order.transition', { orderNum: order.orderNum, kind: order.kind, from: 'creating', to: 'failed', source: 'create', at: now });
      }
    } else {
      await orders.releaseCreateLease(order.orderNum, now, error);
    }
    throw failure.error;
  }
}

/** Run `register` once per order in this process; others wait on the same promise. */
function registerOnce(context: Context, order: Order, resumed: boolean): Promise<Order> {
  const running = context.inflight.get(order.orderNum) as Promise<Order> | undefined;
  if (running) return running;
  const work = register(context, order, resumed).finally(() => context.inflight.delete(order.orderNum));
  context.inflight.set(order.orderNum, work);
  return work;
}

/** The error a failed creation is replayed with. */
function storedFailure(order: Order): PayButtonError {
  const code = (order.errorCode ?? 'internal') as ConstructorParameters<typeof PayButtonError>[0];
  // The same key will always get this answer: only a new key (a new attempt) can help.
  return new PayButtonError(code, order.errorMessage ?? 'The order could not be created.', { gatewayCode: order.gatewayCode ?? undefined, retryable: false });
}

/** Answer a request whose key already has an order: replay it, wait for it, or resume it. */
async function settleExisting(context: Context, input: CreateInput, existing: Order): Promise<CreateResult> {
  if (existing.kind !== input.kind || (input.requestHash !== null && existing.requestHash !== input.requestHash)) {
    throw new PayButtonError('idempotency_mismatch', 'This idempotencyKey was already used for a different request; use a new key for a new order.');
  }
  if (input.returnTo !== null && input.returnTo !== existing.returnTo) {
    // The latest request knows where the customer is now (a popup retried as a full page).
    await context.store.orders.updateReturnTo(existing.orderNum, input.returnTo, context.now());
    existing = { ...existing, returnTo: input.returnTo };
  }
  const deadline = performance.now() + context.options.totalTimeoutMs + 1_000;
  let order: Order | undefined = existing;
  while (order) {
    if (order.status !== 'creating') {
      if (order.status === 'failed' && order.errorCode) throw storedFailure(order);
      return { order, replayed: true };
    }
    const running = context.inflight.get(order.orderNum);
    if (running) return { order: (await running) as Order, replayed: true };
    const now = context.now();
    const leaseUntil = new Date(now.getTime() + context.options.totalTimeoutMs + 5_000);
    if (await context.store.orders.claimCreateLease(order.orderNum, now, leaseUntil)) {
      return { order: await registerOnce(context, order, true), replayed: true };
    }
    if (performance.now() > deadline) {
      throw new PayButtonError('idempotency_in_progress', 'The first request with this idempotencyKey is still being processed; try again in a moment.');
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    order = await context.store.orders.get(order.orderNum);
  }
  throw new PayButtonError('internal', 'The order disappeared while it was being created.');
}

export async function createOrder(context: Context, input: CreateInput): Promise<CreateResult> {
  await context.ready();
  const { orders } = context.store;
  if (input.idempotencyKey !== null) {
    const existing = await orders.getByIdempotencyKey(input.idempotencyKey);
    if (existing) return settleExisting(context, input, existing);
  }
  const quote = await input.quote();
  const now = context.now();
  const stored = await orders.insertCreating(
    {
      orderNum: newOrderNum(context.options.orderNumPrefix),
      kind: input.kind,
      idempotencyKey: input.idempotencyKey,
      requestHash: input.requestHash,
      statusToken: newStatusToken(),
      merchantCode: context.options.merchantCode,
      payMoney: quote.payMoney,
      productDetail: quote.productDetail,
      name: quote.name,
      email: quote.email,
      phone: quote.phone,
      method: input.method,
      expiryPeriod: quote.expiryPeriod,
      item: input.item,
      metadata: quote.metadata,
      returnTo: input.returnTo,
    },
    now,
    new Date(now.getTime() + context.options.totalTimeoutMs + 5_000),
  );
  if (!stored.inserted) return settleExisting(context, input, stored.order);
  context.events.emit('order.transition', { orderNum: stored.order.orderNum, kind: input.kind, from: null, to: 'creating', source: 'create', at: now });
  return { order: await registerOnce(context, stored.order, false), replayed: false };
}

/** Resume an order stuck in `creating` (reconcile): query first; never a second order. */
export async function resumeCreating(context: Context, order: Order): Promise<Order | undefined> {
  const now = context.now();
  if (!(await context.store.orders.claimCreateLease(order.orderNum, now, new Date(now.getTime() + context.options.totalTimeoutMs + 5_000)))) return undefined;
  return registerOnce(context, order, true);
}
