/**
 * The order lifecycle: the only code that writes an order's state. Every write is one
 * compare-and-set of the store, allowed by the transition table (`transitions.ts`); every move
 * that wins emits `order.transition`; a paid order that has not been fulfilled starts `onPaid`
 * (`fulfilment.ts`) from here and nowhere else.
 *
 * The routes and `reconcile()` only say what they learnt: "stored", "the gateway registered it",
 * "the gateway refused it", "the gateway confirmed this" (through `confirmAndApply`, which asks
 * first: only the gateway's answer to our own query moves an order, see `confirm.ts`).
 */
import { PayButtonError } from '../errors.ts';
import type { ConfirmationSource, OrderTransitionEvent, PayButtonEvents } from '../events.ts';
import type { GatewayFacts, NewOrder, Order, OrderStore } from '../store/orders.ts';
import type { OrderStatus } from '../store/schema.ts';
import { finalStatusOf, type Confirmation, type GatewayConfirmer } from './confirm.ts';
import type { ClaimedLease, Fulfilment, FulfilmentResult, FulfilmentSource } from './fulfilment.ts';
import { allowedFrom, findTransition, type Cause } from './transitions.ts';

export type TransitionSource = OrderTransitionEvent['source'];

/** What a caller does about `onPaid` once the order is found paid and not yet fulfilled. */
export type OnPaidMode =
  /** Run it and wait (a notification is acknowledged only after it returned). */
  | 'await'
  /** Run it after answering (the customer waits for the status, not for fulfilment). */
  | 'background'
  /** Leave it to the caller's own `fulfil()` call (reconcile runs and counts it in its last pass). */
  | 'deferred';

export interface Applied {
  readonly changed: boolean;
  readonly order: Order;
  /** Set when `onPaid` was run and awaited. */
  readonly fulfilment?: FulfilmentResult | undefined;
}

/** A settled order, with the `onPaid` lease when the move to `paid` took it. */
interface Settled {
  readonly changed: boolean;
  readonly order: Order;
  readonly claimed?: ClaimedLease | undefined;
}

export interface CreateError {
  readonly code: string;
  readonly message: string;
  readonly gatewayCode?: string | undefined;
}

export interface LifecycleDeps {
  readonly orders: OrderStore;
  readonly events: PayButtonEvents;
  readonly confirmer: GatewayConfirmer;
  readonly fulfilment: Fulfilment;
  readonly now: () => Date;
}

const afterIo = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** True when the gateway's facts tell something the stored order does not have yet. */
function factsAdd(order: Order, facts: GatewayFacts): boolean {
  return (facts.method !== undefined && facts.method !== order.method)
    || (facts.vaNumber !== undefined && facts.vaNumber !== order.vaNumber)
    || (facts.payFee !== undefined && facts.payFee !== order.payFee);
}

export class OrderLifecycle {
  private readonly background = new Set<Promise<unknown>>();

  constructor(private readonly deps: LifecycleDeps) {}

  /** Emit one move, after checking the table allows it (a move outside it is a bug, said loudly). */
  private moved(order: Pick<Order, 'orderNum' | 'kind'>, from: OrderStatus | null, to: OrderStatus, cause: Cause, source: TransitionSource, at: Date): void {
    if (!findTransition(from, to, cause)) {
      this.deps.events.emit('warning', { code: 'internal', message: `order ${order.orderNum} moved ${from ?? '(new)'} -> ${to} (${cause}), a move the transition table does not list`, orderNum: order.orderNum });
    }
    this.deps.events.emit('order.transition', { orderNum: order.orderNum, kind: order.kind, from, to, source, at });
  }

  /**
   * Store a new order in `creating`, holding its create lease. `inserted: false` when its
   * idempotency key or its purchase already has an order: that one (or `undefined` when it moved
   * on between the insert and the read).
   */
  async open(order: NewOrder, leaseUntil: Date): Promise<{ readonly inserted: true; readonly order: Order } | { readonly inserted: false; readonly order: Order | undefined }> {
    const now = this.deps.now();
    const stored = await this.deps.orders.insertCreating(order, now, leaseUntil);
    if (stored.inserted) this.moved(stored.order, null, 'creating', 'stored', 'create', now);
    return stored;
  }

