import { html, nothing } from 'lit';
import { formatRupiah } from '@paybutton/protocol/formats';
import { styles } from './pay-button.styles.ts';
import { createLink, getOrder, toPayError, type PayError, type PaymentLink } from '../../internal/api.ts';
import { claimAttempt, dropAttempt, handovers, saveAttempt } from '../../internal/attempt-store.ts';
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
 * @cssstate pending - The payment page was left (return, close, Back) and the order still awaits a payment that can arrive: the element keeps watching it.
 * @cssstate expired - The order expired.
 * @cssstate failed - The payment failed.
 * @cssstate cancelled - The window was closed before the payment page opened, or `reset()` ended the attempt.
 * @cssstate error - Something failed before an outcome was known.
 *
 * @event {PayClickEvent} pay-click - The customer asked to pay. Cancelable: cancel it to stop the attempt.
 * @event {PayOpenEvent} pay-open - The payment page is open (`mode`: `popup` or `redirect`). Cancelable in the full-page flow: cancel it to navigate to `detail.url` yourself.
 * @event {PayFallbackEvent} pay-fallback - The popup was blocked, or this is an in-app browser: the page redirects instead.
 * @event {PaySuccessEvent} pay-success - Terminal: the order is paid.
 * @event {PayPendingEvent} pay-pending - The payment page was left (return, close, Back) and the order still awaits a payment that can arrive. The element keeps watching (an hour at most), and a later `pay-success` or `pay-failure` follows if the order ends while the page is open.
 * @event {PayFailureEvent} pay-failure - Terminal: the order expired or failed.
 * @event {PayCancelEvent} pay-cancel - Terminal: the window was closed before the payment page opened, or `reset()` ended the attempt.
 * @event {PayErrorEvent} pay-error - Terminal: the attempt failed (`code`, `retryable`, `message`: for a refusal such as `not_for_sale`, the merchant's own message).
 *
 * One true outcome (see the README): an order that may still be paid is never reported as
 * cancelled; a return for an order this page started is always claimed; an attempt survives its
 * element, and the next element for the same request takes it over.
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
  /** The attempt's idempotency key. */
  #key: string | undefined;
  /**
   * The key the next attempt reuses, and for which request: after a retryable error (a lost answer
   * never makes a second order) or while the order may still be paid (the same order again).
   */
  #retry: [key: string, request: string] | undefined;
  /** Watches a pending order after `pay-pending`, until it ends. */
  #watcher: AbortController | undefined;

  constructor() {
    super('idle', 1000);
    this.mode = 'auto';
    this.pollTimeout = 60_000;
  }

  /** The request an attempt is for: one cart, one order. */
  get #request(): string {
    return JSON.stringify([this.endpoint, this.item, this.method, this.fields]);
  }

  override connectedCallback(): void {
    super.connectedCallback();
    addEventListener('message', this);
    addEventListener('pageshow', this);
    if (this.hasUpdated) this.#adopt();
  }

  /**
   * A detached element says nothing more: an attempt in flight (or an order it watches) is handed
   * over to the next element for the same request on this page.
   */
  override disconnectedCallback(): void {
    super.disconnectedCallback();
    removeEventListener('message', this);
    removeEventListener('pageshow', this);
    const key = this.#attempt || this.#watcher ? this.#key : undefined;
    if (key) handovers.set(this.#request, { key, popup: this.#popup });
    this.#attempt?.abort();
    this.#watcher?.abort();
    clearInterval(this.#watch);
    this.#attempt = this.#watcher = undefined;
  }

  /**
   * After the first render, when frameworks that set properties after connecting (React) have set
   * them, and outside the update cycle.
   */
  protected override firstUpdated(): void {
    this.updateComplete.then(() => (this.#pickUp(), this.#adopt()));
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
    // Kept until the order ends: a Back now and a return later are both this order's.
    saveAttempt(entry);
    this.#begin(null, entry.key, entry.orderNum, entry.statusToken);
    this.#check(this.#attempt, via!);
  }

  /**
   * Takes over what an element for the same request left mid-attempt (see `disconnectedCallback`):
   * with its popup still open, the attempt goes on there (the same key answers the same order);
   * otherwise the next click reuses the key, so it pays that same order.
   */
  #adopt(): void {
    const left = handovers.get(this.#request);
    if (!left || this.#attempt) return;
    handovers.delete(this.#request);
    if (left.popup && !left.popup.closed) this.#start(left.key, left.popup);
    else this.#retry = [left.key, this.#request];
  }

  /**
   * Starts an attempt, as a click does. Call it inside a user gesture, or the popup is blocked and
   * the page redirects. Returns false when nothing started: disabled, already paid, an attempt in
   * flight (its popup is brought to the front), or `pay-click` cancelled. While an order of the same
   * request may still be paid, the new attempt is for that same order.
   */
  pay(): boolean {
    this.#adopt();
    if (this.#attempt) {
      this.#popup?.focus();
      return false;
    }
    if (this.disabled || this.state === 'paid' || !this.emit('pay-click', { item: this.item, method: this.method }, true)) return false;
    const inApp = this.mode !== 'popup' && isInAppBrowser(navigator.userAgent);
    // Synchronously, inside the click: nothing may be awaited before window.open.
    const popup = this.mode === 'redirect' || inApp ? null : openPlaceholder(this.text('opening'), this.currentLocale);
    this.#start(this.#retry?.[1] === this.#request ? this.#retry[0] : newIdempotencyKey(), popup, inApp);
    return true;
  }

  #start(key: string, popup: Window | null, inApp = false): void {
    const attempt = this.#begin(popup, key);
    const fallback = !popup && this.mode !== 'redirect';
    const message = fallback && !inApp ? 'blocked' : 'opening';
    this.setState('loading', message);
    if (fallback) this.emit('pay-fallback', { from: 'popup', to: 'redirect', reason: inApp ? 'in-app-browser' : 'popup-blocked' });
    this.#watchPopup(attempt);
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
        this.#finish('error', 'pay-error', e);
        if (e.retryable) this.#retry = [key, this.#request];
      },
    );
  }

  /** Ends the attempt in flight (closing its popup, with `pay-cancel` reason `reset`), forgets its order and returns to `idle`. */
  reset(): void {
    if (this.#attempt) this.#finish('cancelled', 'pay-cancel', { orderNum: this.#orderNum, reason: 'reset' });
    this.#watcher?.abort();
    dropAttempt(this.#orderNum);
    this.#retry = undefined;
    this.setState('idle');
  }

  #begin(popup: Window | null, key?: string, orderNum?: string, token?: string): AbortController {
    this.#watcher?.abort();
    this.#popup = popup;
    this.#key = key;
    this.#orderNum = orderNum;
    this.#token = token;
    this.#via = this.#retry = undefined;
    return (this.#attempt = new AbortController());
  }

  #watchPopup(attempt: AbortController): void {
    const popup = this.#popup;
    if (popup) this.#watch = setInterval(() => popup.closed && this.#check(attempt, 'closed'), 400);
  }

  /** The plug-in answered with a link: send the popup, or the page, there. */
  #open(link: PaymentLink, message: MessageKey): void {
    const popup = this.#popup;
    this.#orderNum = link.orderNum;
    this.#token = link.statusToken;
    this.setState('open', popup ? 'open' : message);
    if (!popup) {
      // Remembered before leaving, so the page can ask for the outcome when the customer comes back.
      saveAttempt({ orderNum: link.orderNum, statusToken: link.statusToken, endpoint: this.endpoint, item: this.item, key: this.#key });
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
    // Closed before the plug-in answered: the customer never saw the payment page.
    if (!orderNum || !this.#token) return this.#finish('cancelled', 'pay-cancel', { orderNum, reason: 'closed' });
    this.setState('checking', 'checking');
    const deadline = Date.now() + this.pollTimeout;
    try {
      const order = await this.#poll(attempt, (n) => (this.#via === 'return' ? Date.now() < deadline : n < 2), this.pollInterval * 8);
      const [state, event] = outcome(order.status);
      this.#finish(state, event, order);
      if (state === 'pending') {
        // The same request pays this same order, which is watched until it ends.
        this.#retry = [this.#key!, this.#request];
        this.#watchPending(orderNum);
      }
    } catch (err) {
      if (attempt === this.#attempt) this.#finish('error', 'pay-error', toPayError(err));
    }
  }

  #poll(work: AbortController, more: (n: number) => boolean, cap: number) {
    const orderNum = this.#orderNum!;
    const token = this.#token!;
    return pollOrder({ get: () => getOrder(this.endpoint, orderNum, token, work.signal), more, base: this.pollInterval, cap, signal: work.signal });
  }

  /** After `pay-pending`: keeps asking (at most every 15 s) until the order ends, for an hour at most, while the element is on the page. */
  #watchPending(orderNum: string): void {
    const work = (this.#watcher = new AbortController());
    const until = Date.now() + 36e5;
    this.#poll(work, () => Date.now() < until, 15e3).then(
      (order) => {
        if (work !== this.#watcher || order.orderNum !== orderNum) return;
        this.#watcher = this.#retry = undefined;
        const [state, event] = outcome(order.status);
        if (state === 'pending') return;
        dropAttempt(orderNum);
        this.setState(state, state as MessageKey);
        this.emit(event, order);
      },
      () => {},
    );
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
    // The stored attempt stays while its order may still be paid (a later return claims it).
    if (state !== 'pending') dropAttempt(this.#orderNum);
    // A refusal (`not_for_sale`) says the merchant's own words, and no "try again".
    const refusal = (detail as PayError).code === 'not_for_sale' ? (detail as PayError).message : undefined;
    this.setState(state, state as MessageKey, refusal);
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
      // Echoed back as the acknowledgement: the return page closes only once its message arrived
      // (else it continues as a full page).
      (e.source as Window).postMessage(e.data, e.origin);
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
