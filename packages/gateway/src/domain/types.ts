/** The gateway's domain objects. Amounts are integers of rupiah; times are epoch milliseconds. */
import type { MethodCode, OrderStatus } from '@tombolbayar/protocol';
import type { NotificationKind } from './notify-kinds.ts';

/** Which endpoint created the order: `/gateway/pay` (`va`) or `/gateway/prepaidOrder` (`link`). */
export type OrderKind = 'va' | 'link';

export interface Order {
  readonly platOrderNum: string;
  readonly merchantCode: string;
  readonly orderNum: string;
  readonly kind: OrderKind;
  readonly status: OrderStatus;
  /** null until chosen, for a payment link created without a method. */
  readonly method: MethodCode | null;
  /**
   * What the customer pays with (see `domain/payment-codes.ts`), by kind: VA number (virtual
   * account), payment code (retail), the QRIS payload string to encode as a QR image (qr), a
   * payment reference (e-wallet). null while no method is chosen.
   */
  readonly vaNumber: string | null;
  readonly payMoney: number;
  /** Fee the platform charges the merchant; null while no method is chosen. */
  readonly payFee: number | null;
  readonly productDetail: string;
  readonly name: string;
  readonly email: string;
  readonly phone: string;
  readonly notifyUrl: string;
  readonly redirectUrl: string | null;
  /** Minutes, as requested. */
  readonly expiryPeriod: number;
  /** The merchant's `dateTime`, in the canonical `yyyyMMddHHmmss` Jakarta form (an ISO 8601 one converted). */
  readonly requestDateTime: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly paidAt: number | null;
  /** When the order left PENDING. */
  readonly closedAt: number | null;
}

export interface Merchant {
  readonly merchantCode: string;
  readonly name: string | null;
  /** SPKI PEM. */
  readonly publicKey: string;
  /** The final states it is notified of: always `paid`, `failed` and `expired` on request. */
  readonly notify: readonly NotificationKind[];
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** A final state that is notified to the merchant. */
export type FinalStatus = Exclude<OrderStatus, 'PENDING'>;
