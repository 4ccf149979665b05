import { html, nothing } from 'lit';
import { formatRupiah } from '@paybutton/protocol/formats';
import { styles } from './pay-button.styles.ts';
import { createLink, getOrder, toPayError, type PaymentLink } from '../../internal/api.ts';
import { claimAttempt, dropAttempt, saveAttempt } from '../../internal/attempt-store.ts';
import { newIdempotencyKey } from '../../internal/idempotency.ts';
import { navigation } from '../../internal/navigate.ts';
import { RETURN_PARAM, isBusy, outcome, pickUp, withoutReturnParam, type PayButtonState, type Via } from '../../internal/outcome.ts';
import type { MessageKey } from '../../internal/i18n.ts';
import { PayElement } from '../../internal/pay-element.ts';
import { pollOrder } from '../../internal/poll.ts';
import { isInAppBrowser, openPlaceholder } from '../../internal/popup.ts';

export type { PayButtonState } from '../../internal/outcome.ts';

/** `auto`: popup, or a full-page redirect in in-app browsers; `popup`: always try the popup first; `redirect`: always leave the page. */
export type PayMode = 'auto' | 'popup' | 'redirect';

/**
 * A pay button: it asks the merchant's plug-in for a payment link, opens the hosted payment page
 * (a popup, or a full-page redirect where popups cannot work) and ends every attempt in exactly
 * one outcome, verified with the plug-in.
 *
 * @tagname pay-button
 * @summary One tag that opens the hosted payment page safely and ends in one verified outcome.
 *
 * @slot - The label. Defaults to "Pay" / "Bayar".
 * @slot prefix - Content before the label, such as an icon.
 * @slot suffix - Content after the label, such as an icon.
 *
 * @csspart button - The native `<button>`.
 * @csspart label - The label wrapper (default slot and amount).
 * @csspart amount - The amount in Rupiah, when `amount` is set.
 * @csspart spinner - The spinner shown while an attempt is in flight.
 * @csspart status - The polite live region under the button that says what is happening.
 *
 * @cssprop [--pay-button-bg=#0b5fff] - Background of the button.
 * @cssprop [--pay-button-fg=#fff] - Text colour of the button.
 * @cssprop [--pay-button-radius=0.5em] - Corner radius.
 * @cssprop [--pay-button-height=44px] - Minimum height (keep it at least 44px for touch).
 * @cssprop [--pay-button-padding=0.5em 1.25em] - Padding.
 * @cssprop [--pay-button-border=0] - Border.
 * @cssprop [--pay-button-font-weight=600] - Font weight of the label.
 * @cssprop [--pay-button-focus-ring=3px solid #0b5fff] - Keyboard focus outline.
 *
 * @cssstate idle - No attempt yet (or after `reset()`).
 * @cssstate loading - Asking the plug-in for a payment link.
 * @cssstate open - The payment page is open.
 * @cssstate checking - Asking the plug-in for the outcome.
 * @cssstate paid - Paid (verified).
 * @cssstate pending - The customer came back and the order still awaits payment (for example at an ATM).
 * @cssstate expired - The order expired.
 * @cssstate failed - The payment failed.
 * @cssstate cancelled - The customer left without paying.
 * @cssstate error - Something failed before an outcome was known.
 *
 * @event {PayClickEvent} pay-click - The customer asked to pay. Cancelable: cancel it to stop the attempt.
 * @event {PayOpenEvent} pay-open - The payment page is open (`mode`: `popup` or `redirect`). Cancelable in the full-page flow: cancel it to navigate to `detail.url` yourself.
 * @event {PayFallbackEvent} pay-fallback - The popup was blocked, or this is an in-app browser: the page redirects instead.
 * @event {PaySuccessEvent} pay-success - Terminal: the order is paid.
 * @event {PayPendingEvent} pay-pending - Terminal: the customer came back and the order still awaits payment.
 * @event {PayFailureEvent} pay-failure - Terminal: the order expired or failed.
 * @event {PayCancelEvent} pay-cancel - Terminal: the customer left without paying, or `reset()` ended the attempt.
 * @event {PayErrorEvent} pay-error - Terminal: the attempt failed (`code`, `retryable`).
 */
export class PayButton extends PayElement<PayButtonState> {
  static override styles = styles;
  static override shadowRootOptions: ShadowRootInit = { ...PayElement.shadowRootOptions, delegatesFocus: true };

  static override properties = {
    mode: {},
    amount: { type: Number },
    pollTimeout: { type: Number, attribute: 'poll-timeout' },
  };

