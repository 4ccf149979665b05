/**
 * `@tombolbayar/express`: `<pay-button>`'s server side on Express, in one line.
 *
 *     import { payButton } from '@tombolbayar/express';
 *     app.use('/pay', payButton({ gatewayUrl, merchantCode, privateKey, platformPublicKey, publicUrl, quote, onPaid }));
 *
 * The plug-in itself is `@tombolbayar/server` (one framework-neutral core with an adapter per
 * framework); this package is its Express adapter with what an Express app wants besides:
 * Express's types and readable log lines in a terminal (`pino-pretty`).
 */
export * from '@tombolbayar/server/express';
