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
 * 4. One purchase, one payable order: when `quote()` names the purchase (`reference`), a request
 *    for a purchase that already has a payable order (another tab, a reload, another device) gets
 *    that order, and one that was paid (by any of its orders: a number, a link) gets the paid
 *    order, or `already_paid` when that order is of another kind. A partial unique index makes it
 *    hold across processes.
 *
 * Every state write goes through the lifecycle (`lifecycle.ts`); this module says what it learnt.
 */
import type { MethodCode } from '@tombolbayar/protocol';
import type { PayButtonEvents } from '../events.ts';
import { PayButtonError, isPayButtonError } from '../errors.ts';
import type { CreateFields, GatewayClient } from '../gateway/client.ts';
import { CreateFailure, registerAtGateway, type CreatePolicy, type Registered } from '../gateway/create.ts';
import { newOrderNum, newStatusToken } from '../ids.ts';
import type { Quote } from '../quote.ts';
import type { ReturnLocale } from '../routes/return-page.ts';
import type { GatewayFacts, Order, OrderStore } from '../store/orders.ts';
import type { OrderKind } from '../store/schema.ts';
import { redirectUrlOf, returnToken } from './callback-urls.ts';
import type { GatewayConfirmer } from './confirm.ts';
import type { OrderLifecycle } from './lifecycle.ts';

export interface CreateInput {
  readonly kind: OrderKind;
  readonly idempotencyKey: string | null;
  /** Fingerprint of what was asked, to refuse one key reused for something else. */
  readonly requestHash: string | null;
  readonly method: MethodCode | null;
  readonly item: string | null;
  /** Not part of the fingerprint: a replay with another page to return to updates it. */
  readonly returnTo: string | null;
  /**
   * The customer's language, carried in the order's `redirectUrl` so the return page speaks the
   * shop's language rather than the browser's. Not part of the fingerprint either; an order keeps
   * the language of the request that registered it at the gateway.
   */
  readonly lang?: ReturnLocale | null | undefined;
  /** Prices the order; called only when the key is new. */
  readonly quote: () => Promise<Quote>;
}

export interface CreateResult {
  readonly order: Order;
  /** True when the answer is an order made earlier (same key, or same purchase). */
  readonly replayed: boolean;
}

/** How `register` calls the gateway: `resumed` when an earlier try may already have reached it. */
interface RegisterOptions {
  readonly resumed: boolean;
  readonly lang: ReturnLocale | null | undefined;
}

const POLL_MS = 50;

/**
 * The answer to a request for a purchase that is paid: its paid order, to show, when it is of the
 * kind asked for (a link has a link, a number has a number); otherwise `already_paid`, in the
 * customer's language, naming the order that paid it.
 */
function paidAlready(paid: Order, input: Pick<CreateInput, 'kind' | 'lang'>): CreateResult {
  if (paid.kind === input.kind) return { order: paid, replayed: true };
  throw new PayButtonError(
    'already_paid',
    input.lang === 'id'
      ? `Pembelian ini sudah dibayar (pesanan ${paid.orderNum}). Tidak ada lagi yang perlu dibayar.`
      : `This purchase is paid already (order ${paid.orderNum}). There is nothing more to pay.`,
  );
}

/**
 * One purchase: the merchant's reference, what kind of order, how much, by which method (the one
 * asked for; `-` for a link whose method the customer picks on the hosted page).
 */
export function purchaseKeyOf(reference: string, kind: OrderKind, payMoney: string, method: MethodCode | null): string {
  return `${kind}|${method ?? '-'}|${payMoney}|${reference}`;
}

function createFields(base: string, order: Order, lang: ReturnLocale | null | undefined): CreateFields {
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
    ...(order.kind === 'link' ? { redirectUrl: redirectUrlOf(base, order.orderNum, returnToken(order.statusToken), lang) } : {}),
  };
}

/** The facts a registration gives: the create's answer (expiring `expiryPeriod` from now) or the query's. */
function registeredFacts(registered: Registered, order: Order, now: Date): GatewayFacts {
  if (registered.adopted) return registered.confirmation.facts;
  const { adopted: _created, ...facts } = registered;
  return { ...facts, expiresAt: new Date(now.getTime() + order.expiryPeriod * 60_000) };
}

