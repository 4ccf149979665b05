/**
 * The order as a merchant's code sees it (`onPaid`, `getOrder()`, `createPaymentLink().order`).
 *
 * The stored row also holds the customer's status token, the request fingerprint, the idempotency
 * key and the lease columns: bookkeeping of the router, some of it secret. Those stay inside; this
 * view is the promise the package makes, so every field here is one a merchant fulfils, reconciles
 * or debugs with, and the row can change without breaking anyone.
 */
import type { OrderKind, OrderStatus } from './store/schema.ts';

export type { OrderKind, OrderStatus };

/** An order as the merchant's code sees it. A new object on each call; changing it changes nothing. */
export interface Order {
  readonly orderNum: string;
  /** `link`: a payment link (hosted page); `va`: a payment number shown on the merchant's page. */
  readonly kind: OrderKind;
  /** `creating` until the gateway has accepted it; then `pending`, and finally `paid`, `expired` or `failed`. */
  readonly status: OrderStatus;
  /** Whole rupiah as digits, as on the wire (`"150000"`). */
  readonly payMoney: string;
  /** The fee the gateway quoted for the method, digits; null until known. */
  readonly payFee: string | null;
  /** The canonical method code (`VA_BCA`, `QRIS`) once known: chosen in the request or on the hosted page. */
  readonly method: string | null;
  /** The `item` the browser asked for, if any. */
  readonly item: string | null;
  /** What `quote()` returned as `productDetail`, `name`, `email`, `phone` and `metadata`. */
  readonly productDetail: string;
  readonly name: string;
  readonly email: string;
  readonly phone: string;
  readonly metadata: Readonly<Record<string, unknown>> | null;
  /** The merchant's id of the purchase, when `quote()` returned a `reference` (a cart id). */
  readonly reference: string | null;
  /**
   * Set when this order is a second payment of one `reference`: the orderNum of the order that
   * was paid first. The customer paid twice; fulfil once and refund one (an
   * `order.duplicate_paid` event says so too).
   */
  readonly duplicateOf: string | null;
  /** The gateway's number for the order, once it accepted it. */
  readonly platOrderNum: string | null;
  /** The hosted payment page (payment links). */
  readonly url: string | null;
  /** The virtual account number, retail code or QRIS payload the customer pays to. */
  readonly vaNumber: string | null;
  readonly createdAt: Date;
  readonly expiresAt: Date | null;
  readonly paidAt: Date | null;
  /** When `onPaid` first returned without throwing; null until then. */
  readonly fulfilledAt: Date | null;
  /** How many times `onPaid` has been started for this order. */
  readonly fulfilAttempts: number;
  /** The last `onPaid` failure (`Error: message`), until a run succeeds. */
  readonly fulfilError: string | null;
  /** Why a `failed` order failed: the router's error code, its message and the gateway's answer code. */
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
  readonly gatewayCode: string | null;
}

/**
 * The one mapping from the stored order (a superset of this view) to the public view: fields are
 * copied by name, never spread, so the router's bookkeeping stays behind.
 */
export function toPublicOrder(stored: Order): Order {
  return {
    orderNum: stored.orderNum,
    kind: stored.kind,
    status: stored.status,
    payMoney: stored.payMoney,
    payFee: stored.payFee,
    method: stored.method,
    item: stored.item,
    productDetail: stored.productDetail,
    name: stored.name,
    email: stored.email,
    phone: stored.phone,
    metadata: stored.metadata,
    reference: stored.reference,
    duplicateOf: stored.duplicateOf,
    platOrderNum: stored.platOrderNum,
    url: stored.url,
    vaNumber: stored.vaNumber,
    createdAt: stored.createdAt,
    expiresAt: stored.expiresAt,
    paidAt: stored.paidAt,
    fulfilledAt: stored.fulfilledAt,
    fulfilAttempts: stored.fulfilAttempts,
    fulfilError: stored.fulfilError,
    errorCode: stored.errorCode,
    errorMessage: stored.errorMessage,
    gatewayCode: stored.gatewayCode,
  };
}
