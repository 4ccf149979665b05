/**
 * What every entry exports besides its own handler (`index.ts`: `createPayButton()`; each
 * `adapters/*.ts` its framework's): errors, events, results and the public order view.
 * One list, so the entries cannot drift apart.
 */
export type { SelfCheckReport, SelfCheckProblem } from './self-check.ts';
export type { LoggerLike } from './logging/logger.ts';
export type { QuoteRequestBody, OnPaidFunction, PaidContext } from './options.ts';
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
  ConfirmationEvent,
  ConfirmationOutcome,
  ConfirmationSource,
  OrderRefusedEvent,
  SweepRoundEvent,
  WarningEvent,
} from './events.ts';
export type { PaymentLink, VaOrder, ServerCreateInput } from './routes/create.ts';
export type { OrderStatusBody } from './routes/status.ts';
export type { ReconcileOptions, ReconcileReport } from './orders/reconcile.ts';
export type { PersonalDataApi, PersonalDataExport, PersonalDataRecord, ErasureReport } from './personal-data/service.ts';
export type { PersonQuery } from './personal-data/query.ts';
export type { ErasureRefusal } from './personal-data/decide.ts';
/** `signal.reason` of an `onPaid` run that lost its lease. */
export { LeaseLostError } from './orders/fulfilment.ts';
export type { Order, OrderKind, OrderStatus } from './public-order.ts';
export type { DatabaseOption } from './store/database.ts';
