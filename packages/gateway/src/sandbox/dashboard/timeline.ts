/**
 * An order's story as the dashboard tells it: created, paid or closed, each notification queued,
 * each attempt to deliver it (with its answer), delivered. Pure: built from the order and its
 * deliveries, oldest first; table-tested.
 */
import type { Order } from '../../domain/types.ts';
import type { Delivery } from '../../notify/deliveries.ts';

export type TimelineEvent =
  | { readonly at: number; readonly kind: 'created'; readonly amount: number }
  | { readonly at: number; readonly kind: 'closed'; readonly status: Order['status'] }
  | { readonly at: number; readonly kind: 'queued'; readonly deliveryId: string; readonly event: string }
  | {
      readonly at: number;
      readonly kind: 'attempt';
      readonly deliveryId: string;
      readonly number: number;
      readonly acknowledged: boolean;
      readonly httpStatus: number | null;
      readonly latencyMs: number;
      readonly errorClass: string | null;
    }
  | { readonly at: number; readonly kind: 'delivered'; readonly deliveryId: string };

/** Sort order among events at the same millisecond: the order of the story. */
const RANK: Readonly<Record<TimelineEvent['kind'], number>> = { created: 0, closed: 1, queued: 2, attempt: 3, delivered: 4 };

export function orderTimeline(order: Order, deliveries: readonly Delivery[]): TimelineEvent[] {
  const events: TimelineEvent[] = [{ at: order.createdAt, kind: 'created', amount: order.payMoney }];
  if (order.closedAt !== null && order.status !== 'PENDING') events.push({ at: order.closedAt, kind: 'closed', status: order.status });
  for (const delivery of deliveries) {
    events.push({ at: delivery.createdAt, kind: 'queued', deliveryId: delivery.id, event: delivery.event });
    for (const attempt of delivery.attempts) {
      events.push({
        at: attempt.attemptedAt,
        kind: 'attempt',
        deliveryId: delivery.id,
        number: attempt.number,
        acknowledged: attempt.acknowledged,
        httpStatus: attempt.httpStatus,
        latencyMs: attempt.latencyMs,
        errorClass: attempt.errorClass,
      });
    }
    if (delivery.deliveredAt !== null) events.push({ at: delivery.deliveredAt, kind: 'delivered', deliveryId: delivery.id });
  }
  const number = (event: TimelineEvent) => (event.kind === 'attempt' ? event.number : 0);
  return events.sort((a, b) => a.at - b.at || RANK[a.kind] - RANK[b.kind] || number(a) - number(b));
}
