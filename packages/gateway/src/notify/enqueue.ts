/**
 * Writing a notification into the outbox, inside the transaction that changed the order's state,
 * as the rows the gateway's hooks give (`domain/hooks.ts`: one pending row in production), and
 * only of a kind the merchant is notified of (`domain/notify-kinds.ts`: PAID always, FAILED and
 * EXPIRED on request). A kind not asked for is never queued, so it can never be retried.
 */
import { nanoid } from 'nanoid';
import type { FinalStatus, Order } from '../domain/types.ts';
import type { Executor } from '../store/executor.ts';
import type { GatewayHooks } from '../domain/hooks.ts';
import { kindOf } from '../domain/notify-kinds.ts';
import { merchantNotifyKinds } from '../store/merchants.ts';
import { insertNotification } from '../store/outbox.ts';
import { signedNotificationFields, type PlatformSigner } from './notification.ts';

export interface EnqueueContext {
  readonly sign: PlatformSigner;
  readonly hooks: GatewayHooks;
}

/** Insert the outbox row(s) for the order's new state; returns how many will be delivered. */
export async function enqueueNotification(
  trx: Executor,
  order: Order,
  event: FinalStatus,
  now: number,
  context: EnqueueContext,
): Promise<number> {
  // PAID is always sent: the lookup is only paid for by the kinds a merchant may have left out.
  if (event !== 'PAID' && !(await merchantNotifyKinds(trx, order.merchantCode)).includes(kindOf(event))) return 0;
  const fields = signedNotificationFields(order, event, context.sign);
  const rows = await context.hooks.notificationRows(trx, order, now);
  const base = {
    platOrderNum: order.platOrderNum,
    merchantCode: order.merchantCode,
    orderNum: order.orderNum,
    event,
    url: order.notifyUrl,
    fields,
  };
  for (const row of rows) await insertNotification(trx, { ...base, ...row, id: nanoid() }, now);
  return rows.filter((row) => row.state === 'pending').length;
}
