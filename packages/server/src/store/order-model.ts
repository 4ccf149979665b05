/**
 * The order as the rest of the package sees it (camelCase, Dates), and its mapping to and from
 * the row. Kept apart from the queries so the store reads as a list of state changes.
 */
import type { Selectable } from 'kysely';
import type { Order as PublicOrder } from '../public-order.ts';
import type { OrdersTable } from './schema.ts';

/**
 * The stored order: the merchant's view (`public-order.ts`, what `toPublicOrder()` copies) plus
 * the router's bookkeeping, some of it secret, which never leaves the package.
 */
export interface Order extends PublicOrder {
  readonly expiryPeriod: number;
  readonly returnTo: string | null;
  readonly idempotencyKey: string | null;
  readonly requestHash: string | null;
  readonly statusToken: string;
  readonly createLeaseUntil: Date | null;
  readonly checkedAt: Date | null;
  readonly purchaseKey: string | null;
}

/** The fields an order is opened with; the rest (status, gateway facts, times) the store sets. */
export type NewOrder = Pick<
  Order,
  | 'orderNum' | 'kind' | 'idempotencyKey' | 'requestHash' | 'statusToken' | 'payMoney' | 'productDetail' | 'name' | 'email' | 'phone'
  | 'method' | 'expiryPeriod' | 'item' | 'metadata' | 'returnTo' | 'reference' | 'purchaseKey'
> & { readonly merchantCode: string };

/** What the gateway told us when it accepted the order (or when a query found it). */
export interface GatewayFacts {
  readonly platOrderNum?: string | undefined;
  readonly url?: string | undefined;
  readonly vaNumber?: string | undefined;
  readonly payFee?: string | undefined;
  readonly method?: string | undefined;
  readonly expiresAt?: Date | undefined;
  readonly paidAt?: Date | undefined;
}

export const iso = (at: Date): string => at.toISOString();
const date = (value: string | null): Date | null => (value === null ? null : new Date(value));

/** Told about a stored value that cannot be read back (the order is still served, without it). */
export type UnreadableRow = (orderNum: string, column: string, error: unknown) => void;

/**
 * The row as an order. Metadata that no longer parses (edited by hand, a truncated write) is
 * given as `null`, and `unreadable` is told, with the parse error, so it reaches a `warning`.
 */
export function toOrder(row: Selectable<OrdersTable>, unreadable?: UnreadableRow): Order {
  let metadata: Record<string, unknown> | null = null;
  if (row.metadata !== null) {
    try {
      metadata = JSON.parse(row.metadata) as Record<string, unknown>;
    } catch (error) {
      unreadable?.(row.order_num, 'metadata', error);
      metadata = null;
    }
  }
  return {
    orderNum: row.order_num,
    kind: row.kind,
    status: row.status,
    payMoney: row.pay_money,
    productDetail: row.product_detail,
    name: row.customer_name,
    email: row.email,
    phone: row.phone,
    method: row.method,
    item: row.item,
    metadata,
    reference: row.reference ?? null,
    duplicateOf: null,
    platOrderNum: row.plat_order_num,
    url: row.pay_url,
    vaNumber: row.va_number,
    payFee: row.pay_fee,
    expiryPeriod: Number(row.expiry_period),
    returnTo: row.return_to,
    createdAt: new Date(row.created_at),
    expiresAt: date(row.expires_at),
    paidAt: date(row.paid_at),
    fulfilledAt: date(row.fulfilled_at),
    fulfilAttempts: Number(row.fulfil_attempts),
    fulfilError: row.fulfil_error,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    gatewayCode: row.gateway_code,
    idempotencyKey: row.idempotency_key,
    requestHash: row.request_hash,
    statusToken: row.status_token,
    createLeaseUntil: date(row.create_lease_until),
    checkedAt: date(row.checked_at),
    purchaseKey: row.purchase_key ?? null,
  };
}

/** Only set the columns the gateway actually told us; never overwrite a known value with null. */
export function factColumns(facts: GatewayFacts): Partial<OrdersTable> {
  const columns: Partial<OrdersTable> = {};
  if (facts.platOrderNum) columns.plat_order_num = facts.platOrderNum;
  if (facts.url) columns.pay_url = facts.url;
  if (facts.vaNumber) columns.va_number = facts.vaNumber;
  if (facts.payFee) columns.pay_fee = facts.payFee;
  if (facts.method) columns.method = facts.method;
  if (facts.expiresAt) columns.expires_at = iso(facts.expiresAt);
  return columns;
}

export const truncate = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