  /** How to open the payment page. */
  declare mode: PayMode;
  /** Amount shown next to the label, in whole rupiah (display only: the server sets the price). */
  declare amount: number | undefined;
  /** How long to keep asking while the order is pending after a return, in ms. */
  declare pollTimeout: number;

  // The attempt in flight. Its AbortController is its identity: every continuation checks that
  // it is still the current one, so a late answer of an ended attempt changes nothing.
  #attempt: AbortController | undefined;
  /** The attempt's popup; null in the full-page flow. */
  #popup: Window | null = null;
  #orderNum: string | undefined;
  #token: string | undefined;
  #via: Via | undefined;
  #watch: ReturnType<typeof setInterval> | undefined;
  /** The key of an attempt that ended in a retryable error: the next attempt reuses it, so a lost answer never makes a second order. */
  #retryKey: string | undefined;

  constructor() {
    super('idle', 1000);
    this.mode = 'auto';
    this.pollTimeout = 60_000;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    addEventListener('message', this);
    addEventListener('pageshow', this);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    removeEventListener('message', this);
    removeEventListener('pageshow', this);
  }

  /**
   * After the first render, when frameworks that set properties after connecting (React) have set
   * them, and outside the update cycle.
   */
  protected override firstUpdated(): void {
    this.updateComplete.then(() => this.#pickUp());
  }

  /**
   * After a full-page flow, picks up the stored attempt this page load is about (see `pickUp`):
   * the return (`?paybutton_order=`) or the Back button. The status token comes from
   * sessionStorage only, never from the URL.
   */
  #pickUp(): void {
    const url = new URL(location.href);
    const returned = url.searchParams.get(RETURN_PARAM);
    const nav = (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined)?.type;
    let via: Via | undefined;
    const entry = claimAttempt((e) => !e.va && e.endpoint === this.endpoint && e.item === this.item && (via = pickUp(returned, nav, e.orderNum)));
    // Every element removes a `#paybutton_token=` fragment (never reading it); only the one that
    // claimed the order removes `paybutton_order`, which until then may be another element's.
    const clean = withoutReturnParam(url.href, !!(entry && returned));
    if (clean !== url.href) history.replaceState(history.state, '', clean);
    if (!entry) return;
    this.#begin(null, entry.orderNum, entry.statusToken);
    this.#check(this.#attempt, via!);
  }

