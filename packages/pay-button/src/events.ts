/**
 * The events of `<pay-button>` and `<pay-va>`. All are `CustomEvent`s that bubble and cross shadow
 * roots (`composed`). Each attempt ends in exactly one terminal event: `pay-success`,
 * `pay-pending`, `pay-failure`, `pay-cancel` or `pay-error`.
 */
import type { Order } from './internal/api.ts';
import type { PayButton } from './components/pay-button/pay-button.ts';
import type { PayVa } from './components/pay-va/pay-va.ts';

export type { Order, OrderState, PaymentLink, VaOrder } from './internal/api.ts';

/** `pay-click` (cancelable): the customer asked to pay. Cancel it to stop the attempt (for example, a form is invalid). */
export interface PayClickDetail {
  item: string | undefined;
  method: string | undefined;
}

/** `pay-open`: the payment page is open (popup or redirect), or the VA number is shown (`inline`). */
export interface PayOpenDetail {
  orderNum: string;
  mode: 'popup' | 'redirect' | 'inline';
  expiresAt: string;
  /** The hosted payment page (popup and redirect). */
  url?: string;
  /** `<pay-va>`: a reload showed this order again (it was not created now). */
  restored?: boolean;
}

/** `pay-fallback`: the popup could not be used, the page itself goes to the payment page. */
export interface PayFallbackDetail {
  from: 'popup';
  to: 'redirect';
  reason: 'popup-blocked' | 'in-app-browser';
}

/** `pay-success` / `pay-pending` / `pay-failure`: the order as the plug-in reports it. */
export type PayOutcomeDetail = Order;

/**
 * `pay-cancel`: the customer left without paying. `closed` = closed the popup or came back
 * without finishing; `reset` = the page called `reset()` during the attempt.
 */
export interface PayCancelDetail {
  orderNum: string | undefined;
  reason: 'closed' | 'reset' | 'paid-elsewhere';
  /** `paid-elsewhere`: the order that paid the purchase (another tab's number or link); this one needs no payment. */
  paidWith?: string;
}

/** `pay-error`: the attempt failed before an outcome was known. See `PayError` for the codes. */
export interface PayErrorDetail {
  code: string;
  retryable: boolean;
  message: string;
  /** HTTP status of the plug-in's answer, when there was one. */
  status?: number;
}

export type PayClickEvent = CustomEvent<PayClickDetail>;
export type PayOpenEvent = CustomEvent<PayOpenDetail>;
export type PayFallbackEvent = CustomEvent<PayFallbackDetail>;
export type PaySuccessEvent = CustomEvent<PayOutcomeDetail>;
export type PayPendingEvent = CustomEvent<PayOutcomeDetail>;
export type PayFailureEvent = CustomEvent<PayOutcomeDetail>;
export type PayCancelEvent = CustomEvent<PayCancelDetail>;
export type PayErrorEvent = CustomEvent<PayErrorDetail>;

export interface PayEventMap {
  'pay-click': PayClickEvent;
  'pay-open': PayOpenEvent;
  'pay-fallback': PayFallbackEvent;
  'pay-success': PaySuccessEvent;
  'pay-pending': PayPendingEvent;
  'pay-failure': PayFailureEvent;
  'pay-cancel': PayCancelEvent;
  'pay-error': PayErrorEvent;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface GlobalEventHandlersEventMap extends PayEventMap {}
  interface HTMLElementTagNameMap {
    'pay-button': PayButton;
    'pay-va': PayVa;
  }
}
