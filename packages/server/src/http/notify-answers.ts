/**
 * What `/notify` answers a sender whose `platSign` verified but whose notification is not taken
 * (issue 22). A valid `platSign` proves little: another merchant of the same gateway can get one
 * made. So these answers are one fixed text per class, with nothing of the stored order in them,
 * and an order that does not exist looks the same as one whose fields do not match (no 404 versus
 * 409): a stranger learns neither whether an order exists nor its amount. Only a sender who
 * already holds all of `orderNum`, `platOrderNum` and `payMoney` (the customer's payment page shows
 * them) reaches the gateway's answer, `not_confirmed`. The precise reason and the details go to
 * the `notification.rejected` event only (the merchant's logs).
 */
import type { NotificationRejectReason } from '../events.ts';

export interface PublicAnswer {
  readonly httpStatus: number;
  /** The class the sender reads, in place of the precise reason. */
  readonly reason: string;
  readonly message: string;
}

const NOT_MATCHED: PublicAnswer = Object.freeze({
  httpStatus: 409,
  reason: 'not_matched',
  message: 'the notification does not match an order here; nothing was changed',
});

const NOT_CONFIRMED: PublicAnswer = Object.freeze({
  httpStatus: 409,
  reason: 'not_confirmed',
  message: 'the gateway does not confirm the outcome this notification reports; the order follows the gateway',
});

const NO_OUTCOME: PublicAnswer = Object.freeze({
  httpStatus: 400,
  reason: 'invalid_fields',
  message: 'code and status together report no outcome',
});

/** The fixed answers, by the precise reason; reasons not listed answer as they always did. */
const ANSWERS: Partial<Record<NotificationRejectReason, PublicAnswer>> = {
  unknown_order: NOT_MATCHED,
  merchant_mismatch: NOT_MATCHED,
  order_mismatch: NOT_MATCHED,
  amount_mismatch: NOT_MATCHED,
  not_confirmed: NOT_CONFIRMED,
};

/** The fixed public answer for a verified sender's notification refused for `reason`, if it has one. */
export function publicAnswerFor(reason: NotificationRejectReason): PublicAnswer | undefined {
  return ANSWERS[reason];
}

/** The answer to a notification whose `code` and `status` contradict each other. */
export const NO_OUTCOME_ANSWER = NO_OUTCOME;
