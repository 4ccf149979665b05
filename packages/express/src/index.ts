/**
 * `@tombolbayar/express`: the merchant's side of `<pay-button>`.
 *
 *     import { payButton } from '@tombolbayar/express';
 *     app.use('/pay', payButton({ gatewayUrl, merchantCode, privateKey, platformPublicKey, publicUrl, quote, onPaid }));
 */
export { payButton, type PayButtonRouter, type ReadyReport } from './router.ts';
import type { Request as ExpressRequest } from 'express';
import type * as Core from './options.ts';
export type { SelfCheckReport, SelfCheckProblem } from './self-check.ts';
export type { LoggerLike } from './logging/logger.ts';
export type { QuoteRequestBody, OnPaidFunction, PaidContext } from './options.ts';
/** The options of `payButton()`: `quote` and `rateLimit.key` receive Express's `req`. */
export type PayButtonOptions = Core.PayButtonOptions<ExpressRequest>;
export type QuoteFunction = Core.QuoteFunction<ExpressRequest>;
export type RateLimitOptions = Core.RateLimitOptions<ExpressRequest>;
export type RateLimitKey = Core.RateLimitKey<ExpressRequest>;
export type { QuoteResult } from './quote.ts';
export { PayButtonError, NotForSaleError, isPayButtonError, type PayButtonErrorCode } from './errors.ts';
export type {
  PayButtonEvents,
  PayButtonEventMap,
  PayButtonEventName,
  OrderTransitionEvent,
  GatewayCallEvent,
  GatewayCallOutcome,
  GatewayOperation,
  NotificationAcceptedEvent,
  NotificationRejectedEvent,
  NotificationRejectReason,
  FulfilmentEvent,
  DuplicatePaymentEvent,
  WarningEvent,
} from './events.ts';
export type { PaymentLink, VaOrder, ServerCreateInput } from './routes/create.ts';
export type { OrderStatusBody } from './routes/status.ts';
export type { ReconcileOptions, ReconcileReport } from './orders/reconcile.ts';
/** `signal.reason` of an `onPaid` run that lost its lease. */
export { LeaseLostError } from './orders/fulfilment.ts';
export type { Order, OrderKind, OrderStatus } from './public-order.ts';
export type { DatabaseOption } from './store/database.ts';
