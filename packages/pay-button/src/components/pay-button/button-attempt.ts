/**
 * How a `<pay-button>` runs an attempt (the element's behaviour; `PayButton` adds its properties
 * and its look). One true outcome (see the README): pending when the order can still be paid
 * without the payment page (a method was chosen), else a cancellation, and either way the order is
 * kept and watched; a return for an order this page started is always claimed; an attempt survives
 * its element and a reload, and the next click for the same request pays that same order (in its
 * window, when a reload left that open: see `AttemptPopup`).
 *
 * Its parts: `AttemptPopup` (the payment window), `OrderWatch` (what is known of the order), the
 * attempt store (what survives the page) and `outcome` (the pure decisions); this class runs the
 * attempt and says how it ended.
 */
import { PayElement, type EndEvent, type PayEventDetail } from '../../internal/pay-element.ts';
import { AttemptPopup } from './attempt-popup.ts';
import { OrderWatch } from './order-watch.ts';
import type { OrderState, PaymentLink } from '../../internal/api.ts';
import { SLOW_MS, toPayError, type PayError } from '../../internal/pay-error.ts';
import { attemptIo, loadAttemptIo } from './load-attempt-io.ts';
import { handovers } from '../../internal/handovers.ts';
import { newIdempotencyKey } from '../../internal/idempotency.ts';
import { isBusy, withoutReturnParam, type PayButtonState, type Via } from '../../internal/outcome.ts';
import type { MessageKey } from '../../internal/i18n.ts';
import { isInAppBrowser, openPaymentWindow } from '../../internal/popup.ts';
import type { PayCancelDetail } from '../../events.ts';

/** `auto`: popup, or a full-page redirect in in-app browsers; `popup`: always try the popup first; `redirect`: always leave the page. */
export type PayMode = 'auto' | 'popup' | 'redirect';

export abstract class ButtonAttempt extends PayElement<PayButtonState> {
  /** How to open the payment page (see `PayButton`). */
  declare mode: PayMode;
  /** How long to keep asking while the order is pending after a return, in ms (see `PayButton`). */
  declare pollTimeout: number;

