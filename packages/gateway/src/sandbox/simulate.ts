/**
 * The customer paying, as the sandbox simulates it (the sandbox API's `pay` route and
 * `SandboxGateway.pay`). One rule for both: a method given for an order that has none is chosen
 * first; a method that disagrees with the one the order already has is refused naming `method`,
 * never ignored (paying a VA_BCA order "with OVO" and answering 200 would tell the merchant's
 * test something that cannot happen at a real gateway).
 */
import type { MethodCode } from '@tombolbayar/protocol';
import type { DomainContext } from '../domain/context.ts';
import { chooseMethod } from '../domain/create-order.ts';
import { DOMAIN_MESSAGES, DomainError } from '../domain/errors.ts';
import { readOrder, transition } from '../domain/transitions.ts';
import type { Order } from '../domain/types.ts';
import type { Simulations } from '../gateway-types.ts';

/**
 * What to do with the method a payment names, given the order as it is: pure, table-tested.
 * `pay`: go on and pay; `choose`: choose this method first; `refuse`: the message of the refusal.
 */
export function methodDecision(order: Pick<Order, 'status' | 'method'> | undefined, asked: MethodCode | null | undefined):
  | { readonly action: 'pay' }
  | { readonly action: 'choose'; readonly method: MethodCode }
  | { readonly action: 'refuse'; readonly message: string } {
  // No method named, no order, or an order past PENDING: the transition says what is wrong.
  if (!asked || !order || order.status !== 'PENDING') return { action: 'pay' };
  if (order.method === null) return { action: 'choose', method: asked };
  if (order.method !== asked) return { action: 'refuse', message: DOMAIN_MESSAGES.methodDisagrees(order.method, asked) };
  return { action: 'pay' };
}

/** PENDING -> PAID, choosing `method` first for a link without one. Throws DomainError. */
export async function simulatePayment(context: DomainContext, platOrderNum: string, method?: MethodCode | null): Promise<Order> {
  // Two rounds: a choice made by someone else between the read and ours is judged again.
  for (let round = 0; ; round++) {
    const decision = methodDecision(method ? await readOrder(context, platOrderNum) : undefined, method);
    if (decision.action === 'refuse') throw new DomainError('method-already-chosen', decision.message, 'method');
    if (decision.action === 'choose') {
      try {
        await chooseMethod(context, platOrderNum, decision.method);
      } catch (error) {
        if (round === 0 && error instanceof DomainError && error.code === 'method-already-chosen') continue;
        throw error;
      }
    }
    return transition(context, platOrderNum, 'PAID');
  }
}

/**
 * What a `SandboxGateway` simulates, on `context`, each after `ready`. The sandbox composes these
 * onto its gateway (`compose.ts`); a test of production mode may compose them itself (`internal.ts`).
 */
export function createSimulations(context: DomainContext, ready: Promise<void>): Simulations {
  const afterReady = async <T>(action: () => Promise<T>): Promise<T> => {
    await ready;
    return action();
  };
  return {
    clock: context.clock,
    pay: (platOrderNum, options) => afterReady(() => simulatePayment(context, platOrderNum, options?.method)),
    expire: (platOrderNum) => afterReady(() => transition(context, platOrderNum, 'EXPIRED', { force: true })),
    fail: (platOrderNum) => afterReady(() => transition(context, platOrderNum, 'FAILED')),
    chooseMethod: (platOrderNum, method) => afterReady(() => chooseMethod(context, platOrderNum, method)),
  };
}
