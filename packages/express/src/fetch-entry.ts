/**
 * `@tombolbayar/express/fetch`: the plug-in on Web `Request` → `Response`, for any framework (or
 * none: `node:http`, Bun, Deno). `payButton()` of the package's main entry is its Express adapter.
 *
 *     import { createPayButton } from '@tombolbayar/express/fetch';
 *     const pay = createPayButton({ gatewayUrl, merchantCode, privateKey, platformPublicKey, publicUrl, quote, onPaid });
 *     const response = await pay.fetch(request, { clientAddress });
 *
 * Nothing here imports Express.
 */
export { createPayButton, type PayButtonHandler, type PayButtonApi, type ReadyReport } from './pay-button.ts';
export type { CoreRequest, RequestFacts } from './fetch/context.ts';
export type { ParsedBody } from './fetch/body.ts';
export type { SelfCheckReport, SelfCheckProblem } from './self-check.ts';
export type { LoggerLike } from './logging/logger.ts';
export type { PayButtonOptions, QuoteFunction, QuoteRequestBody, OnPaidFunction, PaidContext, RateLimitOptions, RateLimitKey } from './options.ts';
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