  /**
   * The attempt in flight, then the watching of its order. Its AbortController is its identity:
   * every continuation checks that it is still the current one, so a late answer of an ended
   * attempt changes nothing.
   */
  #work: AbortController | undefined;
  /** The attempt's order, and the asking about it. */
  readonly #order: OrderWatch = new OrderWatch(this, (via, state, event, detail, status) => {
    this.#end(state, event, detail, status);
    this.#show(via);
    return status == 'pending' ? (this.#work = new AbortController()) : undefined;
  });
  /**
   * The attempt's payment window, and its return page's message: heard for the attempt's order
   * even once it ended (the poll may have said paid first: the window still closes, rather than
   * going on as a second shop). From a window a reload orphaned, it is this attempt's window again
   * and the outcome is asked anew, while the order may still be paid (its key is kept).
   */
  readonly #popup = new AttemptPopup(this, {
    awaited: () => this.#order.orderNum,
    returned: (popup) => this.#key && this.#check(this.state === 'open' ? this.#work : this.#renew(popup), 'return'),
  });
  /**
   * The attempt's idempotency key and the request it is for. It stays while its order may still be
   * paid (and after a retryable error: a lost answer never makes a second order), so the next
   * click for the same request is for that same order; it goes once the order ended.
   */
  #key: [key: string, request: string] | undefined;


  override connectedCallback(): void {
    super.connectedCallback();
    addEventListener('pageshow', this);
  }

  /**
   * A detached element says nothing more: an attempt in flight (or an order that may still be
   * paid) is handed over to the next element for the same request on this page (which takes it
   * on its first render, or on its next click; the same element attached again, on its next click).
   */
  override disconnectedCallback(): void {
    super.disconnectedCallback();
    removeEventListener('pageshow', this);
    if (this.#key) handovers.set(this.#key[1], [this.#key[0], this.#popup.window]);
    this.#stop();
    // Its attempt is handed over: attached again, it is no longer busy with it.
    if (isBusy(this.state)) this.setState('idle');
  }

  /**
   * After the first render, when frameworks that set properties after connecting (React) have set
   * them, and outside the update cycle: takes over a handed-over attempt (see `#adopt`), else picks
   * up the stored attempt this page load is about (see `claimOnLoad`).
   */
  protected override firstUpdated(): void {
    this.updateComplete.then(() => {
      this.#adopt();
      // The stored attempts are in the attempt's chunk, which is then here by the first click, most
      // likely. Without it nothing is claimed (the attempt stays stored), and a click reports it.
      loadAttemptIo().then((io) => {
        // An attempt in flight already (one taken over, or a click meanwhile) claims nothing.
        const found = io.claimOnLoad((e) => !this.#work && !e.va && e.endpoint === this.endpoint && e.item === this.item);
        if (!found) return;
        // Claimed, so no other element on the page takes it too; stored again if its order may still be paid.
        const [entry, via] = found;
        this.#check(this.#begin(null, entry.key, entry.orderNum, entry.statusToken), via);
      }, () => {});
    });
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
   * of the same request may still be paid, the new attempt is for that same order, in its window
   * if that is still open.
   */
  pay(): boolean {
    this.#adopt();
    if (isBusy(this.state)) return this.#popup.window?.focus(), false;
    if (this.disabled || this.done || !this.emit('pay-click', { item: this.item, method: this.method }, { cancelable: true })) return false;
    const redirect = this.mode === 'redirect';
    const inApp = this.mode !== 'popup' && isInAppBrowser(navigator.userAgent);
    const again = this.#key?.[1] === this.request;
    // Synchronously, inside the click: nothing may be awaited before window.open.
    const opened = redirect || inApp ? null : openPaymentWindow(this.text('opening'), this.currentLocale, again && this.#order.orderNum ? `tombolbayar-${this.#order.orderNum}` : '');
    if (opened?.existing) {
      // The order's window, left open by a reload: the attempt goes on there.
      this.#watch(this.#renew(opened.window));
      opened.window.focus();
      this.setState('open', 'open');
      return true;
    }
    const fallback = !opened && !redirect;
    this.#start(again ? this.#key![0] : newIdempotencyKey(), opened?.window ?? null, fallback && !inApp ? 'blocked' : 'opening');
    if (fallback) this.emit('pay-fallback', { from: 'popup', to: 'redirect', reason: inApp ? 'in-app-browser' : 'popup-blocked' });
    return true;
  }

  /** Asks for the link (with `key`) and goes on in `popup`, or in this page when null, saying `message` meanwhile. */
  #start(key: string, popup: Window | null, message: MessageKey = 'opening'): void {
    const work = this.#begin(popup, [key, this.request]);
    this.setState('loading', message);
    // A slow plug-in or gateway: say it is still going, then (at the request's timeout) what failed.
    setTimeout(() => work === this.#work && this.state === 'loading' && this.setState('loading', 'slow'), SLOW_MS);
    if (popup) this.#popup.watch(() => this.#check(work, 'closed'));
    // `returnTo`: the plug-in's return route sends the customer back here only in the full-page
    // flow. `lang`: the return page speaks the element's language, as the hosted page does.
    const body = { ...this.fields, item: this.item, method: this.method, idempotencyKey: key, returnTo: popup ? undefined : withoutReturnParam(location.href), lang: this.currentLocale };
    loadAttemptIo().then((io) => (io.dressPlaceholder(popup, this), io.createLink(this.endpoint, body, work.signal))).then(
      (link) => work === this.#work && this.#open(link, message),
      (err: unknown) => work === this.#work && this.#end('error', 'pay-error', toPayError(err)),
    );
  }

  /** Ends the attempt in flight (closing its popup, with `pay-cancel` reason `reset`), stops watching and forgets its order, and returns to `idle`. */
  reset(): void {
    if (isBusy(this.state)) this.#end('cancelled', 'pay-cancel', { orderNum: this.#order.orderNum, reason: 'reset' });
    this.#end('idle');
  }

  /** A new attempt, in `popup` (null: this page), for `key`, and for that order when it is known. */
  #begin(popup: Window | null, key: [string, string] | undefined, orderNum?: string, token?: string): AbortController {
    this.#key = key;
    this.#order.reset(orderNum, token);
    return this.#renew(popup);
  }

  /** New work for the same attempt and order, in `popup`. */
  #renew(popup: Window | null): AbortController {
    this.#stop();
    this.#popup.window = popup;
    return (this.#work = new AbortController());
  }

  /** Ends the work in flight (a request, a poll, the popup watcher) without a word. */
  #stop(): void {
    this.#work?.abort();
    this.#work = undefined;
    this.#popup.unwatch();
  }

  /** The plug-in answered with a link: send the popup, or the page, there. */
  #open(link: PaymentLink, message: MessageKey): void {
    const popup = this.#popup.window;
    // Nothing was asked about the attempt's order before its link came: it knows nothing yet.
    this.#order.reset(link.orderNum, link.statusToken);
    // This purchase is paid already (another tab or device): say so, open nothing.
    if (link.status == 'paid') return this.#popup.close(), this.#check(this.#work, 'return');
    this.setState('open', popup ? 'open' : message);
    this.#save();
    // The hosted page speaks the element's language (it reads `?lang=`).
    const url = new URL(link.url);
    url.searchParams.set('lang', this.currentLocale);
    // In the full-page flow `pay-open` is cancelable: the page may navigate itself (location.replace,
    // a router; the tests use it to stay on their page).
    const go = this.emit('pay-open', { orderNum: link.orderNum, mode: popup ? 'popup' : 'redirect', expiresAt: link.expiresAt, url: url.href }, { cancelable: !popup });
    // A placeholder the customer already closed is left to the watcher (pay-cancel).
    if (!popup) {
      if (go) location.assign(url.href);
    } else if (!popup.closed) {
      this.#popup.send(url.href, link.orderNum);
      this.#watch(this.#work!);
    }
  }

  /**
   * While the popup is open, watches it close (anew, when that was watched already while the link
   * was asked for) and its order (see `OrderWatch.watchOpen`): an end there ends the attempt here.
   */
  #watch(work: AbortController): void {
    this.#popup.watch(() => this.#check(work, 'closed'));
    this.#order.watchOpen(work.signal, () => work === this.#work && this.state === 'open', () => this.#check(work, 'return'));
  }

  /**
   * Remembers the attempt in sessionStorage while its order may be paid: before the page may go
   * (the full-page flow, a reload), and again after each check that found it open, so that the
   * next load asks for the outcome (a Back now and a return later are both this order's) and a
   * click for the same request reuses the key (and finds its window, if a reload left that open).
   */
  #save(): void {
    const order = this.#order;
    // An order is known only from the attempt's chunk (a link, a claimed attempt): it is here.
    if (order.orderNum) attemptIo!.saveAttempt({ orderNum: order.orderNum, statusToken: order.token!, endpoint: this.endpoint, item: this.item, key: this.#key });
  }

  /**
   * Asks for the outcome and says it, then watches an order that may still be paid (see
   * `OrderWatch.check`). A load that finds an order nobody chose a method for says nothing: it was
   * cancelled already, or its window is still open (a click finds it, see `pay`).
   */
  #check(work: AbortController | undefined, via: Via): void {
    if (!work || work !== this.#work) return;
    // Once per attempt: the close watcher stops here, and the window events wait for `open`.
    this.#popup.unwatch();
    const cancel: PayCancelDetail = { orderNum: this.#order.orderNum, reason: 'closed' };
    // Closed before the plug-in answered: the customer never saw the payment page, but the order
    // may exist (pending): its key stays, so the next click is for that same order.
    if (!this.#order.orderNum) return this.#end('cancelled', 'pay-cancel', cancel, 'pending');
    this.setState('checking', 'checking');
    this.#order.check(work, via, cancel);
  }

  /**
   * After a full-page return (or a Back/reload that found the attempt), the outcome may be far
   * down the shop's page: bring it into view and move focus to the button it describes. After a
   * popup, focus comes back here rather than to `<body>`.
   */
  #show(via: Via): void {
    const popup = this.#popup.window;
    if (via === 'closed' && !popup) return;
    if (!popup) this.scrollIntoView({ block: 'center' });
    this.focus({ preventScroll: true });
  }

  /**
   * The one exit of an attempt: at most one event, whatever raced. While the order may still be
   * paid (its `status` is pending, with or without a method; or after a retryable error), its key
   * and stored attempt stay, so a click or a reload finds that same order; otherwise both go.
   */
  #end<E extends EndEvent>(state: PayButtonState, event?: E, detail?: PayEventDetail<E>, status?: OrderState): void {
    this.#stop();
    this.#popup.close();
    if (status == 'pending' || (detail as PayError)?.retryable) this.#save();
    else {
      // As in `#save`: with an order known, the chunk is here.
      if (this.#order.orderNum) attemptIo!.dropAttempt(this.#order.orderNum);
      this.#key = undefined;
    }
    if (event) this.report(state, event, detail!);
    else this.setState(state);
    // A pending order's instructions; or another order of the cart paid it, before or after this one.
    const last = this.#order.last;
    const note = (this.state == 'pending' || (/^(paid|cancelled)$/.test(this.state) && (last?.paidWith || last?.duplicateOf))) && this.#order.note(this.currentLocale, (key) => this.text(key));
    if (note) this.setState(this.state, undefined, note);
    else if (state === 'pending' && !this.#order.last?.method) this.setState('pending', 'unconfirmed');
  }

  /**
   * `pageshow` from the bfcache (Back from the payment page in the full-page flow): the page is as
   * it was left, so ask again. (The return page in a popup is heard by `AttemptPopup`.)
   * @internal
   */
  handleEvent(e: PageTransitionEvent): void {
    if (this.state === 'open' && !this.#popup.window && e.persisted) this.#check(this.#work, 'found');
  }
}
