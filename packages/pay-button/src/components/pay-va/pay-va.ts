import { html, nothing } from 'lit';
import { formatRupiah } from './formats.ts';
import { METHODS, resolveMethod, type MethodCode } from '@tombolbayar/protocol/methods';
import { styles } from './pay-va.styles.ts';
import { getOrder, toPayError, type VaOrder } from '../../internal/api.ts';
import { pollOrder } from '../../internal/poll.ts';
import { claimAttempt, dropAttempt, saveAttempt, type StoredAttempt } from '../../internal/attempt-store.ts';
import { newIdempotencyKey } from '../../internal/idempotency.ts';
import { PayElement, type EndEvent, type PayEventDetail } from '../../internal/pay-element.ts';
import type { MessageKey } from '../../internal/i18n.ts';
import { fill, vaStrings, type VaMessageKey } from './pay-va.strings.ts';
import { countdown, expiryOf } from './countdown.ts';
import { saveQr } from './save-qr.ts';
import { createVa, getQr, isVaOrder, type QrCode } from './va-api.ts';

/** Reflected `state` of `<pay-va>`. */
export type PayVaState = 'idle' | 'loading' | 'pending' | 'paid' | 'expired' | 'failed' | 'closed' | 'error';

/** Longest pause between two status requests while the customer pays, in ms. */
const MAX_POLL_DELAY = 15_000;

/**
 * Operation 1 inline: asks the plug-in's `POST {endpoint}/va` for a virtual-account (or QRIS,
 * Alfamart, e-wallet) order and shows what the customer needs to pay it: first the exact total to
 * transfer (amount plus fee, with a copy button: what a customer types at the ATM), then the
 * number or payment code with its own copy button (for QRIS, a scannable QR image), the amount
 * and fee as its breakdown, a countdown and the steps for that kind of method. Once the order
 * ends, a paid, expired or failed panel replaces the instructions, so nobody transfers to a number
 * that no longer takes money. It ends in the same outcome events as `<pay-button>`, and the order
 * survives a reload of the page (sessionStorage).
 *
 * QRIS: the plug-in draws the code (`GET {endpoint}/orders/:orderNum/qr`, the status token in a
 * header) and the element renders it as an inline SVG: no encoder in the script-tag budget, no
 * image URL for a CSP to allow. Put your own image in the `qr` slot to replace it.
 *
 * @tagname pay-va
 * @summary The VA number of an order, inline, with live status.
 *
 * @slot - Label of the button that creates the order. Defaults to "Get payment number".
 * @slot qr - For QRIS: your own QR image of the payload. Defaults to the code the plug-in draws.
 *
 * @csspart button - The button that creates the order (and, after an expiry or a failure, a new one).
 * @csspart panel - The box around the order, or around its outcome.
 * @csspart method - The bank or method name.
 * @csspart total - The exact total to pay (amount plus fee).
 * @csspart copy-total - The copy button of the total.
 * @csspart number - The VA number, payment code or e-wallet reference.
 * @csspart copy - The copy button of the number.
 * @csspart qr - The QRIS image (an `<svg>`).
 * @csspart save-qr - For QRIS: the button that saves the code as a PNG (to open it in a QRIS app on the same phone).
 * @csspart amounts - Amount and fee, the breakdown of the total.
 * @csspart countdown - Time left to pay.
 * @csspart steps - The list of steps to pay.
 * @csspart outcome - The paid, expired or failed panel that replaces the instructions.
 * @csspart status - The polite live region that says what is happening.
 *
 * @cssprop [--pay-va-border=1px solid #c8ccd4] - Border of the panel.
 * @cssprop [--pay-va-accent=#0b5fff] - Colour of the total to pay.
 * @cssprop [--pay-va-paid=#1e7b34] - Colour of the paid panel's title.
 * @cssprop [--pay-va-ended=#a1271b] - Colour of the expired and failed panels' titles.
 * @cssprop [--pay-button-bg=#0b5fff] - Background of the buttons (one theme for both elements).
 * @cssprop [--pay-button-fg=#fff] - Text colour of the buttons.
 * @cssprop [--pay-button-radius=0.5em] - Corner radius of the buttons and the panel.
 * @cssprop [--pay-button-height=44px] - Minimum height of the buttons.
 * @cssprop [--pay-button-padding=0.5em 1.25em] - Padding of the buttons.
 * @cssprop [--pay-button-border=0] - Border of the buttons.
 * @cssprop [--pay-button-font-weight=600] - Font weight of the buttons.
 * @cssprop [--pay-button-focus-ring=3px solid #0b5fff] - Keyboard focus outline.
 *
 * @cssstate idle - No order yet.
 * @cssstate loading - Asking the plug-in for the order.
 * @cssstate pending - The total and the number are shown; waiting for the payment.
 * @cssstate paid - Paid (verified).
 * @cssstate expired - The order expired.
 * @cssstate failed - The payment failed.
 * @cssstate closed - Another order of the same purchase (another tab's number or `<pay-button>`) paid it: this number is not to be paid.
 * @cssstate error - Something failed before an outcome was known.
 *
 * @event {PayClickEvent} pay-click - The customer asked for a number. Cancelable.
 * @event {PayOpenEvent} pay-open - The number is shown (`mode: 'inline'`); `restored: true` when a reload showed it again (its `method` may differ from the page's control: sync the control to `el.method`).
 * @event {PaySuccessEvent} pay-success - Terminal: paid.
 * @event {PayFailureEvent} pay-failure - Terminal: expired or failed.
 * @event {PayCancelEvent} pay-cancel - Terminal: `reason: 'paid-elsewhere'`, another order of the same purchase (`paidWith`) paid it; the number is not to be paid.
 * @event {PayErrorEvent} pay-error - Terminal: the order could not be created or its status read. A refusal of the merchant's `quote()` (`not_for_sale`, `quote_refused`) shows its own message, and the same request is not sent again.
 */