  /** Take the create lease of an order still in `creating` whose lease ran out. */
  claimCreate(orderNum: string, leaseUntil: Date): Promise<boolean> {
    return this.deps.orders.claimCreateLease(orderNum, this.deps.now(), leaseUntil);
  }

  /** The create's outcome is still unknown: stay `creating`, free the lease, remember why. */
  releaseCreate(orderNum: string, error: CreateError): Promise<void> {
    return this.deps.orders.releaseCreateLease(orderNum, this.deps.now(), error);
  }

  /**
   * creating -> pending: the gateway has the order (`facts`). When a notification overtook the
   * create's answer (the order is already paid), the facts are still recorded (the link is kept).
   */
  async registered(order: Order, facts: GatewayFacts, source: TransitionSource): Promise<Order> {
    const now = this.deps.now();
    // A link created without a method is one the customer picks a method for on the hosted page:
    // the first status poll after the popup closes must ask the gateway, not find a fresh check.
    const methodKnown = (order.method ?? facts.method ?? null) !== null;
    const created = await this.deps.orders.markCreated(order.orderNum, facts, now, methodKnown ? now : null);
    if (created) {
      this.moved(order, 'creating', 'pending', 'registered', source, now);
      return created;
    }
    const recorded = await this.deps.orders.recordFacts(order.orderNum, facts, now);
    if (!recorded) throw new PayButtonError('internal', 'The order disappeared while it was being created.');
    return recorded;
  }

  /** creating -> failed: the gateway certainly did not take the order. */
  async refused(order: Order, error: CreateError, source: TransitionSource): Promise<boolean> {
    const now = this.deps.now();
    const failed = await this.deps.orders.markCreateFailed(order.orderNum, now, error);
    if (failed) this.moved(order, 'creating', 'failed', 'refused', source, now);
    return failed;
  }

  /**
   * Apply what the gateway confirmed. A final state is a compare-and-set from the states the table
   * allows (nothing leaves `paid`); a confirmed `PENDING` only records what the gateway learnt
   * since the create (the method, payment code and fee chosen on the hosted page). `not_found` and
   * `undetermined` change nothing. A paid, unfulfilled order then runs `onPaid` as `mode` says;
   * unless `deferred`, the move to `paid` takes the run's lease in the same write.
   */
  async apply(order: Order, confirmation: Confirmation, source: Exclude<TransitionSource, 'create'>, mode: OnPaidMode): Promise<Applied> {
    let applied: Settled = { changed: false, order };
    if (confirmation.kind === 'confirmed') {
      // The expiry the order was created with stays the one its customer was shown.
      const facts = order.expiresAt ? { ...confirmation.facts, expiresAt: undefined } : confirmation.facts;
      const to = finalStatusOf(confirmation.status);
      if (to !== undefined) applied = await this.settle(order, to, { facts, source, claim: mode !== 'deferred' });
      else if (order.status === 'pending' && factsAdd(order, facts)) {
        applied = { changed: false, order: (await this.deps.orders.recordFacts(order.orderNum, facts, this.deps.now())) ?? order };
      }
    }
    const { claimed, ...result } = applied;
    const after = result.order;
    if (after.status !== 'paid' || after.fulfilledAt || mode === 'deferred') return result;
    if (mode === 'background') {
      // After the caller's answer is written, as a claim's round trip used to make sure.
      this.inBackground(claimed ? afterIo().then(() => this.deps.fulfilment.runClaimed(claimed, source)) : this.fulfil(after.orderNum, source), after.orderNum);
      return result;
    }
    return { ...result, fulfilment: await (claimed ? this.deps.fulfilment.runClaimed(claimed, source) : this.fulfil(after.orderNum, source)) };
  }

  /** Ask the gateway (`confirm.ts`) on behalf of `asker`; `apply` its answer. */
  confirm(order: Order, asker: ConfirmationSource): Promise<Confirmation> {
    return this.deps.confirmer.confirm(order, { source: asker });
  }

