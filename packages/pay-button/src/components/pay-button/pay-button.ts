import { html, nothing } from 'lit';
import { ButtonAttempt, type PayMode } from './button-attempt.ts';
import { styles } from './pay-button.styles.ts';
import { isBusy } from '../../internal/outcome.ts';

export type { PayButtonState } from '../../internal/outcome.ts';
export type { PayMode } from './button-attempt.ts';


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
 * @event {PayPendingEvent} pay-pending - The payment page was left after a method was chosen, and the order awaits a payment that can still arrive. The element keeps watching (an hour at most), and a later `pay-success` or `pay-failure` follows if the order ends while the page is open (or `pay-cancel`, when a "not confirmed yet" turns out not started once the gateway answers).
 * @event {PayFailureEvent} pay-failure - Terminal: the order expired or failed.
 * @event {PayCancelEvent} pay-cancel - Terminal: the payment page was left before a method was chosen, or `reset()` ended the attempt. The opened order is still watched: a later `pay-success` (or `pay-failure`) follows if it ends while the page is open.
 * @event {PayErrorEvent} pay-error - Terminal: the attempt failed (`code`, `retryable`, `message`). A refusal of the merchant's `quote()` (`not_for_sale`, `quote_refused`) shows its own message, and the same request is not sent again.
 *
 * One true outcome, whatever raced: see `ButtonAttempt`, which runs the attempts.
 */
export class PayButton extends ButtonAttempt {
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

  constructor() {
    super(1000);
    this.mode = 'auto';
    this.pollTimeout = 60_000;
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