export class PayVa extends PayElement<PayVaState, VaMessageKey> {
  static override styles = styles;

  #order: VaOrder | undefined;
  /** The request or polling loop in flight; its identity guards late answers. */
  #work: AbortController | undefined;
  #tick: ReturnType<typeof setInterval> | undefined;
  /**
   * After a retryable error, the idempotency key to reuse and the request it was for: the next
   * click for the same request cannot make a second order (a lost answer may have made one).
   */
  #retryKey: [key: string, request: string] | undefined;
  /** The QRIS code the plug-in drew for the order on display; undefined until (or unless) it came. */
  #qr: QrCode | undefined;
  /** The other order of the purchase the outcome names: the one that paid it (`closed`), or paid it first (`paid` twice). */
  #other: string | undefined;

  constructor() {
    super(2000);
  }

  /** Its own strings, else the shared ones (the outcome messages both elements say). */
  protected override text(key: VaMessageKey): string {
    return (vaStrings[this.currentLocale] as Record<string, string>)[key] ?? super.text(key as MessageKey);
  }

  /** The order on display, if any. */
  get order(): VaOrder | undefined {
    return this.#order;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    if (this.state === 'pending') this.#watch();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#stop();
  }

  /** After the first render, once frameworks (React) have set the properties. */
  protected override firstUpdated(): void {
    this.updateComplete.then(() => this.#restore());
  }

  /**
   * A reload shows the same order again instead of making a new one (if what was stored still
   * reads as one), with the method it was for, even when the page's own control forgot it (a
   * select resets on reload): `pay-open` with `restored: true` tells the page which. Its own method
   * first. Claimed, then kept again for the next reload: one element shows it.
   */
  #restore(): void {
    const method = resolveMethod(this.method ?? '') ?? this.method;
    const mine = (e: StoredAttempt) => e.va && e.endpoint === this.endpoint && e.item === this.item;
    const entry = claimAttempt((e) => mine(e) && e.va!.method === method) ?? claimAttempt(mine);
    if (entry && isVaOrder(entry.va!)) {
      const order = entry.va as unknown as VaOrder;
      saveAttempt(entry);
      this.method = order.method;
      this.#show(order);
      this.#watch();
      this.emit('pay-open', { orderNum: order.orderNum, mode: 'inline', expiresAt: order.expiresAt, restored: true });
    }
  }

