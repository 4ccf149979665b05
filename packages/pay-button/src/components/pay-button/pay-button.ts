import { html, nothing } from 'lit';
import { styles } from './pay-button.styles.ts';
import { SLOW_MS, createLink, getOrder, toPayError, type Order, type PayError, type PaymentLink } from '../../internal/api.ts';
import { claimAttempt, dropAttempt, findAttempt, handovers, saveAttempt } from '../../internal/attempt-store.ts';
import { newIdempotencyKey } from '../../internal/idempotency.ts';
import { RETURN_PARAM, isBusy, outcome, outcomeWords, pickUp, withoutReturnParam, type PayButtonState, type Via } from '../../internal/outcome.ts';
import type { MessageKey } from '../../internal/i18n.ts';
import { PayElement } from '../../internal/pay-element.ts';
import { isInAppBrowser, openPlaceholder } from '../../internal/popup.ts';
import { pollOrder } from '../../internal/poll.ts';

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
 * @cssstate pending - A method was chosen and the order awaits a payment that can arrive without the payment page (VA, retail code, QRIS, e-wallet): the element keeps watching it.
 * @cssstate expired - The order expired.
 * @cssstate failed - The payment failed.
 * @cssstate cancelled - The payment page was left before a method was chosen (the order is kept and watched: the next click reopens it), or `reset()` ended the attempt.
 * @cssstate error - Something failed before an outcome was known.
 *
 * @event {PayClickEvent} pay-click - The customer asked to pay. Cancelable: cancel it to stop the attempt.
 * @event {PayOpenEvent} pay-open - The payment page is open (`mode`: `popup` or `redirect`). Cancelable in the full-page flow: cancel it to navigate to `detail.url` yourself.
 * @event {PayFallbackEvent} pay-fallback - The popup was blocked, or this is an in-app browser: the page redirects instead.
 * @event {PaySuccessEvent} pay-success - Terminal: the order is paid.
 * @event {PayPendingEvent} pay-pending - The payment page was left after a method was chosen, and the order awaits a payment that can still arrive. The element keeps watching (an hour at most), and a later `pay-success` or `pay-failure` follows if the order ends while the page is open.
 * @event {PayFailureEvent} pay-failure - Terminal: the order expired or failed.
 * @event {PayCancelEvent} pay-cancel - Terminal: the payment page was left before a method was chosen, or `reset()` ended the attempt. The opened order is still watched: a later `pay-success` (or `pay-failure`) follows if it ends while the page is open.
 * @event {PayErrorEvent} pay-error - Terminal: the attempt failed (`code`, `retryable`, `message`). A refusal of the merchant's `quote()` (`not_for_sale`, `quote_refused`) shows its own message, and the same request is not sent again.
 *
 * One true outcome (see the README): pending when the order can still be paid without the payment
 * page (a method was chosen), else a cancellation, and either way the order is kept and watched;
 * a return for an order this page started is always claimed; an attempt survives its element and
 * a reload, and the next click for the same request pays that same order.
 */
export class PayButton extends PayElement<PayButtonState> {
  static override styles = styles;
  static override shadowRootOptions: ShadowRootInit = { mode: 'open', delegatesFocus: true };

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

  /**
   * The attempt in flight, then the watching of its order. Its AbortController is its identity:
   * every continuation checks that it is still the current one, so a late answer of an ended
   * attempt changes nothing.
   */
  #work: AbortController | undefined;
  /** The attempt's popup (null in the full-page flow), its order and status token, and the timer that watches the popup. */
  #popup: Window | null = null;
  #orderNum: string | undefined;
  #token: string | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  /**
   * The attempt's idempotency key and the request it is for. It stays while its order may still be
   * paid (and after a retryable error: a lost answer never makes a second order), so the next
   * click for the same request is for that same order; it goes once the order ended.
   */
  #key: [key: string, request: string] | undefined;
  /** A method was seen chosen on the payment page while it was open (see `#watchOpen`). */
  #chosen = false;
  /** The last answer about the order, for the words of a pending order (`#pendingNote`). */
  #last: Order | undefined;

