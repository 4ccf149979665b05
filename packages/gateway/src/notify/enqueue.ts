/**
 * Writing a notification into the outbox, inside the transaction that changed the order's state.
 * In the sandbox this is where the notification fault rules take effect.
 */
import { nanoid } from 'nanoid';
import type { FinalStatus, Order } from '../domain/types.ts';
import type { Executor } from '../store/executor.ts';
import { findFaultRules } from '../store/faults.ts';
import { insertNotification } from '../store/outbox.ts';
import { effectiveFaults } from '../sandbox/faults.ts';
import { signedNotificationFields, type PlatformSigner } from './notification.ts';

export interface EnqueueContext {
  readonly sign: PlatformSigner;
  readonly sandbox: boolean;
}

/** Insert the outbox row(s) for the order's new state; returns how many will be delivered. */
export async function enqueueNotification(
  trx: Executor,
  order: Order,
  event: FinalStatus,
  now: number,
  context: EnqueueContext,
): Promise<number> {
  const fields = signedNotificationFields(order, event, context.sign);
  const faults = context.sandbox ? effectiveFaults(await findFaultRules(trx, order.merchantCode, order.orderNum)).notifications : undefined;
  const base = {
    platOrderNum: order.platOrderNum,
    merchantCode: order.merchantCode,
    orderNum: order.orderNum,
    event,
    url: order.notifyUrl,
    fields,
  };
  if (faults?.drop) {
    await insertNotification(trx, { ...base, id: nanoid(), state: 'dropped', fault: 'drop', nextAttemptAt: now }, now);
    return 0;
  }
  const delay = faults?.delayMs ?? 0;
  const nextAttemptAt = now + delay;
  await insertNotification(trx, { ...base, id: nanoid(), state: 'pending', fault: delay > 0 ? 'delay' : null, nextAttemptAt }, now);
  if (!faults?.duplicate) return 1;
  await insertNotification(trx, { ...base, id: nanoid(), state: 'pending', fault: 'duplicate', nextAttemptAt }, now);
  return 2;
}
