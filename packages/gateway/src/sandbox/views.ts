/** JSON shapes of the sandbox API: readable (ISO times, string amounts), never secrets. */
import { toRupiahString } from '@tombolbayar/protocol';
import type { Order } from '../domain/types.ts';
import type { Delivery } from '../notify/deliveries.ts';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function orderView(order: Order, url: string | null) {
  return {
    platOrderNum: order.platOrderNum,
    orderNum: order.orderNum,
    merchantCode: order.merchantCode,
    kind: order.kind,
    status: order.status,
    method: order.method,
    vaNumber: order.vaNumber,
    payMoney: toRupiahString(order.payMoney),
    payFee: order.payFee === null ? null : toRupiahString(order.payFee),
    productDetail: order.productDetail,
    name: order.name,
    email: order.email,
    phone: order.phone,
    notifyUrl: order.notifyUrl,
    redirectUrl: order.redirectUrl,
    url,
    createdAt: iso(order.createdAt),
    expiresAt: iso(order.expiresAt),
    paidAt: iso(order.paidAt),
    closedAt: iso(order.closedAt),
  };
}

/** A delivery as the sandbox API answers it (ISO times). */
export function deliveryJson(delivery: Delivery) {
  return {
    id: delivery.id,
    platOrderNum: delivery.platOrderNum,
    orderNum: delivery.orderNum,
    merchantCode: delivery.merchantCode,
    event: delivery.event,
    url: delivery.url,
    state: delivery.state,
    fault: delivery.fault,
    fields: delivery.fields,
    attemptCount: delivery.attemptCount,
    nextAttemptAt: iso(delivery.nextAttemptAt),
    createdAt: iso(delivery.createdAt),
    deliveredAt: iso(delivery.deliveredAt),
    attempts: delivery.attempts.map((attempt) => ({
      number: attempt.number,
      at: iso(attempt.attemptedAt),
      acknowledged: attempt.acknowledged,
      httpStatus: attempt.httpStatus,
      latencyMs: attempt.latencyMs,
      errorClass: attempt.errorClass,
      bodyExcerpt: attempt.bodyExcerpt,
      detail: attempt.detail,
    })),
  };
}