  constructor() {
    super(1000);
    this.mode = 'auto';
    this.pollTimeout = 60_000;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    addEventListener('message', this);
    addEventListener('pageshow', this);
  }

  /**
   * A detached element says nothing more: an attempt in flight (or an order that may still be
   * paid) is handed over to the next element for the same request on this page (which takes it
   * on its first render, or on its next click; the same element attached again, on its next click).
   */
  override disconnectedCallback(): void {
    super.disconnectedCallback();
    removeEventListener('message', this);
    removeEventListener('pageshow', this);
    if (this.#key) handovers.set(this.#key[1], [this.#key[0], this.#popup]);
    this.#stop();
    // Its attempt is handed over: attached again, it is no longer busy with it.
    if (isBusy(this.state)) this.setState('idle');
  }

  /**
   * After the first render, when frameworks that set properties after connecting (React) have set
   * them, and outside the update cycle. An attempt handed over with its popup open goes on there
   * rather than being picked up from storage.
   */
  protected override firstUpdated(): void {
    this.updateComplete.then(() => (this.#adopt(), this.#pickUp()));
  }

  /**
   * Picks up the stored attempt this page load is about (see `pickUp`): the return
   * (`?paybutton_order=`), the Back button, or a reload. The status token comes from
   * sessionStorage only, never from the URL.
   */
  #pickUp(): void {
    const url = new URL(location.href);
    const returned = url.searchParams.get(RETURN_PARAM);
    let via: Via | undefined;
    const entry = !this.#work && claimAttempt((e) => !e.va && e.endpoint === this.endpoint && e.item === this.item && (via = pickUp(returned, e.orderNum)));
    // Every element removes a `#paybutton_token=` fragment (never reading it); only the one that
    // claimed the order removes `paybutton_order`, which until then may be another element's; and
    // any element removes one nobody can claim any more (a return replayed by Back/Forward after
    // its order ended), so the parameter is never left behind.
    const clean = withoutReturnParam(url.href, (entry && returned) || (returned && !findAttempt((e) => e.orderNum === returned)));
    if (clean !== url.href) history.replaceState(history.state, '', clean);
    // Claimed, so no other element on the page takes it too; stored again if its order may still be paid.
    if (entry) this.#check(this.#begin(null, entry.key, entry.orderNum, entry.statusToken), via!);
  }

  /**
   * Takes over what an element for the same request left (see `disconnectedCallback`): with its
   * popup still open, the attempt goes on there (the same key answers the same order); otherwise
   * the next click reuses the key, so it pays that same order.
   */
  #adopt(): void {
    const request = this.request;
    const [key, popup] = handovers.get(request) ?? [];
    if (!key || isBusy(this.state)) return;
    handovers.delete(request);
    if (popup && !popup.closed) this.#start(key, popup);
    else this.#key = [key, request];
  }

  /**
   * Starts an attempt, as a click does. Call it inside a user gesture, or the popup is blocked and
   * the page redirects. Returns false when nothing started: disabled, already paid, refused, an
   * attempt in flight (its popup is brought to the front), or `pay-click` cancelled. While an order
   * of the same request may still be paid, the new attempt is for that same order.
   */
  pay(): boolean {
    this.#adopt();
    if (isBusy(this.state)) return this.#popup?.focus(), false;
    if (this.disabled || this.done || !this.emit('pay-click', { item: this.item, method: this.method }, true)) return false;
    const redirect = this.mode === 'redirect';
    const inApp = this.mode !== 'popup' && isInAppBrowser(navigator.userAgent);
    // Synchronously, inside the click: nothing may be awaited before window.open.
    const popup = redirect || inApp ? null : openPlaceholder(this.text('opening'), this.currentLocale);
    const fallback = !popup && !redirect;
    this.#start(this.#key?.[1] === this.request ? this.#key[0] : newIdempotencyKey(), popup, fallback && !inApp ? 'blocked' : 'opening');
    if (fallback) this.emit('pay-fallback', { from: 'popup', to: 'redirect', reason: inApp ? 'in-app-browser' : 'popup-blocked' });
    return true;
  }

  /** Asks for the link (with `key`) and goes on in `popup`, or in this page when null, saying `message` meanwhile. */
  #start(key: string, popup: Window | null, message: MessageKey = 'opening'): void {
    const work = this.#begin(popup, [key, this.request]);
    this.setState('loading', message);
    // A slow plug-in or gateway: say it is still going, then (at the request's timeout) what failed.
    setTimeout(() => work === this.#work && this.state === 'loading' && this.setState('loading', 'slow'), SLOW_MS);
    if (popup) this.#timer = setInterval(() => popup.closed && this.#check(work, 'closed'), 400);
    // `returnTo`: the plug-in's return route sends the customer back here only in the full-page flow.
    const body = { ...this.fields, item: this.item, method: this.method, idempotencyKey: key, returnTo: popup ? undefined : withoutReturnParam(location.href, true) };
    createLink(this.endpoint, body, work.signal).then(
      (link) => work === this.#work && this.#open(link, message),
      (err: unknown) => work === this.#work && this.#end('error', 'pay-error', toPayError(err)),
    );
  }

  /** Ends the attempt in flight (closing its popup, with `pay-cancel` reason `reset`), stops watching and forgets its order, and returns to `idle`. */
  reset(): void {
    if (isBusy(this.state)) this.#end('cancelled', 'pay-cancel', { orderNum: this.#orderNum, reason: 'reset' });
    this.#end('idle');
  }

  #begin(popup: Window | null, key: [string, string] | undefined, orderNum?: string, token?: string): AbortController {
    this.#stop();
    this.#popup = popup;
    this.#key = key;
    this.#orderNum = orderNum;
    this.#token = token;
    this.#chosen = false;
    this.#last = undefined;
    return (this.#work = new AbortController());
  }

  /** Ends the work in flight (a request, a poll, the popup watcher) without a word. */
  #stop(): void {
    this.#work?.abort();
    this.#work = undefined;
    clearInterval(this.#timer);
  }

  /** The plug-in answered with a link: send the popup, or the page, there. */
  #open(link: PaymentLink, message: MessageKey): void {
    const popup = this.#popup;
    this.#orderNum = link.orderNum;
    this.#token = link.statusToken;
    // This purchase is paid already (another tab or device): say so, open nothing.
    if (link.status == 'paid') return popup?.close(), void this.#check(this.#work, 'return');
    this.setState('open', popup ? 'open' : message);
    this.#save();
    // In the full-page flow `pay-open` is cancelable: the page may navigate itself (location.replace,
    // a router; the tests use it to stay on their page).
    // The hosted page speaks the element's language (it reads `?lang=`).
    const url = new URL(link.url);
    url.searchParams.set('lang', this.currentLocale);
    const go = this.emit('pay-open', { orderNum: link.orderNum, mode: popup ? 'popup' : 'redirect', expiresAt: link.expiresAt, url: url.href }, !popup);
    // A placeholder the customer already closed is left to the watcher (pay-cancel).
    if (!popup) {
      if (go) location.assign(url.href);
    } else if (!popup.closed) {
      try {
        // Named after its order while it is still our placeholder (a popup handed over from
        // another element may be on the payment page already, another origin).
        popup.name = `paybutton-${link.orderNum}`;
      } catch {
        // Its name is only a convenience.
      }
      popup.location.replace(url.href);
      this.#watchOpen(this.#work!);
    }
  }

