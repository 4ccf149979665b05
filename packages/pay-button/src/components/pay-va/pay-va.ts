import { html, nothing } from 'lit';
import { formatRupiah } from '@paybutton/protocol/formats';
import { METHODS, resolveMethod, type MethodCode } from '@paybutton/protocol/methods';
import { styles } from './pay-va.styles.ts';
import { getOrder, toPayError, type VaOrder } from '../../internal/api.ts';
import { dropAttempt, findAttempt, saveAttempt } from '../../internal/attempt-store.ts';
import { newIdempotencyKey } from '../../internal/idempotency.ts';
import { PayElement } from '../../internal/pay-element.ts';
import { pollOrder } from '../../internal/poll.ts';
import { vaStrings, type VaMessageKey } from './pay-va.strings.ts';
import { parseDateTime } from './formats.ts';
import { createVa, isVaOrder } from './va-api.ts';

/** Reflected `state` of `<pay-va>`. */
export type PayVaState = 'idle' | 'loading' | 'pending' | 'paid' | 'expired' | 'failed' | 'error';

/** Longest pause between two status requests while the customer pays, in ms. */
const MAX_POLL_DELAY = 15_000;

/**
 * `expiresAt` in epoch ms: the wire's `yyyyMMddHHmmss` in Jakarta time (the protocol's
 * `parseDateTime`), or ISO 8601; NaN when it is neither (or names no real moment).
 */
export function expiryOf(expiresAt: string): number {
  return parseDateTime(expiresAt)?.getTime() ?? Date.parse(expiresAt);
}

