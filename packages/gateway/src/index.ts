/**
 * `@tombolbayar/gateway`: a faithful, self-hostable BDPay-family payment gateway with a sandbox.
 * Start one with `createGateway(options)` (in-process) or the `tombolbayar-gateway` CLI.
 *
 * What an operator calls; the repository's own tests and benchmarks use `./internal.ts` for more.
 */
export { createGateway, type Gateway, type SandboxGateway } from './gateway.ts';
export { GatewayConfigError, type GatewayOptions, type MerchantRegistration } from './options.ts';
export type { Order, OrderKind, Merchant, FinalStatus } from './domain/types.ts';
export type { OrderStatus } from '@tombolbayar/protocol';
export type { Clock } from './domain/clock.ts';
export { DomainError, OrderNotFoundError, OrderNotPendingError, type DomainErrorCode } from './domain/errors.ts';
export { MerchantRegistrationError } from './domain/merchants.ts';
export { NOTIFICATION_KINDS, DEFAULT_NOTIFICATION_KINDS, type NotificationKind } from './domain/notify-kinds.ts';
export type { FeeRule, AmountLimit } from './domain/pricing.ts';
export type { Delivery, DeliveryAttempt, Deliveries } from './notify/deliveries.ts';
export type { NotificationState, DeliveryAttemptRecord } from './store/outbox.ts';
