/**
 * What the hosted payment page needs from the gateway, and nothing more. The page module
 * (`src/page/`) renders and handles the customer's actions; the gateway core implements these
 * functions on top of its store and mounts the page router. Keeping the seam this narrow lets the
 * page be tested against the real gateway without knowing how orders are stored.
 */
import type { MethodCode, OrderStatus } from '@tombolbayar/protocol';

/** An order as the customer may see it. Amounts are integers of rupiah; times are epoch ms. */
export interface PageOrder {
  readonly platOrderNum: string;
  readonly orderNum: string;
  readonly merchantCode: string;
  /** The merchant's display name (falls back to its code). */
  readonly merchantName: string;
  /** Current state, with expiry already applied for the gateway's clock. */
  readonly status: OrderStatus;
  /** null until the customer picks one on the page (payment link created without a method). */
  readonly method: MethodCode | null;
  /**
   * What the customer pays with, by kind: VA number (virtual account), payment code (retail),
   * the QRIS payload string to encode as a QR image (qr), a payment reference (e-wallet).
   * null while no method is chosen.
   */
  readonly vaNumber: string | null;
  readonly payMoney: number;
  /** null while no method is chosen. */
  readonly payFee: number | null;
  readonly productDetail: string;
  readonly name: string;
  readonly redirectUrl: string | null;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly paidAt: number | null;
}

/** Why an action on the page was refused, in terms the page can translate for the customer. */
export type PageActionRefusal = 'not-found' | 'not-pending' | 'method-already-chosen' | 'method-not-allowed';

export class PageActionError extends Error {
  override readonly name = 'PageActionError';
  constructor(readonly reason: PageActionRefusal, message: string) {
    super(message);
  }
}

export interface PaymentPageDeps {
  /** The order by its platform number, or undefined. Applies expiry on read. */
  findOrder(platOrderNum: string): Promise<PageOrder | undefined>;
  /**
   * Fix the method of a PENDING order that has none: assigns method, vaNumber and payFee in one
   * compare-and-set. Throws PageActionError otherwise (including amount outside the method's limits:
   * 'method-not-allowed').
   */
  chooseMethod(platOrderNum: string, method: MethodCode): Promise<PageOrder>;
  /** The gateway's clock in epoch ms (the sandbox can advance it). */
  now(): number;
  /** Present only in sandbox mode: the same transitions as the sandbox JSON API. */
  readonly sandbox?: {
    pay(platOrderNum: string): Promise<PageOrder>;
    expire(platOrderNum: string): Promise<PageOrder>;
    fail(platOrderNum: string): Promise<PageOrder>;
  };
}
