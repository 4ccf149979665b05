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
export type { PayButtonOptions, QuoteFunction, RateLimitOptions, RateLimitKey } from './options.ts';
export * from './public-types.ts';
