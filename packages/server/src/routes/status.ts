/**
 * `GET /orders/:orderNum` with the order's status token in the `Tombolbayar-Status-Token` header:
 * what the element asks after the customer returns, never trusting query parameters. The token
 * never travels in a URL (proxies and access logs keep those). A missing, malformed or wrong token
 * and an unknown order all get the same 404 (nothing to enumerate); the token is compared in
 * constant time; `no-store` everywhere.
 *
 * While an order is pending, a poll may ask the gateway itself (at most once per
 * `statusRefreshMs` per order, across processes; once a second while no method is known), so a
 * customer is not left waiting on a late notification, and a method chosen on the hosted page is
 * known when the popup closes. The answer is applied by the lifecycle (`orders/lifecycle.ts`), like a notification's confirmation, so a
 * poll racing a notification still fires `onPaid` exactly once.
 *
 * An order of a purchase (`reference`) says what the purchase's other orders mean for it: paid
 * by another one (`paidWith`: do not pay this one), or paid after another one (`duplicateOf`).
 */
import type { PayButtonEvents } from '../events.ts';
import type { RouteHandler } from '../http/context.ts';
import { orderForToken, type OrderReader } from '../http/order-access.ts';
import { jsonAnswer } from '../http/respond.ts';
import type { OrderLifecycle } from '../orders/lifecycle.ts';
import type { Order, OrderStore } from '../store/orders.ts';

/**
 * What the status route uses: it reads the order and the other orders of its purchase, and may
 * have the lifecycle ask the gateway.
 */
export interface StatusDeps extends OrderReader {
  readonly orders: Pick<OrderStore, 'get' | 'paidInstead' | 'duplicateOf'>;
  readonly lifecycle: OrderLifecycle;
  readonly events: PayButtonEvents;
  /** `statusRefreshMs` of the options. */
  readonly refreshMs: number | false;
}

/** The status body; `creating` is reported as `pending` (the element cannot tell them apart anyway). */
export interface OrderStatusBody {
  readonly orderNum: string;
  readonly status: 'pending' | 'paid' | 'expired' | 'failed';
  readonly payMoney: string;
  /**
   * The fee of the chosen method (digits), once the gateway said: the customer transfers
   * `payMoney + payFee` (a VA of the wrong amount is refused). Absent while unknown.
   */
  readonly payFee?: string;
  readonly method: string | null;
  readonly vaNumber?: string;
  /** ISO 8601. */
  readonly paidAt?: string;
  /** ISO 8601: until when a pending order may be paid, once the gateway said. */
  readonly expiresAt?: string;
  /**
   * `false` when this pending answer could not be checked with the gateway (it did not answer):
   * a method may have been chosen on the hosted page without the store knowing yet, so the
   * element says "not confirmed yet" rather than "cancelled". `true` on a pending answer with no
   * method that was checked with the gateway for this very answer (so "no method" is the
   * gateway's word, not the store's, and the element may say "not started" after a "not confirmed
   * yet"). Absent otherwise (answered from the store between two questions to the gateway).
   */
  readonly confirmed?: boolean;
  /**
   * On an order that is not paid: its purchase (the merchant's `reference`) was paid by this other
   * order (another tab's number or link), so there is nothing left to pay here, and paying this
   * one too would pay twice. The order itself stays open at the gateway (the family has no
   * cancellation): the element says not to pay it.
   */
  readonly paidWith?: string;
  /**
   * On a paid order: the purchase had been paid already by this other order. The customer paid
   * twice; the shop refunds one (`order.duplicate_paid` tells the merchant).
   */
  readonly duplicateOf?: string;
}

/** The other order of the purchase that bears on this one's answer (see `OrderStatusBody`). */
export interface PurchaseFacts {
  readonly paidWith?: string | null;
  readonly duplicateOf?: string | null;
}

/**
 * `confirmed`: `false` (could not check), `true` (checked now), `undefined` (not asked this time).
 * `purchase`: what the purchase's other orders say of this one.
 */
export function toStatusBody(order: Order, confirmed?: boolean, purchase: PurchaseFacts = {}): OrderStatusBody {
  return {
    orderNum: order.orderNum,
    status: order.status === 'creating' ? 'pending' : order.status,
    payMoney: order.payMoney,
    ...(order.payFee !== null ? { payFee: order.payFee } : {}),
    method: order.method,
    ...(order.vaNumber ? { vaNumber: order.vaNumber } : {}),
    ...(order.paidAt ? { paidAt: order.paidAt.toISOString() } : {}),
    ...(order.status === 'pending' && order.expiresAt ? { expiresAt: order.expiresAt.toISOString() } : {}),
    // `true` only where it tells something: a pending order the gateway says has no method yet.
    ...(order.status !== 'pending' || confirmed === undefined || (confirmed && order.method) ? {} : { confirmed }),
    ...((order.status === 'pending' || order.status === 'creating') && purchase.paidWith ? { paidWith: purchase.paidWith } : {}),
    ...(order.status === 'paid' && purchase.duplicateOf ? { duplicateOf: purchase.duplicateOf } : {}),
  };
}

/** What the purchase's other orders say of `order`: asked only for an order with a reference. */
async function purchaseFacts(orders: StatusDeps['orders'], order: Order): Promise<PurchaseFacts> {
  if (order.reference === null) return {};
  if (order.status === 'paid') return { duplicateOf: await orders.duplicateOf(order) };
  return order.status === 'pending' || order.status === 'creating' ? { paidWith: await orders.paidInstead(order) } : {};
}


/**
 * A link whose method is not known yet is asked about at most this often, whatever
 * `statusRefreshMs` says: the element decides between "awaits payment" and "cancelled" on whether
 * the customer picked a method on the hosted page, and asks right after the popup closes.
 */
export const METHOD_UNKNOWN_REFRESH_MS = 1_000;

/**
 * While the order is pending, ask the gateway (rate-limited per order, across processes) and apply
 * its answer. `confirmed` is false when the gateway was asked and could not say (unreachable, an
 * answer that does not verify): the stored answer may be behind what the customer did there.
 */
async function refresh(deps: StatusDeps, order: Order): Promise<{ order: Order; confirmed?: boolean }> {
  const configured = deps.refreshMs;
  if (configured === false || order.status !== 'pending') return { order };
  const interval = order.method === null ? Math.min(configured, METHOD_UNKNOWN_REFRESH_MS) : configured;
  if (!(await deps.lifecycle.claimRefresh(order.orderNum, interval))) return { order };
  // The customer is waiting for the answer, not for onPaid: it runs after responding.
  const applied = await deps.lifecycle.confirmAndApply(order, 'query', 'background');
  return { order: applied.order, confirmed: applied.confirmation.kind !== 'undetermined' };
}

export function statusHandler(deps: StatusDeps): RouteHandler {
  return async (request, context) => {
    const order = await orderForToken(deps, request, context.params.orderNum);
    let current = order;
    let confirmed: boolean | undefined;
    try {
      ({ order: current, confirmed } = await refresh(deps, order));
    } catch (error) {
      confirmed = false;
      deps.events.emit('warning', { code: 'status_refresh_failed', message: `could not refresh order ${order.orderNum} from the gateway`, error });
    }
    return jsonAnswer(200, toStatusBody(current, confirmed, await purchaseFacts(deps.orders, current)), { 'Cache-Control': 'no-store' });
  };
}