  /**
   * Ask the gateway (`confirm.ts`), then apply its answer: what a poll or reconcile does. `asker`
   * names who asked in `order.confirmation` (a status poll and a return page both move orders as
   * `query`); by default the one `source` stands for.
   */
  async confirmAndApply(
    order: Order, source: Exclude<TransitionSource, 'create'>, mode: OnPaidMode, asker: ConfirmationSource = source === 'query' ? 'status' : source,
  ): Promise<Applied & { readonly confirmation: Confirmation }> {
    const confirmation = await this.confirm(order, asker);
    return { confirmation, ...(await this.apply(order, confirmation, source, mode)) };
  }

  /** `claim`: a move to `paid` also takes the `onPaid` lease (`claimed`), for the caller to run at once. */
  private async settle(
    order: Order, to: 'paid' | 'expired' | 'failed',
    { facts, source, claim }: { readonly facts: GatewayFacts; readonly source: TransitionSource; readonly claim: boolean },
  ): Promise<Settled> {
    const lease = claim && to === 'paid' ? this.deps.fulfilment.lease() : undefined;
    const now = lease?.now ?? this.deps.now();
    const moved = await this.deps.orders.transition(order.orderNum, allowedFrom(to, 'confirmed'), to, facts, now, lease?.until);
    if (!moved) {
      // Another writer got there first: the order as it is now.
      const current = await this.deps.orders.get(order.orderNum);
      if (!current) throw new PayButtonError('internal', `Order ${order.orderNum} disappeared.`);
      return { changed: false, order: current };
    }
    this.moved(moved.order, moved.left, to, 'confirmed', source, now);
    if (to !== 'paid') return { changed: true, order: moved.order };
    const duplicateOf = await this.reportDuplicate(moved.order);
    const claimed = lease && moved.attempt !== undefined ? { attempt: moved.attempt, order: moved.order, started: lease.started, duplicateOf } : undefined;
    return { changed: true, order: moved.order, claimed };
  }

  /** A second paid order of one reference is never silent: an event now, `duplicateOf` in `onPaid`. */
  private async reportDuplicate(order: Order): Promise<string | null> {
    const duplicateOf = await this.deps.orders.duplicateOf(order);
    if (duplicateOf === null || order.reference === null) return duplicateOf;
    this.deps.events.emit('order.duplicate_paid', { orderNum: order.orderNum, duplicateOf, reference: order.reference, payMoney: order.payMoney });
    return duplicateOf;
  }

  /** Run `onPaid` for a paid order now (fenced, see `fulfilment.ts`). */
  fulfil(orderNum: string, source: FulfilmentSource): Promise<FulfilmentResult> {
    return this.deps.fulfilment.run(orderNum, source);
  }

  /** Run `onPaid` without making the caller wait; `close()` waits for it. */
  fulfilInBackground(orderNum: string, source: FulfilmentSource): void {
    this.inBackground(this.fulfil(orderNum, source), orderNum);
  }

  private inBackground(run: Promise<FulfilmentResult>, orderNum: string): void {
    const task = run
      .catch((error: unknown) => this.deps.events.emit('warning', { code: 'background_failed', message: `onPaid could not be run for order ${orderNum}`, orderNum, error }))
      .finally(() => this.background.delete(task));
    this.background.add(task);
  }

  /** Take the right to ask the gateway about a pending order (at most once per `interval`, across processes). */
  claimRefresh(orderNum: string, intervalMs: number): Promise<boolean> {
    const now = this.deps.now();
    return this.deps.orders.claimCheck(orderNum, now, new Date(now.getTime() - intervalMs));
  }

  /** The latest request knows where the customer is now (a popup retried as a full page). */
  updateReturnTo(orderNum: string, returnTo: string): Promise<void> {
    return this.deps.orders.updateReturnTo(orderNum, returnTo, this.deps.now());
  }

  /** Shutdown: abort running `onPaid` signals, wait for them and for background work. */
  async close(): Promise<void> {
    await this.deps.fulfilment.close();
    await Promise.allSettled([...this.background]);
  }
}