  /**
   * While the popup is open, asks for the order about every second: an order paid, expired or
   * failed there shows here at once (the popup is closed: the shop is where the customer goes on),
   * and a method chosen there is remembered, so that a status nobody can confirm later is
   * "pending, not confirmed yet", never "cancelled". The return page's message stays the fast path.
   */
  #watchOpen(work: AbortController): void {
    const open = () => work === this.#work && this.state === 'open';
    pollOrder(() => this.#get(work), open, this.pollInterval, this.pollInterval * 1.5, work.signal).then(
      (order) => void (open() && order.status !== 'pending' && this.#check(work, 'return')),
      () => {},
    );
  }

  /** One status request for the attempt's order, remembering what it says. */
  async #get(work: AbortController): Promise<Order> {
    const order = await getOrder(this.endpoint, this.#orderNum!, this.#token!, work.signal);
    if (order.method) this.#chosen = true;
    return (this.#last = order);
  }

  /** What to do next for a pending order with a deadline: the transfer (a VA) or the amount, and the time. */
  #pendingNote(): string | undefined {
    const order = this.#last;
    if (!order?.expiresAt || this.state !== 'pending') return undefined;
    const locale = this.currentLocale;
    const time = new Date(order.expiresAt).toLocaleString(locale === 'id' ? 'id-ID' : 'en-GB', { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
    const values: Record<string, string> = { total: `Rp ${Number(order.payMoney).toLocaleString('id')}`, time, bank: order.method?.slice(3) ?? '', code: order.vaNumber ?? '' };
    const va = order.method?.startsWith('VA_') && order.vaNumber;
    return `${this.text(order.method ? 'pending' : 'unconfirmed')} ${this.text(va ? 'transferTo' : 'payBy').replace(/\{(\w+)\}/g, (_, k: string) => values[k]!)}`;
  }

  /**
   * Remembers the attempt in sessionStorage while its order may be paid: before the page may go
   * (the full-page flow, a reload), and again after each check that found it open, so that the
   * next load asks for the outcome (a Back now and a return later are both this order's) and a
   * click for the same request reuses the key.
   */
  #save(): void {
    if (this.#orderNum) saveAttempt({ orderNum: this.#orderNum, statusToken: this.#token!, endpoint: this.endpoint, item: this.item, key: this.#key });
  }

  /**
   * Asks the plug-in for the outcome (polling for a while after a return, twice otherwise) and
   * says it; then, while the order may still be paid (pending, with or without a method), watches
   * it: at most every 15 s, for an hour at most, while the element is on the page, and says how it
   * ended (`pay-success`, `pay-failure`) if it does, whatever was said before: an order is never
   * left shown as pending or cancelled once paid. An error while watching says nothing. A load
   * that finds an order nobody chose a method for (`found`) says nothing: it was cancelled
   * already, or its payment page is still open.
   */
  async #check(work: AbortController | undefined, via: Via): Promise<void> {
    if (!work || work !== this.#work) return;
    // Once per attempt: the close watcher stops here, and the window events wait for `open`.
    clearInterval(this.#timer);
    const orderNum = this.#orderNum;
    const cancel = { orderNum, reason: 'closed' };
    // Closed before the plug-in answered: the customer never saw the payment page.
    if (!orderNum) return this.#end('cancelled', 'pay-cancel', cancel, true);
    this.setState('checking', 'checking');
    const deadline = Date.now() + this.pollTimeout;
    let watching: unknown;
    let said: string | undefined;
    try {
      for (;;) {
        const current = work;
        const order = await pollOrder(
          () => this.#get(current),
          // While watching, a pending order whose words change (confirmed at last) is said again.
          // After a close with no method known yet, one answer more: the plug-in asks the gateway
          // about such an order at most once a second, and the poll while the popup was open may
          // just have used that turn, so a method picked at the last moment shows one poll later.
          (n) => (watching ? Date.now() < deadline + 36e5 && outcomeWords(this.#last!, this.#chosen) === said : via === 'return' ? Date.now() < deadline : n < (via === 'closed' && !this.#last?.method ? 3 : 2)),
          this.pollInterval,
          watching ? 15e3 : this.pollInterval * 8,
          work.signal,
        );
        const [state, event] = outcome(order, this.#chosen);
        const open = order.status === 'pending';
        if (work !== this.#work || (watching && open && outcomeWords(order, this.#chosen) === said)) return;
        const say = watching || state !== 'cancelled' || via !== 'found';
        said = outcomeWords(order, this.#chosen);
        this.#end(say ? state : 'idle', say ? event : undefined, state === 'cancelled' ? cancel : order, open);
        this.#show(via);
        if (!open) return;
        // Watching is a new piece of work: a click, `reset()` or removal ends it like an attempt.
        watching = work = this.#work = new AbortController();
      }
    } catch (err) {
      if (work !== this.#work || watching) return;
      const error = toPayError(err);
      // A method was chosen and nobody can say more now: the payment may still arrive.
      if (this.#chosen && error.retryable) this.#end('pending', 'pay-pending', { orderNum, status: 'pending', method: null, confirmed: false }, true);
      else this.#end('error', 'pay-error', error);
      this.#show(via);
    }
  }

  /**
   * After a full-page return (or a Back/reload that found the attempt), the outcome may be far
   * down the shop's page: bring it into view and move focus to the button it describes. After a
   * popup, focus comes back here rather than to `<body>`.
   */
  #show(via: Via): void {
    if (via === 'closed' && !this.#popup) return;
    if (!this.#popup) this.scrollIntoView({ block: 'center' });
    this.focus({ preventScroll: true });
  }

  /**
   * The one exit of an attempt: at most one event, whatever raced. While the order may still be
   * paid (`open`: pending, with or without a method; or after a retryable error), its key and
   * stored attempt stay, so a click or a reload finds that same order; otherwise both go.
   */
  #end(state: PayButtonState, event?: string, detail?: unknown, open?: boolean): void {
    this.#stop();
    // Closing a window that is already closed (or gone) does nothing.
    this.#popup?.close();
    if (open || (detail as PayError)?.retryable) this.#save();
    else {
      dropAttempt(this.#orderNum);
      this.#key = undefined;
    }
    if (event) this.report(state, event, detail);
    else this.setState(state);
    const note = this.#pendingNote();
    if (note) this.setState('pending', undefined, note);
    else if (state === 'pending' && !this.#last?.method) this.setState('pending', 'unconfirmed');
  }

  /**
   * Window events. `message`: the return page in the popup, accepted only from the popup itself and
   * from the plug-in's origin. `pageshow` from the bfcache (Back from the payment page in the
   * full-page flow): the page is as it was left, so ask again.
   * @internal
   */
  handleEvent(e: MessageEvent | PageTransitionEvent): void {
    const popup = this.#popup;
    const { data, origin, source } = e as MessageEvent;
    // Only an attempt whose payment page is open can come back from it (and only once: the check
    // that follows leaves `open`). With a popup, its return message; without, a bfcache restore.
    if (
      this.state === 'open' &&
      (popup
        ? source === popup && origin === new URL(this.endpoint, location.href).origin && data?.type === 'paybutton:return' && data.orderNum === this.#orderNum
        : (e as PageTransitionEvent).persisted)
    ) {
      // Echoed back as the acknowledgement: the return page closes only once its message arrived
      // (else it continues as a full page).
      popup?.postMessage(data, origin);
      this.#check(this.#work, popup ? 'return' : 'found');
    }
  }

  protected override render() {
    const busy = isBusy(this.state);
    // A whole, positive number of rupiah, grouped by the platform as the protocol's `formatRupiah`
    // writes it (`Rp 150.000`); that function, with its checks for strings, goes with `<pay-va>`.
    const amount = this.amount! > 0 && Number.isSafeInteger(this.amount);
    return html`<button
        part="button"
        type="button"
        ?disabled=${this.disabled}
        aria-disabled=${busy || this.done}
        aria-busy=${busy}
        aria-describedby="status"
        @click=${this.pay}
      >
        ${busy ? html`<span part="spinner" aria-hidden="true"></span>` : nothing}
        <slot name="prefix"></slot>
        <span part="label"
          >${this.state === 'pending'
            ? this.text('instructions')
            : html`<slot>${this.text('pay')}</slot>${amount ? html` <span part="amount">Rp ${this.amount!.toLocaleString('id')}</span>` : nothing}`}</span
        >
        <slot name="suffix"></slot>
      </button>
      ${this.renderStatus()}`;
  }
}
