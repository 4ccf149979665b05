/**
 * `@tombolbayar/gateway/internal`: what this repository's own tests and benchmarks use beyond the
 * public API. Not a stable API: names here may change in any release.
 *
 * - `gatewayInternals(gateway)`: the hosted page's dependencies, the domain, and on a sandbox
 *   gateway its simulations; `simulationsFor(gateway)`: the sandbox's simulations composed by the
 *   caller onto a gateway of either mode (tests of production mode that need a paid order).
 * - The domain and store functions the benchmarks seed orders with (no bulk create exists in the
 *   public API, by design: the HTTP API with its signature is the way in).
 * - The QRIS payload helpers the tests check payloads with.
 */
export { gatewayInternals, type GatewayInternals, type SandboxInternals, type Simulations } from './gateway-internals.ts';
export { simulationsFor } from './sandbox/simulations-for.ts';
export { createClock } from './domain/clock.ts';
export type { DomainContext } from './domain/context.ts';
export { createOrder } from './domain/create-order.ts';
export { registerMerchant } from './domain/merchants.ts';
export { buildFeeTable, buildLimitTable, computeFee, DEFAULT_FEES, DEFAULT_LIMITS } from './domain/pricing.ts';
export { VA_PREFIXES } from './domain/payment-codes.ts';
export { buildQrisPayload, crc16CcittFalse, hasValidCrc, parseTlv } from './domain/qris.ts';
export { checkCallbackUrl } from './notify/delivery/index.ts';
export { PRODUCTION_HOOKS, type GatewayHooks } from './domain/hooks.ts';
export type { DatabaseConfig } from './store/database.ts';
export { openStore } from './store/open.ts';
