/**
 * The gateway's side of the hosted-page seam (`page/deps.ts`): orders as the customer may see
 * them and the method choice, on top of the domain; the sandbox's simulate buttons are its own
 * (`sandbox/page-actions.ts`), given here only when it is composed onto the gateway.
 */
import type { MethodCode } from '@tombolbayar/protocol';
import { changeMethod, chooseMethod } from './domain/create-order.ts';
import type { DomainContext } from './domain/context.ts';
import { DomainError, OrderNotPendingError } from './domain/errors.ts';
import { readOrder } from './domain/transitions.ts';
import type { Order } from './domain/types.ts';
import { NO_BRAND, PageActionError, type PageActionRefusal, type PageOrder, type PaymentPageDeps } from './page/deps.ts';
import { findBranding } from './store/branding.ts';
import { findMerchant } from './store/merchants.ts';

async function toPageOrder(context: DomainContext, order: Order): Promise<PageOrder> {
  // Name, logo, colour and support line as the merchant set them, in either mode (an empty table
  // where nobody set any: one indexed read).
  const [merchant, branding] = await Promise.all([
    findMerchant(context.database.db, order.merchantCode),
    findBranding(context.database.db, order.merchantCode),
  ]);
  return {
    platOrderNum: order.platOrderNum,
    orderNum: order.orderNum,
    merchantCode: order.merchantCode,
    merchantName: branding?.displayName ?? merchant?.name ?? order.merchantCode,
    brand: branding
      ? { logo: branding.logo, accentColor: branding.accentColor, supportContact: branding.supportContact }
      : NO_BRAND,
    methodChangeable: order.kind === 'link',
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

/** How a refusal of "choose another method" reads: the method was the shop's, or the page is old. */
function changeRefusal(error: DomainError): PageActionRefusal | undefined {
  if (error.code === 'method-already-chosen') return 'method-locked';
  if (error.code === 'order-not-pending' && !(error instanceof OrderNotPendingError)) return 'method-changed';
  return undefined;
}

/** Domain refusals become PageActionError; anything else is a fault and propagates as is. */
export async function asPageAction(
  context: DomainContext,
  action: () => Promise<Order>,
  refusal: (error: DomainError) => PageActionRefusal | undefined = () => undefined,
): Promise<PageOrder> {
  try {
    return await toPageOrder(context, await action());
  } catch (error) {
    if (error instanceof DomainError) {
      const reason = refusal(error) ?? REFUSALS[error.code];
      if (reason) throw new PageActionError(reason, error.message);
    }
    throw error;
  }
}

export function createPageDeps(context: DomainContext, sandboxActions?: PaymentPageDeps['sandbox']): PaymentPageDeps {
  return {
    async findOrder(platOrderNum: string) {
      const order = await readOrder(context, platOrderNum);
      return order ? toPageOrder(context, order) : undefined;
    },
    chooseMethod(platOrderNum: string, method: MethodCode) {
      return asPageAction(context, () => chooseMethod(context, platOrderNum, method));
    },
    changeMethod(platOrderNum: string, current: MethodCode) {
      return asPageAction(context, () => changeMethod(context, platOrderNum, current), changeRefusal);
    },
    now: () => context.clock.now(),
    ...(sandboxActions ? { sandbox: sandboxActions } : {}),
  };
}