export interface CreatorDeps {
  readonly ready: () => Promise<void>;
  /** For reads; every write goes through `lifecycle`. */
  readonly orders: OrderStore;
  readonly lifecycle: OrderLifecycle;
  readonly confirmer: GatewayConfirmer;
  readonly client: GatewayClient;
  readonly policy: CreatePolicy;
  /** `publicUrl + mountPath`, checked once (`callbackBase`). */
  readonly callbackBase: string;
  readonly merchantCode: string;
  readonly orderNumPrefix: string;
  readonly now: () => Date;
  /** For the warning about an answer that cannot be trusted (`untrustedAnswer`). */
  readonly events: PayButtonEvents;
}

/** The error a failed creation is replayed with. */
function storedFailure(order: Order): PayButtonError {
  const code = (order.errorCode ?? 'internal') as ConstructorParameters<typeof PayButtonError>[0];
  // The same key will always get this answer: only a new key (a new attempt) can help.
  return new PayButtonError(code, order.errorMessage ?? 'The order could not be created.', { gatewayCode: order.gatewayCode ?? undefined, retryable: false });
}

/**
 * The warning for an order whose gateway answers could not be trusted (they do not verify, or are
 * outside the protocol): the gateway may have created it, so the customer was told nothing was
 * charged while a live order may wait there. The usual cause is a platform key that is not this
 * gateway's; the order is kept in `creating` (never re-sent) and `reconcile()` settles it by query
 * once the answers verify: adopted if the gateway has it, failed if it never did.
 */
export function untrustedAnswer(orderNum: string, why: string): { code: 'gateway_answer_untrusted'; message: string; orderNum: string } {
  return {
    code: 'gateway_answer_untrusted',
    orderNum,
    message:
      `the gateway's answers for order ${orderNum} cannot be trusted (${why}), so the customer was told it failed, but the gateway may hold it live: ` +
      'most likely platformPublicKey is not the key of this gateway (GATEWAY_URL) or of this merchant. Fix the key and restart; ' +
      `the order is kept in creating and reconcile() asks the gateway about it (adopted if it has it, failed if not).`,
  };
}

export class OrderCreator {
  /** Creates in progress in this process, by orderNum: a double click waits on the first. */
  private readonly inflight = new Map<string, Promise<Order>>();

  constructor(private readonly deps: CreatorDeps) {}

  private leaseUntil(): Date {
    return new Date(this.deps.now().getTime() + this.deps.policy.totalTimeoutMs + 5_000);
  }

  async create(input: CreateInput): Promise<CreateResult> {
    await this.deps.ready();
    const { orders } = this.deps;
    if (input.idempotencyKey !== null) {
      const existing = await orders.getByIdempotencyKey(input.idempotencyKey);
      if (existing) return this.replay(input, existing, { sameKey: true });
    }
    const quote = await input.quote();
    const purchaseKey = quote.reference === null ? null : purchaseKeyOf(quote.reference, input.kind, quote.payMoney, input.method);
    // A purchase's order that moves on (paid, expired) between our read and our insert: look again.
    for (let round = 0; round < 3; round += 1) {
      if (purchaseKey !== null) {
        // Paid by any of its orders (a number, a link, another method): never a second payment.
        const paid = await orders.paidOfReference(quote.reference!, quote.payMoney);
        if (paid) return paidAlready(paid, input);
        const payable = await orders.payableByPurchase(purchaseKey);
        if (payable) return this.replay(input, payable, { sameKey: false });
      }
      const stored = await this.deps.lifecycle.open(
        {
          orderNum: newOrderNum(this.deps.orderNumPrefix),
          kind: input.kind,
          idempotencyKey: input.idempotencyKey,
          requestHash: input.requestHash,
          statusToken: newStatusToken(),
          merchantCode: this.deps.merchantCode,
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
          reference: quote.reference,
          purchaseKey,
        },
        this.leaseUntil(),
      );
      if (stored.inserted) return { order: await this.registerOnce(stored.order, { resumed: false, lang: input.lang }), replayed: false };
      if (stored.order) return this.replay(input, stored.order, { sameKey: stored.order.idempotencyKey === input.idempotencyKey });
    }
    throw new PayButtonError('idempotency_in_progress', 'This purchase is being paid right now; try again in a moment.');
  }

