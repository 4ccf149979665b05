/**
 * What the worker observes of one attempt: a CLIENT span `notify <kind>` whose parent is the trace
 * its order was created in (a link to the worker's own context, if any), with the propagator's
 * headers (`traceparent`, `tracestate`) sent on the POST so the merchant's handler joins the trace;
 * the attempt's outcome as the metrics name it; and whether the lease was lost meanwhile.
 */
import { kindOf } from '../domain/notify-kinds.ts';
import type { AttemptOutcome } from '../observability/metrics.ts';
import { notificationParent, propagationHeaders, SpanKind, SpanStatusCode, tracer } from '../observability/tracing.ts';
import type { NotificationRecord } from '../store/outbox.ts';
import type { AttemptResult, DeliveryErrorClass } from './delivery/index.ts';

const OUTCOME_OF_ERROR: Readonly<Record<DeliveryErrorClass, AttemptOutcome>> = {
  // The merchant answered, and not with an acknowledgement.
  'http-status': 'refused',
  redirect: 'refused',
  'unexpected-body': 'refused',
  timeout: 'timeout',
  // The delivery policy refused the destination: nothing was sent.
  'invalid-url': 'blocked',
  'refused-address': 'blocked',
  dns: 'network',
  connect: 'network',
  tls: 'network',
  aborted: 'network',
  protocol: 'network',
  // A fault of ours is counted with the failures to reach the merchant (the log names it).
  internal: 'network',
};

export function attemptOutcome(result: AttemptResult): AttemptOutcome {
  if (result.acknowledged) return 'delivered';
  return OUTCOME_OF_ERROR[result.errorClass as DeliveryErrorClass] ?? 'network';
}

/**
 * True when recording the attempt found the notification no longer this worker's (another worker
 * claimed it after the lease ran out, or it is gone): the store then returns the row unchanged,
 * where a recorded attempt returns it with the lease cleared.
 */
export function lostLease(updated: NotificationRecord | undefined, acknowledged: boolean, at: number): boolean {
  if (!updated) return true;
  if (updated.leaseOwner !== null) return true;
  return acknowledged ? updated.state !== 'delivered' || updated.deliveredAt !== at : updated.state === 'delivered';
}

/** Run the attempt inside its span, handing it the headers to send. */
export async function deliverTraced(
  notification: NotificationRecord,
  attempt: (headers: Record<string, string>) => Promise<AttemptResult>,
): Promise<AttemptResult> {
  const kind = kindOf(notification.event);
  const { parent, links } = notificationParent(notification.traceParent);
  const span = tracer().startSpan(
    `notify ${kind}`,
    {
      kind: SpanKind.CLIENT,
      links,
      // An order number is fine on a span (never on a metric label); the URL, fields and customer are not recorded.
      attributes: { 'tombolbayar.order_num': notification.orderNum, 'tombolbayar.plat_order_num': notification.platOrderNum, 'tombolbayar.notification_id': notification.id },
    },
    parent,
  );
  try {
    const result = await attempt(propagationHeaders(parent, span));
    const outcome = attemptOutcome(result);
    span.setAttribute('tombolbayar.outcome', outcome);
    if (result.httpStatus !== null) span.setAttribute('http.response.status_code', result.httpStatus);
    if (!result.acknowledged) span.setStatus({ code: SpanStatusCode.ERROR, message: result.errorClass ?? 'not acknowledged' });
    return result;
  } finally {
    span.end();
  }
}