  /**
   * Creates the order, as a click on the button does. Returns false when nothing started:
   * disabled, an order already on display or being created, the merchant's `quote()` refused this
   * same request, or `pay-click` cancelled.
   */
  create(): boolean {
    if (this.disabled || /loading|pending/.test(this.state) || this.done || !this.emit('pay-click', { item: this.item, method: this.method }, { cancelable: true })) return false;
    const request = this.request;
    const key = this.#retryKey?.[1] === request ? this.#retryKey[0] : newIdempotencyKey();
    const work = (this.#work = new AbortController());
    this.#retryKey = undefined;
    this.setState('loading');
    // `lang`: a refusal (the purchase paid by another order) is said in the element's language.
    createVa(this.endpoint, { ...this.fields, item: this.item, method: this.method, idempotencyKey: key, lang: this.currentLocale }, work.signal).then(
      (order) => {
        if (work !== this.#work) return;
        saveAttempt({ orderNum: order.orderNum, statusToken: order.statusToken, endpoint: this.endpoint, item: this.item, va: { ...order } });
        this.#show(order);
        // Paid already (another tab paid this purchase): the poll says so at once, nothing to pay.
        if (order.status != 'paid') this.emit('pay-open', { orderNum: order.orderNum, mode: 'inline', expiresAt: order.expiresAt });
        this.#watch();
      },
      (err: unknown) => {
        if (work !== this.#work) return;
        const e = toPayError(err);
        if (e.retryable) this.#retryKey = [key, request];
        this.#end('error', 'pay-error', e);
      },
    );
    return true;
  }

  /** Stops watching, forgets the order (also from sessionStorage) and returns to `idle`. No event. */
  reset(): void {
    this.#stop();
    if (this.#order) dropAttempt(this.#order.orderNum);
    this.#order = this.#retryKey = this.#qr = this.#other = undefined;
    this.setState('idle');
  }

  /** Shows `order`, pending (`#watch` then follows it). */
  #show(order: VaOrder): void {
    this.#order = order;
    this.#qr = undefined;
    this.setState('pending', 'pending');
  }

  /** Fetches the QRIS image once per order; without it the payload stays readable as text. */
  #loadQr(order: VaOrder, signal: AbortSignal): void {
    if (this.#qr?.orderNum === order.orderNum || METHODS[order.method as MethodCode]?.kind !== 'qr') return;
    getQr(this.endpoint, order.orderNum, order.statusToken, signal).then(
      (qr) => {
        if (this.#order === order) (this.#qr = qr), this.requestUpdate();
      },
      () => {},
    );
  }

  /**
   * Polls the status until the order ends, or another order of its purchase paid it (`closed`:
   * the number stays open at the gateway, the family has no cancellation, so the customer is told
   * not to pay it), while the countdown ticks.
   */
  #watch(): void {
    const order = this.#order!;
    this.#stop();
    // Detached: nothing to show; connectedCallback starts again.
    if (!this.isConnected) return;
    const work = (this.#work = new AbortController());
    this.#tick = setInterval(() => this.requestUpdate(), 1000);
    this.#loadQr(order, work.signal);
    pollOrder(() => getOrder(this.endpoint, order.orderNum, order.statusToken, work.signal), (_, answer) => !answer?.paidWith, this.pollInterval, MAX_POLL_DELAY, work.signal).then(
      (result) => {
        if (work !== this.#work) return;
        this.#other = result.paidWith ?? result.duplicateOf;
        if (result.status == 'pending') this.#end('closed', 'pay-cancel', { orderNum: result.orderNum, reason: 'paid-elsewhere', paidWith: result.paidWith });
        else this.#end(result.status, result.status == 'paid' ? 'pay-success' : 'pay-failure', result);
      },
      (err: unknown) => work === this.#work && this.#end('error', 'pay-error', toPayError(err)),
    );
  }

  #stop(): void {
    this.#work?.abort();
    this.#work = undefined;
    clearInterval(this.#tick);
  }

  /** The one exit: the order (if any) is over, so a reload must not show it again. A refusal says the merchant's words (see `report`). */
  #end<E extends EndEvent>(state: PayVaState, event: E, detail: PayEventDetail<E>): void {
    this.#stop();
    if (this.#order) dropAttempt(this.#order.orderNum);
    this.report(state, event, detail);
  }

  /** Copies `text`; without the clipboard API (insecure context) it selects the shown `part` for Ctrl+C. */
  #copy(text: string, part: string): void {
    const select = () => getSelection()?.selectAllChildren(this.renderRoot.querySelector(`[part=${part}]`)!);
    navigator.clipboard ? navigator.clipboard.writeText(text).then(() => this.setState(this.state, 'copied'), select) : select();
  }

  /** A value with its copy button. */
  #copyable(label: string, part: string, shown: string, text: string, button: string) {
    return html`<div class="label">${label}</div>
      <div class="value">
        <code part=${part}>${shown}</code>
        <button part=${button} type="button" aria-label="${this.text('copy')}: ${label}" @click=${() => this.#copy(text, part)}>${this.text('copy')}</button>
      </div>`;
  }

  #qrImage(order: VaOrder, total: string) {
    const qr = this.#qr;
    const fallback = html`<code part="number">${order.vaNumber}</code>`;
    return html`<slot name="qr"
      >${qr
        ? html`<svg part="qr" role="img" aria-label=${fill(this.text('qrAlt'), { total })} viewBox="0 0 ${qr.size} ${qr.size}" shape-rendering="crispEdges">
              <rect width="100%" height="100%" fill="#fff"></rect><path d=${qr.path} fill="#000"></path>
            </svg>
            <button part="save-qr" type="button" @click=${() => saveQr(qr, order.orderNum)}>${this.text('saveQr')}</button>`
        : fallback}</slot
    >`;
  }

  /** The paid, expired, failed or closed panel, in place of the instructions. */
  #outcome(order: VaOrder | undefined, total: string) {
    const state = this.state as 'paid' | 'expired' | 'failed' | 'closed';
    const other = this.#other;
    return html`<div part="panel outcome" class=${state}>
      <p class="title">${this.text(`${state}Title`)}</p>
      <p>${fill(this.text(`${state}Body`), { total, order: other! })}</p>
      ${state == 'paid' && other ? html`<p>${fill(this.text('paidTwiceBody'), { order: other })}</p>` : nothing}
      ${order ? html`<p class="muted">${METHODS[order.method as MethodCode]?.displayName ?? order.method} · ${order.orderNum}</p>` : nothing}
      ${/paid|closed/.test(state) ? nothing : this.#button('newNumber')}
    </div>`;
  }

  #button(label: VaMessageKey) {
    return html`<button part="button" type="button" ?disabled=${this.disabled} aria-disabled=${this.done} aria-busy=${this.state === 'loading'} @click=${this.create}>
      <slot>${this.text(label)}</slot>
    </button>`;
  }