  /**
   * Answer a request with an order made earlier: replay it, wait for it, or resume it. `sameKey`:
   * found by the request's own idempotency key (so it must be the same request), rather than by
   * its purchase (another tab's request for the same purchase).
   */
  private async replay(input: CreateInput, existing: Order, { sameKey }: { readonly sameKey: boolean }): Promise<CreateResult> {
    if (sameKey && (existing.kind !== input.kind || (input.requestHash !== null && existing.requestHash !== input.requestHash))) {
      throw new PayButtonError('idempotency_mismatch', 'This idempotencyKey was already used for a different request; use a new key for a new order.');
    }
    // The same request again, for an order its purchase no longer needs (another tab's number or
    // link paid it since): never opened, nor resumed at the gateway, again.
    if (sameKey && existing.reference !== null && (existing.status === 'pending' || existing.status === 'creating')) {
      const paid = await this.deps.orders.paidOfReference(existing.reference, existing.payMoney);
      if (paid && paid.orderNum !== existing.orderNum) return paidAlready(paid, input);
    }
    if (sameKey && input.returnTo !== null && input.returnTo !== existing.returnTo) {
      // The same request retried knows where the customer is now (a popup retried as a full page).
      // Another request for the same purchase (`reference`) is answered with the order as it is:
      // it never changes what the first request stored.
      await this.deps.lifecycle.updateReturnTo(existing.orderNum, input.returnTo);
      existing = { ...existing, returnTo: input.returnTo };
    }
    const deadline = performance.now() + this.deps.policy.totalTimeoutMs + 1_000;
    let order: Order | undefined = existing;
    while (order) {
      if (order.status !== 'creating') {
        if (order.status === 'failed' && order.errorCode) throw storedFailure(order);
        return { order, replayed: true };
      }
      const running = this.inflight.get(order.orderNum);
      if (running) return { order: await running, replayed: true };
      if (await this.deps.lifecycle.claimCreate(order.orderNum, this.leaseUntil())) {
        return { order: await this.registerOnce(order, { resumed: true, lang: input.lang }), replayed: true };
      }
      if (performance.now() > deadline) {
        throw new PayButtonError('idempotency_in_progress', 'The first request with this idempotencyKey is still being processed; try again in a moment.');
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      order = await this.deps.orders.get(order.orderNum);
    }
    throw new PayButtonError('internal', 'The order disappeared while it was being created.');
  }

  /** Run `register` once per order in this process; others wait on the same promise. */
  private registerOnce(order: Order, how: RegisterOptions): Promise<Order> {
    const running = this.inflight.get(order.orderNum);
    if (running) return running;
    const work = this.register(order, how).finally(() => this.inflight.delete(order.orderNum));
    this.inflight.set(order.orderNum, work);
    return work;
  }

  /**
   * Call the gateway for an order this request holds the create lease of, and tell the lifecycle
   * what happened. An order found by asking (an earlier try did reach the gateway) may have ended
   * already: its confirmation is applied like a notification's or a poll's.
   */
  private async register(order: Order, { resumed, lang }: RegisterOptions): Promise<Order> {
    const { lifecycle } = this.deps;
    try {
      const registered = await registerAtGateway(this.deps.client, order.kind, createFields(this.deps.callbackBase, order, lang), this.deps.policy, {
        resumed,
        // The create loop's question is the plug-in's one question: shared with a notification or a
        // poll in flight for this order, and under the one mismatch policy.
        confirm: (attempt, timeoutMs) => this.deps.confirmer.confirm(order, { attempt, timeoutMs }),
      });
      const stored = await lifecycle.registered(order, registeredFacts(registered, order, this.deps.now()), registered.adopted ? 'query' : 'create');
      if (!registered.adopted) return stored;
      return (await lifecycle.apply(stored, registered.confirmation, 'query', 'background')).order;
    } catch (caught) {
      const failure = caught instanceof CreateFailure ? caught : isPayButtonError(caught) ? new CreateFailure(caught, { definitive: true }) : undefined;
      if (!failure) {
        await lifecycle.releaseCreate(order.orderNum, { code: 'internal', message: 'unexpected error while creating' });
        throw caught;
      }
      const error = { code: failure.error.code, message: failure.error.message, gatewayCode: failure.error.gatewayCode };
      if (failure.definitive) await lifecycle.refused(order, error, 'create');
      else {
        // Recorded on the row (errorCode): the gateway may hold it live, so it stays `creating` for reconcile().
        await lifecycle.releaseCreate(order.orderNum, error);
        if (failure.error.code === 'gateway_response_invalid') this.deps.events.emit('warning', untrustedAnswer(order.orderNum, failure.error.message));
      }
      throw failure.error;
    }
  }

  /** Resolves once no create of this process is in flight (for `close()`). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inflight.values()]);
  }
}
