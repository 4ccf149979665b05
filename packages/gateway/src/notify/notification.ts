/**
 * The notification a merchant receives when an order reaches a final state: form
 * fields `code`, `msg`, `status`, `method`, `name`, `email`, `orderNum`, `platOrderNum`,
 * `payMoney`, `payFee`, `vaNumber`, and `platSign` over all the others.
 *
 * Our decisions: FAILED and EXPIRED are notified to a merchant that asked for them (codes from
 * NOTIFICATION_OUTCOMES; which kinds, `domain/notify-kinds.ts`, checked by `enqueue.ts`); `method`
 * and `payFee` are left out while no method was chosen; `vaNumber` is left out for QRIS, whose
 * payload is not an account number and exceeds the notification's 64-character `vaNumber`.
 */
import { METHODS, NOTIFICATION_OUTCOMES, toRupiahString } from '@tombolbayar/protocol';
import type { FinalStatus, Order } from '../domain/types.ts';

/** Signs a field map with the platform key (`platSign`). */
export type PlatformSigner = (fields: Readonly<Record<string, string>>) => string;

export function notificationFields(order: Order, event: FinalStatus): Record<string, string> {
  const outcome = NOTIFICATION_OUTCOMES[event];
  const fields: Record<string, string> = {
    code: outcome.code,
    msg: outcome.msg,
    status: outcome.status,
    name: order.name,
    email: order.email,
    orderNum: order.orderNum,
    platOrderNum: order.platOrderNum,
    payMoney: toRupiahString(order.payMoney),
  };
  if (order.method) fields.method = order.method;
  if (order.payFee !== null) fields.payFee = toRupiahString(order.payFee);
  if (order.vaNumber && order.method && METHODS[order.method].kind !== 'qr') fields.vaNumber = order.vaNumber;
  return fields;
}

/** The fields with their `platSign`, ready to be stored in the outbox and sent as they are. */
export function signedNotificationFields(order: Order, event: FinalStatus, sign: PlatformSigner): Record<string, string> {
  const fields = notificationFields(order, event);
  return { ...fields, platSign: sign(fields) };
}
