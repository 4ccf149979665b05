/**
 * The plug-in's tables. One row per order, holding everything needed to answer a replayed click,
 * verify a notification, serve the status and run `onPaid` until it succeeds.
 *
 * Times are ISO 8601 UTC strings with milliseconds (`2026-01-31T12:00:00.000Z`): fixed width, so
 * they compare correctly as text on both engines. Amounts are digit strings, as on the wire.
 */

/** `creating`: stored, the gateway call is under way or its outcome is not known yet. */
export const ORDER_STATUSES = ['creating', 'pending', 'paid', 'expired', 'failed'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** `link`: a payment link (prepaidOrder); `va`: a Create VA order (operation 1). */
export type OrderKind = 'link' | 'va';

export interface OrdersTable {
  order_num: string;
  kind: OrderKind;
  status: OrderStatus;
  /** The browser's key (or the merchant's), unique; null for orders created without one. */
  idempotency_key: string | null;
  /** SHA-256 of the request that created the order, to refuse the same key with another body. */
  request_hash: string | null;
  status_token: string;
  merchant_code: string;
  pay_money: string;
  product_detail: string;
  customer_name: string;
  email: string;
  phone: string;
  method: string | null;
  expiry_period: number;
  item: string | null;
  /** JSON of the merchant's `metadata` from `quote()`. */
  metadata: string | null;
  /** The merchant's own id of the purchase (`quote()`'s `reference`: a cart or order id). */
  reference: string | null;
  /**
   * `reference`, kind, amount and requested method in one indexed value: at most one order per
   * purchase key is `creating` or `pending` (a partial unique index), so two tabs get one order.
   */
  purchase_key: string | null;
  /** The page that started the payment, for the full-page return. */
  return_to: string | null;
  plat_order_num: string | null;
  pay_url: string | null;
  va_number: string | null;
  pay_fee: string | null;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  paid_at: string | null;
  /** Held by the request that is calling the gateway for this order. */
  create_lease_until: string | null;
  /** Why creation failed (a `PayButtonError` code), replayed to a repeated click. */
  error_code: string | null;
  error_message: string | null;
  gateway_code: string | null;
  /** Last time the gateway was asked about this order (status poll, reconcile). */
  checked_at: string | null;
  /** Set once `onPaid` has returned; never cleared. */
  fulfilled_at: string | null;
  fulfil_attempts: number;
  fulfil_lease_until: string | null;
  fulfil_error: string | null;
  /** The state the order left at its last transition (written with it, for the event). */
  previous_status: OrderStatus | null;
  /** When the customer's name, e-mail and phone were redacted (retention or erasure); null while kept. */
  redacted_at: string | null;
}

/** Named leases: which process does a background job (the notification sweep) right now. */
export interface LeasesTable {
  name: string;
  owner: string;
  expires_at: string;
}

/**
 * The first paid order of each purchase (`reference` and amount): claimed under a unique key when
 * an order is found paid, so of two paid at once exactly one is first (the other is the duplicate).
 */
export interface FirstPaidTable {
  reference: string;
  pay_money: string;
  order_num: string;
}

export interface PayButtonDatabase {
  tombolbayar_orders: OrdersTable;
  tombolbayar_leases: LeasesTable;
  tombolbayar_first_paid: FirstPaidTable;
}
