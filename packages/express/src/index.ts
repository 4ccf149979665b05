/**
 * `@tombolbayar/express`: the merchant's side of `<pay-button>`.
 *
 *     import { payButton } from '@tombolbayar/express';
 *     app.use('/pay', payButton({ gatewayUrl, merchantCode, privateKey, platformPublicKey, publicUrl, quote, onPaid }));
 */
export { payButton, type PayButtonRouter, type ReadyReport } from './router.ts';
import type { Request as ExpressRequest } from 'express';
import type * as Core from './options.ts';
/** The options of `payButton()`: `quote` and `rateLimit.key` receive Express's `req`. */
export type PayButtonOptions = Core.PayButtonOptions<ExpressRequest>;
export type QuoteFunction = Core.QuoteFunction<ExpressRequest>;
export type RateLimitOptions = Core.RateLimitOptions<ExpressRequest>;
export type RateLimitKey = Core.RateLimitKey<ExpressRequest>;
export * from './public-types.ts';
