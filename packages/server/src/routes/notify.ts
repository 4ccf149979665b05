/**
 * `POST /notify`: the gateway's notifications, taken as a hint, never as the truth.
 *
 * The body is read by the router itself; `platSign` is verified over every received field with
 * every configured platform key, and the fields must match the stored order (orderNum known,
 * platOrderNum, payMoney and, when sent, merchantCode). That only filters noise: a valid `platSign`
 * does not prove the gateway sent this message (see `orders/confirm.ts`). Before the order moves
 * and before `onPaid`, the router asks the gateway itself and applies its answer.
 *
 * `SUCCESS` (HTTP 200) is answered only when the gateway confirmed the outcome this notification
 * reported and the new state and `onPaid` are durable. Everything else is a non-200 with a one-line
 * reason, so a genuine notification is resent: an unknown order, a forged or tampered
 * notification, an outcome the gateway does not confirm (yet), a gateway that cannot be reached,
 * an `onPaid` that threw or is still running, a store that failed.
 *
 * Every non-200 goes through `notAcknowledged`, which also emits `notification.rejected` naming
 * the reason: a merchant watching the events sees every notification the gateway will resend, and
 * why, not only the ones that were refused outright.
 */
import { databaseFault, retryAfterSeconds } from '@tombolbayar/store-kit';
import { canonicalFields, notificationOutcome, notificationSchema, parseMessage } from '@tombolbayar/protocol';
import { verify } from '@tombolbayar/protocol/node';
import { isPayButtonError } from '../errors.ts';
import type { NotificationRejectReason, PayButtonEvents } from '../events.ts';
import type { RouteContext, RouteHandler, CoreRequest } from '../http/context.ts';
import { NotifyBodyError, readNotifyFields, type ReceivedFields } from '../http/notify-body.ts';
import { NO_OUTCOME_ANSWER, publicAnswerFor } from '../http/notify-answers.ts';
import { textAnswer } from '../http/respond.ts';
import type { ResolvedOptions } from '../options.ts';
import { finalStatusOf } from '../orders/confirm.ts';
import type { FulfilmentResult } from '../orders/fulfilment.ts';
import type { OrderLifecycle } from '../orders/lifecycle.ts';
import type { OrderStore } from '../store/orders.ts';
import type { Answer } from '../http/answer.ts';

/** What `/notify` uses: it reads orders, and tells the lifecycle what the gateway confirmed. */
export interface NotifyDeps {
  readonly options: Pick<ResolvedOptions, 'notifyBodyLimitBytes' | 'platformPublicKeys' | 'merchantCode'>;
  readonly events: PayButtonEvents;
  readonly ready: () => Promise<void>;
  readonly orders: Pick<OrderStore, 'get'>;
  readonly lifecycle: OrderLifecycle;
}

interface NotAcknowledged {
  readonly httpStatus: number;
  readonly reason: NotificationRejectReason;
  /** Answered to whoever posted the notification: nothing from our side of the network. */
  readonly message: string;
  /** For the event only (the merchant's logs), when there is more to say than `message`. */
  readonly detail?: string | undefined;
  readonly orderNum?: string | undefined;
  /** `RETRY:` (the same notification may succeed later) rather than `REJECTED <reason>:`. */
  readonly retry?: boolean;
  /** Seconds, when the sender is told when to come back. */
  readonly retryAfter?: number | undefined;
}

/** Every answer of `/notify`: plain text, never cached. */
function answer(status: number, text: string, retryAfter?: number): Answer {
  return textAnswer(status, text, { 'Cache-Control': 'no-store', ...(retryAfter !== undefined ? { 'Retry-After': String(retryAfter) } : {}) });
}