  /**
   * Starts an attempt, as a click does. Call it inside a user gesture, or the popup is blocked and
   * the page redirects. Returns false when nothing started: disabled, already paid, an attempt in
   * flight (its popup is brought to the front), or `pay-click` cancelled.
   */
  pay(): boolean {
    if (this.#attempt) {
      this.#popup?.focus();
      return false;
    }
    if (this.disabled || this.state === 'paid' || !this.emit('pay-click', { item: this.item, method: this.method }, true)) return false;
    const key = this.#retryKey ?? newIdempotencyKey();
    const redirect = this.mode === 'redirect';
    const inApp = this.mode !== 'popup' && isInAppBrowser(navigator.userAgent);
    // Synchronously, inside the click: nothing may be awaited before window.open.
    const popup = redirect || inApp ? null : openPlaceholder(this.text('opening'), this.currentLocale);
    const attempt = this.#begin(popup);
    const fallback = !popup && !redirect;
    const message = fallback && !inApp ? 'blocked' : 'opening';
    this.setState('loading', message);
    if (fallback) this.emit('pay-fallback', { from: 'popup', to: 'redirect', reason: inApp ? 'in-app-browser' : 'popup-blocked' });
    if (popup) this.#watch = setInterval(() => popup.closed && this.#check(attempt, 'closed'), 400);
    const body = {
      ...this.fields,
      item: this.item,
      method: this.method,
      idempotencyKey: key,
      // The plug-in's return route sends the customer back here only in the full-page flow.
      returnTo: popup ? undefined : withoutReturnParam(location.href, true),
    };
    createLink(this.endpoint, body, attempt.signal).then(
      (link) => attempt === this.#attempt && !this.#via && this.#open(link, message),
      (err: unknown) => {
        if (attempt !== this.#attempt || this.#via) return;
        const e = toPayError(err);
        if (e.retryable) this.#retryKey = key;
        this.#finish('error', 'pay-error', e);
      },
    );
    return true;
  }

  /** Ends the attempt in flight (closing its popup, with `pay-cancel` reason `reset`) and returns to `idle`. */
  reset(): void {
    if (this.#attempt) this.#finish('cancelled', 'pay-cancel', { orderNum: this.#orderNum, reason: 'reset' });
    this.#retryKey = undefined;
    this.setState('idle');
  }

  #begin(popup: Window | null, orderNum?: string, token?: string): AbortController {
    this.#popup = popup;
    this.#orderNum = orderNum;
    this.#token = token;
    this.#via = this.#retryKey = undefined;
    return (this.#attempt = new AbortController());
  }

  /** The plug-in answered with a link: send the popup, or the page, there. */
  #open(link: PaymentLink, message: MessageKey): void {
    const popup = this.#popup;
    this.#orderNum = link.orderNum;
    this.#token = link.statusToken;
    this.setState('open', popup ? 'open' : message);
    if (!popup) {
      // Remembered before leaving, so the page can ask for the outcome when the customer comes back.
      saveAttempt({ orderNum: link.orderNum, statusToken: link.statusToken, endpoint: this.endpoint, item: this.item });
    }
    // In the full-page flow `pay-open` is cancelable: the page may navigate itself (location.replace, a router).
    const go = this.emit('pay-open', { orderNum: link.orderNum, mode: popup ? 'popup' : 'redirect', expiresAt: link.expiresAt, url: link.url }, !popup);
    // A placeholder the customer already closed is left to the watcher (pay-cancel).
    if (!popup) {
      if (go) navigation.go(link.url);
    } else if (!popup.closed) popup.location.replace(link.url);
  }

  /** Asks the plug-in for the outcome: polling for a while after a return, twice after a close. */
  async #check(attempt: AbortController | undefined, via: Via): Promise<void> {
    if (!attempt || attempt !== this.#attempt) return;
    if (this.#via) {
      // A return message right after the popup closed still means "returned".
      if (via === 'return') this.#via = via;
      return;
    }
    this.#via = via;
    clearInterval(this.#watch);
    const orderNum = this.#orderNum;
    const token = this.#token;
    // Closed before the plug-in answered: the customer never saw the payment page.
    if (!orderNum || !token) return this.#finish('cancelled', 'pay-cancel', { orderNum, reason: 'closed' });
    this.setState('checking', 'checking');
    const deadline = Date.now() + this.pollTimeout;
    try {
      const order = await pollOrder({
        get: () => getOrder(this.endpoint, orderNum, token, attempt.signal),
        more: (n) => (this.#via === 'return' ? Date.now() < deadline : n < 2),
        base: this.pollInterval,
        cap: this.pollInterval * 8,
        signal: attempt.signal,
      });
      const [state, event] = outcome(order.status, this.#via);
      this.#finish(state, event, event === 'pay-cancel' ? { orderNum, reason: 'closed' } : order);
    } catch (err) {
      if (attempt === this.#attempt) this.#finish('error', 'pay-error', toPayError(err));
    }
  }

  /** The one exit of an attempt: exactly one terminal event, whatever raced. */
  #finish(state: PayButtonState, event: string, detail: unknown): void {
    this.#attempt?.abort();
    this.#attempt = undefined;
    clearInterval(this.#watch);
    try {
      this.#popup?.close();
    } catch {
      // Already gone.
    }
    dropAttempt(this.#orderNum);
    this.setState(state, state as MessageKey);
    this.emit(event, detail);
  }

  /**
   * Window events. `message`: the return page in the popup, accepted only from the popup itself and
   * from the plug-in's origin. `pageshow` from the bfcache (Back from the payment page in the
   * full-page flow): the page is as it was left, so ask again.
   * @internal
   */
  handleEvent(e: MessageEvent | PageTransitionEvent): void {
    if ('persisted' in e) {
      if (e.persisted && !this.#popup) this.#check(this.#attempt, 'closed');
    } else if (
      e.source &&
      e.source === this.#popup &&
      e.origin === new URL(this.endpoint, location.href).origin &&
      e.data?.type === 'paybutton:return' &&
      e.data.orderNum === this.#orderNum
    ) {
      this.#check(this.#attempt, 'return');
    }
  }

  protected override render() {
    const busy = isBusy(this.state);
    const amount = this.amount! > 0 && Number.isSafeInteger(this.amount);
    return html`<button
        part="button"
        type="button"
        ?disabled=${this.disabled}
        aria-disabled=${busy || this.state === 'paid'}
        aria-busy=${busy}
        @click=${this.pay}
      >
        ${busy ? html`<span part="spinner" aria-hidden="true"></span>` : nothing}
        <slot name="prefix"></slot>
        <span part="label"><slot>${this.text('pay')}</slot>${amount ? html` <span part="amount">${formatRupiah(this.amount!)}</span>` : nothing}</span>
        <slot name="suffix"></slot>
      </button>
      ${this.renderStatus()}`;
  }
}
