/**
 * `@paybutton/express`: the merchant's side of `<pay-button>`.
 *
 *     import { payButton } from '@paybutton/express';
 *     app.use('/pay', payButton({ gatewayUrl, merchantCode, privateKey, platformPublicKey, publicUrl, quote, onPaid }));
 */
export { payButton, type PayButtonRouter } from './router.ts';
export type { PayButtonOptions, QuoteFunction, QuoteRequestBody, OnPaidFunction, PaidContext } from './options.ts';
export type { QuoteResult } from './quote.ts';
export { PayButtonError, NotForSaleError, isPayButtonError, ERROR_CODES, type PayButtonErrorCode } from './errors.ts';
export {
  PayButtonEvents,
  type PayButtonEventMap,
  type PayButtonEventName,
  type OrderTransitionEvent,
  type GatewayCallEvent,
  type GatewayCallOutcome,
  type GatewayOperation,
  type NotificationAcceptedEvent,
  type NotificationRejectedEvent,
  type NotificationRejectReason,
  type FulfilmentEvent,
  type WarningEvent,
} from './events.ts';
export type { PaymentLink, VaOrder, ServerCreateInput } from './routes/create.ts';
export type { OrderStatusBody } from './routes/status.ts';
export type { ReconcileOptions, ReconcileReport } from './orders/reconcile.ts';
export { createStore, type Store, type DatabaseOption, type Engine, type Order, type OrderKind, type OrderStatus } from './store/index.ts';
export { RETURN_SCRIPT } from './routes/return.ts';