/** Answer a notification with a non-200 (so the gateway resends it) and say why in an event. */
function notAcknowledged(context: NotifyDeps, refusal: NotAcknowledged, client: string | undefined): Answer {
  const { httpStatus, reason, message, orderNum } = refusal;
  context.events.emit('notification.rejected', { reason, message: refusal.detail ?? message, httpStatus, ...(orderNum ? { orderNum } : {}), ...(client ? { client } : {}) });
  return answer(httpStatus, refusal.retry ? `RETRY: ${message}` : `REJECTED ${reason}: ${message}`, refusal.retryAfter);
}

/**
 * Refuse a notification. A reason with a fixed public answer (`http/notify-answers.ts`) is
 * answered with it, and `message` goes to the event only.
 */
function reject(context: NotifyDeps, client: string | undefined, httpStatus: number, reason: NotificationRejectReason, message: string, orderNum?: string): Answer {
  const fixed = publicAnswerFor(reason);
  if (!fixed) return notAcknowledged(context, { httpStatus, reason, message, orderNum }, client);
  context.events.emit('notification.rejected', { reason, message, httpStatus: fixed.httpStatus, ...(orderNum ? { orderNum } : {}), ...(client ? { client } : {}) });
  return answer(fixed.httpStatus, `REJECTED ${fixed.reason}: ${fixed.message}`);
}

export function notifyHandler(context: NotifyDeps): RouteHandler {
  const handle = handleNotification(context);
  return async (request, routeContext) => {
    try {
      return await handle(request, routeContext);
    } catch (error) {
      // The store failed, or a bug: still a non-200 the gateway resends, and an event that says so.
      const unavailable = (isPayButtonError(error) && error.code === 'store_unavailable') || databaseFault(error) !== undefined;
      if (!unavailable) context.events.emit('warning', { code: 'internal', message: 'unexpected error while handling a notification', error });
      return notAcknowledged(context, unavailable
        ? { httpStatus: 503, reason: 'store_unavailable', message: 'the order store is not available; send this notification again later', retry: true,
          retryAfter: retryAfterSeconds(databaseFault(error) ?? 'connection_lost') }
        : { httpStatus: 500, reason: 'internal_error', message: 'the notification could not be handled; send it again later', retry: true }, routeContext.facts.clientAddress);
    }
  };
}

