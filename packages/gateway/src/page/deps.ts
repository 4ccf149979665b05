/**
 * What the hosted payment page needs from the gateway, and nothing more. The page module
 * (`src/page/`) renders and handles the customer's actions; the gateway core implements these
 * functions on top of its store and mounts the page router. Keeping the seam this narrow lets the
 * page be tested against the real gateway without knowing how orders are stored.
 */
import type { MethodCode } from '@tombolbayar/protocol';
import type { Order } from '../domain/types.ts';

/** How the merchant's pages look, from its branding settings; every part null when not set. */
export interface PageBrand {
  /** An absolute http(s) URL or a base64 raster-image data URL (validated when it was saved). */
  readonly logo: string | null;
  /** `#rrggbb`. */
  readonly accentColor: string | null;
  /** How a customer reaches the merchant: an email address, a phone number or a URL, as plain text. */
  readonly supportContact: string | null;
}

export const NO_BRAND: PageBrand = Object.freeze({ logo: null, accentColor: null, supportContact: null });

/**
 * An order as the customer may see it: the order's own fields the page shows (its `status` with
 * expiry already applied for the gateway's clock), and the merchant's face. Amounts are integers
 * of rupiah; times are epoch ms.
 */
export interface PageOrder
  extends Pick<
    Order,
    | 'platOrderNum' | 'orderNum' | 'merchantCode' | 'status' | 'method' | 'vaNumber' | 'payMoney' | 'payFee'
    | 'productDetail' | 'name' | 'redirectUrl' | 'createdAt' | 'expiresAt' | 'paidAt'
  > {
  /** The merchant's display name (falls back to its code). */
  readonly merchantName: string;
  readonly brand: PageBrand;
  /**
   * Whether the customer may take back the method and choose another while the order is
   * pending: payment links only, where the method was chosen on this page.
   */
  readonly methodChangeable: boolean;
}

/** Why an action on the page was refused, in terms the page can translate for the customer. */
export type PageActionRefusal =
  | 'not-found'
  | 'not-pending'
  | 'method-already-chosen'
  | 'method-not-allowed'
  /** The method was set by the shop (not on this page), so it cannot be changed here. */
  | 'method-locked'
  /** The method changed in another window since this page was drawn. */
  | 'method-changed';

/**
 * What the page may say above the order: why an action was refused, or `shop-unreachable`: the
 * way back to the shop found it down (see `shop-probe.ts`), so the customer stays here.
 */
export type PageNotice = PageActionRefusal | 'shop-unreachable';

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
  /**
   * Take back the method of a PENDING payment link still set to `current` (the one the customer's
   * page shows), so another can be chosen; its payment code stops being payable. Throws
   * PageActionError otherwise ('method-locked' when the shop fixed the method, 'method-changed' for an out-of-date page).
   */
  changeMethod(platOrderNum: string, current: MethodCode): Promise<PageOrder>;
  /** The gateway's clock in epoch ms (the sandbox can advance it). */
  now(): number;
  /** Present only in sandbox mode: the same transitions as the sandbox JSON API. */
  readonly sandbox?: {
    pay(platOrderNum: string): Promise<PageOrder>;
    expire(platOrderNum: string): Promise<PageOrder>;
    fail(platOrderNum: string): Promise<PageOrder>;
  };
}
