/**
 * `@paybutton/gateway`: a faithful, self-hostable BDPay-family payment gateway with a sandbox.
 * Start one with `createGateway(options)` (in-process) or the `paybutton-gateway` CLI.
 */
export { createGateway, type Gateway } from './gateway.ts';
export { GatewayConfigError, DEFAULT_DATA_DIR, type GatewayOptions, type MerchantRegistration } from './options.ts';
export type { Order, OrderKind, Merchant, FinalStatus } from './domain/types.ts';
export type { Clock } from './domain/clock.ts';
export { DomainError, OrderNotFoundError, OrderNotPendingError, type DomainErrorCode } from './domain/errors.ts';
export { MerchantRegistrationError } from './domain/merchants.ts';
export { DEFAULT_FEES, DEFAULT_LIMITS, computeFee, type FeeRule, type AmountLimit } from './domain/pricing.ts';
export { VA_PREFIXES } from './domain/payment-codes.ts';
export { buildQrisPayload, crc16CcittFalse, hasValidCrc, parseTlv } from './domain/qris.ts';
export type { Delivery, Deliveries } from './notify/deliveries.ts';
export type { NotificationState, DeliveryAttemptRecord } from './store/outbox.ts';
export type { FaultSettings } from './sandbox/faults.ts';
export { BODY_LIMIT_BYTES } from './http/edges.ts';