function handleNotification(context: NotifyDeps): (request: CoreRequest, routeContext: RouteContext) => Promise<Answer> {
  return async (request, routeContext) => {
    const client = routeContext.facts.clientAddress;
    let fields: ReceivedFields;
    try {
      fields = await readNotifyFields(request, context.options.notifyBodyLimitBytes, routeContext.facts.parsedBody);
    } catch (error) {
      if (error instanceof NotifyBodyError) return reject(context, client, error.httpStatus, error.reason, error.message);
      throw error;
    }
    const claimedOrder = typeof fields.orderNum === 'string' ? fields.orderNum.slice(0, 64) : undefined;
    if (!verify(fields, fields.platSign, context.options.platformPublicKeys)) {
      return reject(context, client, 401, 'bad_signature', 'platSign does not verify over the received fields with the platform public key(s)', claimedOrder);
    }
    // The family's liberal forms (`150000.00`), mapped once the signature verified over them.
    const parsed = parseMessage(notificationSchema, canonicalFields(fields));
    if (!parsed.ok) {
      return reject(context, client, 400, 'invalid_fields', parsed.message, claimedOrder);
    }
    const notification = parsed.value;
    // code and status read together: a contradictory pair ("SUCCESS" with code "01") proves nothing.
    // Judged before the order is looked up, so the answer says nothing about whether it exists.
    const outcome = notificationOutcome(notification);
    const reported = outcome === undefined ? undefined : finalStatusOf(outcome);
    if (!reported) {
      return reject(context, client, NO_OUTCOME_ANSWER.httpStatus, 'invalid_fields', NO_OUTCOME_ANSWER.message, claimedOrder);
    }
    await context.ready();
    const order = await context.orders.get(notification.orderNum);
    if (!order) {
      // Not acknowledged: if it is ours after all (another instance's store), the resend will find it.
      return reject(context, client, 404, 'unknown_order', `no order ${notification.orderNum} here`, notification.orderNum);
    }
    if (fields.merchantCode !== undefined && fields.merchantCode !== context.options.merchantCode) {
      return reject(context, client, 409, 'merchant_mismatch', 'the notification names another merchant', order.orderNum);
    }
    if (order.platOrderNum !== null && order.platOrderNum !== notification.platOrderNum) {
      return reject(context, client, 409, 'order_mismatch', 'platOrderNum differs from the one the gateway gave when the order was created', order.orderNum);
    }
    if (notification.payMoney !== order.payMoney) {
      return reject(context, client, 409, 'amount_mismatch', `payMoney ${notification.payMoney} differs from the order's ${order.payMoney}; the order is unchanged`, order.orderNum);
    }
    let after = order;
    let changed = false;
    let fulfilment: FulfilmentResult | undefined;
    // An order already in the reported state got there on the gateway's word: nothing to ask.
    if (order.status !== reported) {
      const confirmation = await context.lifecycle.confirm(order, 'notification');
      // The order follows the gateway's answer either way; `onPaid` runs from here (its lease taken
      // by the move to paid) only when the answer bears this notification out.
      const bornOut = confirmation.kind === 'confirmed' && confirmation.facts.platOrderNum === notification.platOrderNum && finalStatusOf(confirmation.status) === reported;
      ({ order: after, changed, fulfilment } = await context.lifecycle.apply(order, confirmation, 'notification', bornOut ? 'await' : 'deferred'));
      if (confirmation.kind === 'undetermined' && confirmation.reason === 'unreachable') {
        return notAcknowledged(context, {
          httpStatus: 503,
          reason: 'confirmation_unavailable',
          orderNum: order.orderNum,
          message: 'the gateway could not be asked to confirm this notification; send it again later',
          detail: `the gateway could not confirm it: ${confirmation.message}`,
          retry: true,
          retryAfter: confirmation.retryAfterMs === undefined ? undefined : Math.ceil(confirmation.retryAfterMs / 1000),
        }, client);
      }
      if (confirmation.kind !== 'confirmed') {
        const message = confirmation.kind === 'not_found' ? 'the gateway has no such order' : 'the gateway\'s answer does not match the stored order';
        return reject(context, client, 409, 'not_confirmed', `${message}; the order is unchanged`, order.orderNum);
      }
      if (confirmation.facts.platOrderNum !== notification.platOrderNum) {
        return reject(context, client, 409, 'order_mismatch', 'platOrderNum differs from the one the gateway holds for this order', order.orderNum);
      }
      if (finalStatusOf(confirmation.status) !== reported) {
        return reject(context, client, 409, 'not_confirmed', `the gateway reports the order ${confirmation.status}, not ${outcome}; the order follows the gateway`, order.orderNum);
      }
    }
    // A paid order is acknowledged only once onPaid has returned, whatever this notification said.
    if (fulfilment === undefined && after.status === 'paid' && !after.fulfilledAt) fulfilment = await context.lifecycle.fulfil(after.orderNum, 'notification');
    if (fulfilment === 'failed') {
      // `fulfilment.failed` carries the error; this event says the gateway will resend.
      return notAcknowledged(context, { httpStatus: 500, reason: 'fulfilment_failed', orderNum: after.orderNum, message: 'onPaid failed; send this notification again later', retry: true }, client);
    }
    if (fulfilment === 'busy' || fulfilment === 'lease_lost' || fulfilment === 'unrecorded') {
      return notAcknowledged(context, { httpStatus: 503, reason: 'fulfilment_busy', orderNum: after.orderNum, message: 'onPaid is running for this order; send this notification again later', retry: true }, client);
    }
    context.events.emit('notification.accepted', { orderNum: after.orderNum, reported, status: after.status, changed });
    return answer(200, 'SUCCESS');
  };
}
