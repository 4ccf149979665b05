/**
 * The hosted payment page of the gateway: `createPaymentPageRouter(deps, options)` returns an
 * Express router the gateway mounts at its root. It serves `/pay?orderNum=<platOrderNum>` and
 * everything under `/pay`. See `routes.ts` for the routes and `deps.ts` for what it needs.
 */
import type { Router } from 'express';
import type { PaymentPageDeps } from './deps.ts';
import type { Locale } from './i18n.ts';
import { createPageRoutes, type PaymentPageOptions } from './routes.ts';

export type { PageActionRefusal, PageOrder, PaymentPageDeps } from './deps.ts';
export { PageActionError } from './deps.ts';
export type { Locale } from './i18n.ts';
export type { PaymentPageOptions } from './routes.ts';
export { CONTENT_SECURITY_POLICY } from './csp.ts';

export function createPaymentPageRouter(
  deps: PaymentPageDeps,
  options: { sandbox: boolean; defaultLocale?: Locale; ownOrigins: PaymentPageOptions['ownOrigins'] } & Partial<Omit<PaymentPageOptions, 'sandbox' | 'defaultLocale' | 'ownOrigins'>>,
): Router {
  return createPageRoutes(deps, options);
}
