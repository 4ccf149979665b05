/**
 * The hosted page's simulate buttons (`PaymentPageDeps.sandbox`): the same transitions as the
 * sandbox JSON API, as the page shows their outcome. Given to the page only by the sandbox.
 */
import type { DomainContext } from '../domain/context.ts';
import { transition } from '../domain/transitions.ts';
import type { FinalStatus } from '../domain/types.ts';
import type { PaymentPageDeps } from '../page/index.ts';
import { asPageAction } from '../page-seam.ts';

export function sandboxPageActions(context: DomainContext): NonNullable<PaymentPageDeps['sandbox']> {
  const simulate = (platOrderNum: string, to: FinalStatus) =>
    asPageAction(context, () => transition(context, platOrderNum, to, { force: to === 'EXPIRED' }));
  return {
    pay: (platOrderNum) => simulate(platOrderNum, 'PAID'),
    expire: (platOrderNum) => simulate(platOrderNum, 'EXPIRED'),
    fail: (platOrderNum) => simulate(platOrderNum, 'FAILED'),
  };
}