/** `H:MM:SS` (`MM:SS` under an hour) left until `until`, never negative; empty for an unknown expiry. */
export function countdown(until: number, now: number): string {
  if (!(until > 0)) return '';
  const s = Math.max(0, Math.floor((until - now) / 1000));
  const mmss = `${String(Math.floor(s / 60) % 60).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
  return s < 3600 ? mmss : `${Math.floor(s / 3600)}:${mmss}`;
}

/**
 * Operation 1 inline: asks the plug-in's `POST {endpoint}/va` for a virtual-account (or QRIS,
 * Alfamart, e-wallet) order and shows what the customer needs to pay it: the bank, the number
 * with a copy button, amount and fee, a countdown, and the live status, ending in the same
 * outcome events as `<pay-button>`. The order survives a reload of the page (sessionStorage).
 *
 * QRIS: the number is the QR payload. It is shown as text, as the `qr` slot's fallback; put an
 * image there (made by your server from the order) to show a scannable code. The element draws no
 * QR itself, to stay within the size budget.
 *
 * @tagname pay-va
 * @summary The VA number of an order, inline, with live status.
 *
 * @slot - Label of the button that creates the order. Defaults to "Get payment number".
 * @slot qr - For QRIS: a QR image of the payload. Defaults to the payload as text.
 *
 * @csspart button - The button that creates the order.
 * @csspart panel - The box around the order.
 * @csspart method - The bank or method name.
 * @csspart number - The VA number (or payment code, or QRIS payload).
 * @csspart copy - The copy button.
 * @csspart amounts - Amount and fee.
 * @csspart countdown - Time left to pay.
 * @csspart status - The polite live region that says what is happening.
 *
 * @cssprop [--pay-va-border=1px solid #c8ccd4] - Border of the panel.
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
 * @cssstate pending - The number is shown; waiting for the payment.
 * @cssstate paid - Paid (verified).
 * @cssstate expired - The order expired.
 * @cssstate failed - The payment failed.
 * @cssstate error - Something failed before an outcome was known.
 *
 * @event {PayClickEvent} pay-click - The customer asked for a number. Cancelable.
 * @event {PayOpenEvent} pay-open - The number is shown (`mode: 'inline'`).
 * @event {PaySuccessEvent} pay-success - Terminal: paid.
 * @event {PayFailureEvent} pay-failure - Terminal: expired or failed.
 * @event {PayErrorEvent} pay-error - Terminal: the order could not be created or its status read.
 */
export class PayVa extends PayElement<PayVaState, VaMessageKey> {
  static override styles = styles;
  static override strings = vaStrings;

  #order: VaOrder | undefined;
  /** The request or polling loop in flight; its identity guards late answers. */
  #work: AbortController | undefined;
  #tick: ReturnType<typeof setInterval> | undefined;
  #retryKey: string | undefined;

  constructor() {
    super('idle', 2000);
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

  /** A reload shows the same order again instead of making a new one (if what was stored still reads as one). */
  #restore(): void {
    const method = resolveMethod(this.method ?? '') ?? this.method;
    const entry = findAttempt((e) => e.va?.method === method && e.endpoint === this.endpoint && e.item === this.item);
    if (entry && isVaOrder(entry.va!)) this.#show(entry.va as unknown as VaOrder, false);
  }

  /**
   * Creates the order, as a click on the button does. Returns false when nothing started:
   * disabled, an order already on display or being created, or `pay-click` cancelled.
   */
  create(): boolean {
    if (this.disabled || /loading|pending|paid/.test(this.state) || !this.emit('pay-click', { item: this.item, method: this.method }, true)) return false;
    const key = this.#retryKey ?? newIdempotencyKey();
    const work = (this.#work = new AbortController());
    this.#retryKey = undefined;
    this.setState('loading');
    createVa(this.endpoint, { ...this.fields, item: this.item, method: this.method, idempotencyKey: key }, work.signal).then(
      (order) => {
        if (work !== this.#work) return;
        saveAttempt({ orderNum: order.orderNum, statusToken: order.statusToken, endpoint: this.endpoint, item: this.item, va: { ...order } });
        this.#show(order, true);
      },
      (err: unknown) => {
        if (work !== this.#work) return;
        const e = toPayError(err);
        if (e.retryable) this.#retryKey = key;
        this.#end('error', 'pay-error', e);
      },
    );
    return true;
  }

  /** Stops watching, forgets the order (also from sessionStorage) and returns to `idle`. No event. */
  reset(): void {
    this.#stop();
    if (this.#order) dropAttempt(this.#order.orderNum);
    this.#order = this.#retryKey = undefined;
    this.setState('idle');
  }

  #show(order: VaOrder, fresh: boolean): void {
    this.#order = order;
    this.setState('pending', 'pending');
    if (fresh) this.emit('pay-open', { orderNum: order.orderNum, mode: 'inline', expiresAt: order.expiresAt });
    this.#watch();
  }

  /** Polls the status until the order ends, while the countdown ticks. */
  #watch(): void {
    const order = this.#order!;
    this.#stop();
    // Detached: nothing to show; connectedCallback starts again.
    if (!this.isConnected) return;
    const work = (this.#work = new AbortController());
    this.#tick = setInterval(() => this.requestUpdate(), 1000);
    pollOrder({
      get: () => getOrder(this.endpoint, order.orderNum, order.statusToken, work.signal),
      more: () => true,
      base: this.pollInterval,
      cap: MAX_POLL_DELAY,
      signal: work.signal,
    }).then(
      (result) => work === this.#work && this.#end(result.status as PayVaState, result.status === 'paid' ? 'pay-success' : 'pay-failure', result),
      (err: unknown) => work === this.#work && this.#end('error', 'pay-error', toPayError(err)),
    );
  }

  #stop(): void {
    this.#work?.abort();
    this.#work = undefined;
    clearInterval(this.#tick);
  }

  /** The one exit: the order (if any) is over, so a reload must not show it again. */
  #end(state: PayVaState, event: string, detail: unknown): void {
    this.#stop();
    if (this.#order) dropAttempt(this.#order.orderNum);
    this.setState(state, state as VaMessageKey);
    this.emit(event, detail);
  }

  /** Copies the number; without the clipboard API (insecure context) it selects it for Ctrl+C. */
  #copy = (): void => {
    const select = () => getSelection()?.selectAllChildren(this.renderRoot.querySelector('[part=number]')!);
    navigator.clipboard ? navigator.clipboard.writeText(this.#order!.vaNumber).then(() => this.setState(this.state, 'copied'), select) : select();
  };

  protected override render() {
    const order = this.#order;
    if (!order || !/pending|paid/.test(this.state)) {
      return html`<button part="button" type="button" ?disabled=${this.disabled} aria-busy=${this.state === 'loading'} @click=${this.create}>
          <slot>${this.text('getNumber')}</slot>
        </button>
        ${this.renderStatus()}`;
    }
    const info = METHODS[order.method as MethodCode];
    const kind = info?.kind;
    const label = this.text(kind === 'virtual-account' ? 'vaNumber' : kind === 'qr' ? 'qr' : 'payCode');
    const number = html`<code part="number">${order.vaNumber}</code>`;
    return html`<div part="panel">
        <div part="method">${info?.displayName ?? order.method}</div>
        ${label}
        ${kind === 'qr' ? html`<p>${this.text('qrNote')}</p><slot name="qr">${number}</slot>` : html`<br />${number}`}
        <button part="copy" type="button" aria-label="${this.text('copy')}: ${label}" @click=${this.#copy}>${this.text('copy')}</button>
        <dl part="amounts">
          <dt>${this.text('amount')}</dt>
          <dd>${formatRupiah(order.payMoney)}</dd>
          <dt>${this.text('fee')}</dt>
          <dd>${formatRupiah(order.payFee)}</dd>
        </dl>
        ${this.state === 'pending'
          ? html`<p part="countdown">${this.text('payWithin')} <time>${countdown(expiryOf(order.expiresAt), Date.now())}</time></p>`
          : nothing}
      </div>
      ${this.renderStatus()}`;
  }
}
