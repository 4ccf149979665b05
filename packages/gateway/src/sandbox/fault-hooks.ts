/**
 * The sandbox's faults, supplied through the production core's seams (`domain/hooks.ts`) instead
 * of branches inside its handlers and transactions: the create hook and the notification rows read
 * the stored fault rules (`fault-store.ts`) and do what a real gateway sometimes does. Composed onto
 * a gateway only in sandbox mode (`compose.ts`); production's hooks never read a rule.
 */
import type { CreateAnswer, GatewayHooks, OrderKey, QueuedRow } from '../domain/hooks.ts';
import type { Order } from '../domain/types.ts';
import type { Executor } from '../store/executor.ts';
import { findFaultRules } from './fault-store.ts';
import { effectiveFaults, type CreateFaults, type NotificationFaults } from './faults.ts';

export const UNKNOWN_MESSAGE = 'the outcome is unknown (sandbox fault): query the order before retrying';

/** What a create does under these faults: pure, table-tested. */
export function createPlan(faults: CreateFaults | undefined): { readonly storesOrder: boolean; readonly answersUnknown: boolean; readonly delayMs: number } {
  const answersUnknown = faults?.respond === 'UNKNOWN';
  // Only an UNKNOWN answer can pretend the order was not stored.
  return { storesOrder: !(answersUnknown && faults?.orderCreated === false), answersUnknown, delayMs: faults?.delayMs ?? 0 };
}

/** The outbox rows of a notification under these faults: pure, table-tested. */
export function notificationRows(faults: NotificationFaults | undefined, now: number): QueuedRow[] {
  if (faults?.drop) return [{ state: 'dropped', fault: 'drop', nextAttemptAt: now }];
  const delayMs = faults?.delayMs ?? 0;
  const first: QueuedRow = { state: 'pending', fault: delayMs > 0 ? 'delay' : null, nextAttemptAt: now + delayMs };
  return faults?.duplicate ? [first, { state: 'pending', fault: 'duplicate', nextAttemptAt: now + delayMs }] : [first];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function faultsOf(db: Executor, key: OrderKey) {
  return effectiveFaults(await findFaultRules(db, key.merchantCode, key.orderNum));
}

/** The sandbox's hooks: the stored rules, the order's rule winning over the merchant's. */
export const FAULT_HOOKS: GatewayHooks = Object.freeze({
  async aroundCreate(db: Executor, key: OrderKey, create: () => Promise<Order>): Promise<CreateAnswer> {
    const plan = createPlan((await faultsOf(db, key)).create);
    // A refused create (DomainError) answers at once, without the delay.
    const order = plan.storesOrder ? await create() : undefined;
    if (plan.delayMs > 0) await sleep(plan.delayMs);
    return plan.answersUnknown || !order ? { kind: 'unknown', message: UNKNOWN_MESSAGE } : { kind: 'created', order };
  },
  async notificationRows(trx: Executor, key: OrderKey, now: number): Promise<readonly QueuedRow[]> {
    return notificationRows((await faultsOf(trx, key)).notifications, now);
  },
});
