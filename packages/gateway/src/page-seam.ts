/**
 * The gateway's side of the hosted-page seam (`page/deps.ts`): orders as the customer may see
 * them, the method choice, and in the sandbox the simulate buttons, on top of the domain.
 */
import type { MethodCode } from '@tombolbayar/protocol';
import { chooseMethod } from './domain/create-order.ts';
import type { DomainContext } from './domain/context.ts';
import { DomainError } from './domain/errors.ts';
import { readOrder, transition } from './domain/transitions.ts';
import type { FinalStatus, Order } from './domain/types.ts';
import { PageActionError, type PageActionRefusal, type PageOrder, type PaymentPageDeps } from './page/deps.ts';
import { findBranding } from './store/branding.ts';
import { findMerchant } from './store/merchants.ts';

async function toPageOrder(context: DomainContext, order: Order): Promise<PageOrder> {
  const merchant = await findMerchant(context.database.db, order.merchantCode);
  // The display name set on the sandbox dashboard; production pages do not pay for the lookup.
  const branding = context.sandbox ? await findBranding(context.database.db, order.merchantCode) : undefined;
  return {
    platOrderNum: order.platOrderNum,
    orderNum: order.orderNum,
    merchantCode: order.merchantCode,
    merchantName: branding?.displayName ?? merchant?.name ?? order.merchantCode,
    status: order.status,
    method: order.method,
    vaNumber: order.vaNumber,
    payMoney: order.payMoney,
    payFee: order.payFee,
    productDetail: order.productDetail,
    name: order.name,
    redirectUrl: order.redirectUrl,
    createdAt: order.createdAt,
    expiresAt: order.expiresAt,
    paidAt: order.paidAt,
  };
}

const REFUSALS: Partial<Record<DomainError['code'], PageActionRefusal>> = {
  'order-not-found': 'not-found',
  'order-not-pending': 'not-pending',
  'method-already-chosen': 'method-already-chosen',
  'amount-out-of-range': 'method-not-allowed',
  // Paying before choosing: the page offers the picker, so this is a method problem too.
  'method-required': 'method-not-allowed',
};

/** Domain refusals become PageActionError; anything else is a fault and propagates as is. */
async function asPageAction(context: DomainContext, action: () => Promise<Order>): Promise<PageOrder> {
  try {
    return await toPageOrder(context, await action());
  } catch (error) {
    if (error instanceof DomainError) {
      const reason = REFUSALS[error.code];
      if (reason) throw new PageActionError(reason, error.message);
    }
    throw error;
  }
}

export function createPageDeps(context: DomainContext, options: { sandbox: boolean }): PaymentPageDeps {
  const simulate = (platOrderNum: string, to: FinalStatus) =>
    asPageAction(context, () => transition(context, platOrderNum, to, { force: to === 'EXPIRED' }));
  return {
    async findOrder(platOrderNum: string) {
      const order = await readOrder(context, platOrderNum);
      return order ? toPageOrder(context, order) : undefined;
    },
    chooseMethod(platOrderNum: string, method: MethodCode) {
      return asPageAction(context, () => chooseMethod(context, platOrderNum, method));
    },
    now: () => context.clock.now(),
    ...(options.sandbox
      ? {
          sandbox: {
            pay: (platOrderNum: string) => simulate(platOrderNum, 'PAID'),
            expire: (platOrderNum: string) => simulate(platOrderNum, 'EXPIRED'),
            fail: (platOrderNum: string) => simulate(platOrderNum, 'FAILED'),
          },
        }
      : {}),
  };
}
