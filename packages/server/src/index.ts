/**
 * `@tombolbayar/server` (also `@tombolbayar/server/fetch`): the plug-in on Web `Request` →
 * `Response`, for any framework (or none: Bun, Deno). Each framework mounts it through its own
 * subpath in one pattern: `payButtonExpress(pay)` from `/express`, `payButtonHono(pay)` from
 * `/hono`, `payButtonFastify` from `/fastify`, `payButtonNext(pay)` from `/next`,
 * `payButtonNode(pay)` from `/node` (plain `node:http`).
 *
 *     import { createPayButton } from '@tombolbayar/server';
 *     const pay = createPayButton({ gatewayUrl, merchantCode, privateKey, platformPublicKey, publicUrl, quote, onPaid });
 *     const response = await pay.fetch(request, { clientAddress });
 *
 * Nothing here imports a framework.
 */
export { createPayButton, type PayButtonHandler, type PayButtonApi, type ReadyReport } from './core.ts';
export type { CoreRequest, RequestFacts } from './http/context.ts';
export type { ParsedBody } from './http/body.ts';
export type { PayButtonOptions, QuoteFunction, RateLimitOptions, RateLimitKey } from './options.ts';
export { metricsHandler, type MetricsRouteOptions, type MetricsFacts } from './observability/metrics-route.ts';
export * from './public-types.ts';
