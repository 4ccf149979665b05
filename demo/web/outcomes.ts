/**
 * What the shop page says about a payment: one message per outcome, next to the element that made
 * it, and what a change of the cart does to an attempt.
 *
 * - The element speaks while an attempt runs (its own status line); once it ended, the page says
 *   the outcome once, here, and the element's status line is hidden (styles.css). `<pay-va>`'s
 *   paid, expired and failed panels already say their outcome in place of the number, so the page
 *   adds nothing to them.
 * - A new attempt clears the message; so does a change of the cart, except about an order that
 *   can still be paid: a VA number, a retail code or a QR code may be paid minutes or hours after
 *   the cart changed, so that order stays on screen and watched, and the page says it is still
 *   open (and updates when it is paid) instead of dropping it. The next payment is for the new cart.
 * - An order pays for the cart it was made for: the cart empties only when that is still the cart
 *   on the page.
 */
import type { PayButton, PayVa } from '@tombolbayar/pay-button';
import { t } from './words.ts';

/** The page's side of the outcomes of one element. */
export interface Outcomes {
  /** The cart changed: clear what was about the old one, or say that its order is still open. */
  cartChanged(): void;
}

export interface OutcomeOptions {
  /** The cart on the page, as JSON: what an order is for. */
  cart(): string;
  /**
   * Whether another tab said order `orderNum` paid the cart this page shows (and emptied it): this
   * page's outcome for that order is then about the cart it was for, not an earlier one.
   */
  paidThisCart(orderNum: string): boolean;
  /**
   * Empties the cart: its order `orderNum` is paid. `here`: this tab paid it (the payment page,
   * or the number, was this tab's when the payment landed), so it says "Paid", and the other tabs
   * "paid in another tab".
   */
  paid(orderNum: string, here: boolean): void;
  /**
   * An order for an earlier content of this cart was paid: the cart's id is spent (the shop's
   * `reference` for that content is paid), so the cart as it is now goes on under a new id, and
   * the same content asked again is a new purchase.
   */
  spent(): void;
  /** The order a full-page return brought this page back for, if any (read before the element tidies the address). */
  readonly returned?: string | null;
  /** What to show when the cart changed while order `orderNum` (for the earlier cart) is still open. */
  stillOpen(orderNum: string): (Node | string)[];
}

/**
 * A failure in the customer's words: a refusal of the merchant's `quote()` (sold out, ...) in its
 * own words with no "try again"; a payment service that cannot be reached (or is busy) says so,
 * and that nothing was charged. The code and the technical message stay in the event (the
 * browser's console, the merchant's log), never on the page.
 */
function failureWords(detail: { code: string; retryable: boolean; message: string }): string {
  if (refused(detail)) return detail.message;
  return detail.retryable ? t('unreachableMsg') : t('errorMsg');
}

/**
 * A refusal of the merchant's `quote()` (sold out, ...), or of a cart another order paid
 * (`already_paid`, in the page's language): its own words, with no "try again".
 */
function refused(detail: { code: string; retryable: boolean }): boolean {
  return !detail.retryable && /^(not_for_sale|quote_refused|already_paid)$/.test(detail.code);
}

/** The cart each order was made for, kept for the tab (a reload picks the order up again). */
const KEY = 'demo-order-carts';
function cartOf(orderNum: string): string | undefined {
  return (JSON.parse(sessionStorage.getItem(KEY) ?? '{}') as Record<string, string>)[orderNum];
}
function rememberCart(orderNum: string, cart: string): void {
  sessionStorage.setItem(KEY, JSON.stringify({ ...JSON.parse(sessionStorage.getItem(KEY) ?? '{}'), [orderNum]: cart }));
}

/** Wires `element` to the message in `result`. */
export function wireOutcomes(element: PayButton | PayVa, result: HTMLElement, options: OutcomeOptions): Outcomes {
  const say = (...content: (Node | string)[]) => {
    result.replaceChildren(...content);
    // The element focuses itself when an attempt ends; when the page then disables it (a paid,
    // emptied cart) focus would drop to <body>: the message takes it, so it is read and in view.
    if (content.length) {
      queueMicrotask(() => {
        const active = document.activeElement;
        if (active !== document.body && active !== element && active !== null) return;
        if (active === element && !(element as PayButton).disabled) return;
        result.tabIndex = -1;
        result.focus();
      });
    }
  };
  const isButton = element.localName === 'pay-button';
  /** The order of the last `pay-pending` (`<pay-button>`; `<pay-va>` shows its own `order`). */
  let pending: string | undefined;
  const awaits = (orderNum: string) => t('awaits', { order: orderNum });

  /** The payment page (or `<pay-va>`'s number) is this tab's, from `pay-open` until the attempt ends. */
  let attempt = false;
  element.addEventListener('pay-click', () => say());
  // A restored order (a reload) keeps the cart it was remembered with.
  element.addEventListener('pay-open', (event) => {
    attempt = true;
    if (!event.detail.restored) rememberCart(event.detail.orderNum, options.cart());
  });
  // A popup closed, or an attempt that failed: what arrives later is seen, not paid, here.
  for (const name of ['pay-pending', 'pay-cancel', 'pay-failure', 'pay-error']) element.addEventListener(name, () => (attempt = isButton ? false : attempt));
  element.addEventListener('pay-success', (event) => {
    const { orderNum } = event.detail;
    const same = options.paidThisCart(orderNum) || (cartOf(orderNum) ?? options.cart()) === options.cart();
    // <pay-va>'s paid panel already says it, unless the paid order is for an earlier cart.
    if (isButton || !same) say(t(same ? 'paidMsg' : 'paidEarlierMsg', { order: orderNum }));
    if (same) options.paid(orderNum, attempt || orderNum === options.returned);
    // An earlier cart was paid: the cart as it is now is still to pay, so the element is ready again.
    else {
      options.spent();
      element.reset();
    }
  });
  element.addEventListener('pay-pending', (event) => say(awaits((pending = event.detail.orderNum))));
  element.addEventListener('pay-failure', (event) => {
    // <pay-va>'s expired and failed panels already say it.
    if (isButton) say(t(event.detail.status === 'expired' ? 'expiredMsg' : 'failedMsg', { order: event.detail.orderNum }));
  });
  // Another order of this cart paid it (another tab's number or link): nothing to pay here.
  element.addEventListener('pay-cancel', (event) => {
    const { reason, paidWith } = event.detail;
    say(reason === 'paid-elsewhere' && paidWith ? t('paidElsewhereMsg', { order: paidWith }) : t('cancelledMsg'));
  });
  element.addEventListener('pay-error', (event) => {
    // For the developer trying the demo: the technical cause, in the console only.
    console.info('pay-error', event.detail);
    say(failureWords(event.detail));
  });

  return {
    cartChanged() {
      const open = element.state === 'pending' ? (isButton ? pending : (element as PayVa).order?.orderNum) : undefined;
      if (open) return say(...(cartOf(open) === options.cart() ? [awaits(open)] : options.stillOpen(open)));
      say();
      // A paid <pay-button> sells again only after reset(); <pay-va> leaves its old panel for its button.
      if (isButton ? element.state === 'paid' : /paid|expired|failed|error/.test(element.state)) element.reset();
    },
  };
}