  protected override render() {
    const order = this.#order;
    const sum = order ? Number(order.payMoney) + Number(order.payFee) : 0;
    const total = formatRupiah(sum);
    if (order && /paid|expired|failed|closed/.test(this.state)) return html`${this.#outcome(order, total)}${this.renderStatus()}`;
    if (!order || this.state !== 'pending') return html`${this.#button('getNumber')}${this.renderStatus()}`;
    const info = METHODS[order.method as MethodCode];
    const kind = info?.kind ?? 'virtual-account';
    const label = this.text(kind === 'virtual-account' ? 'vaNumber' : kind === 'retail' ? 'payCode' : kind === 'qr' ? 'qr' : 'reference');
    const name = info?.displayName ?? order.method;
    const steps = this.text(kind === 'virtual-account' ? 'stepsVa' : kind === 'qr' ? 'stepsQr' : kind === 'retail' ? 'stepsRetail' : 'stepsEwallet');
    const values = { total, code: order.vaNumber, method: name };
    return html`<div part="panel">
        <div part="method">${name}</div>
        ${this.#copyable(this.text(kind === 'virtual-account' ? 'transferExactly' : 'payExactly'), 'total', total, String(sum), 'copy-total')}
        <dl part="amounts">
          <dt>${this.text('amount')}</dt>
          <dd>${formatRupiah(order.payMoney)}</dd>
          <dt>${this.text('fee')}</dt>
          <dd>${formatRupiah(order.payFee)}</dd>
        </dl>
        ${kind === 'qr'
          ? html`<div class="label">${label}</div>${this.#qrImage(order, total)}`
          : this.#copyable(label, 'number', order.vaNumber, order.vaNumber, 'copy')}
        <p part="countdown">${this.text('payWithin')} <time>${countdown(expiryOf(order.expiresAt), Date.now(), [this.text('day'), this.text('days')])}</time></p>
        <details part="steps" open>
          <summary>${this.text('howToPay')}</summary>
          <ol>${steps.split('|').map((step) => html`<li>${fill(step, values)}</li>`)}</ol>
        </details>
      </div>
      ${this.renderStatus()}`;
  }
}
