/**
 * Observability without a logger dependency: the router emits typed events, and the merchant wires
 * them to pino, OpenTelemetry or a metrics counter. A throwing listener never breaks a payment:
 * each listener runs in its own try/catch, and its error is reported as a `warning`. No event
 * carries a key or a signature.
 */
import { EventEmitter } from 'node:events';
import { withEscapedText } from './event-text.ts';
import type { OrderKind, OrderStatus } from './store/schema.ts';

export type GatewayOperation = 'prepaidOrder' | 'pay' | 'query';

/** How one HTTP exchange with the gateway ended. */
export type GatewayCallOutcome =
  | 'success'
  | 'refused'
  | 'not_exist'
  | 'unknown'
  | 'error'
  | 'http_error'
  | 'timeout'
  | 'network_error'
  | 'invalid_response';

export interface OrderTransitionEvent {
  readonly orderNum: string;
  readonly kind: OrderKind;
  /** `null` when the order was just stored. */
  readonly from: OrderStatus | null;
  readonly to: OrderStatus;
  /** What caused it: the create call, a notification, a gateway query (status poll / reconcile). */
  readonly source: 'create' | 'notification' | 'query' | 'reconcile';
  readonly at: Date;
}

export interface GatewayCallEvent {
  readonly operation: GatewayOperation;
  readonly orderNum: string;
  /** 1 for the first try of this operation within one create/query sequence. */
  readonly attempt: number;
  readonly durationMs: number;
  readonly outcome: GatewayCallOutcome;
  readonly httpStatus?: number;
  readonly platRespCode?: string;
  /** A short description for failures (`platRespMessage`, the network error code, the schema issue). */
  readonly message?: string;
}

export type NotificationRejectReason =
  | 'body_consumed'
  | 'unreadable_body'
  | 'bad_signature'
  | 'invalid_fields'
  | 'unknown_order'
  | 'amount_mismatch'
  | 'merchant_mismatch'
  | 'order_mismatch'
  /** The gateway, asked, does not report the outcome this notification claims (or has no such order). */
  | 'not_confirmed'
  /** The gateway could not be asked (network, timeout, an answer that does not verify): resend later. */
  | 'confirmation_unavailable'
  /** Confirmed paid, but `onPaid` threw (`fulfilment.failed` has the error): `500`, resent later. */
  | 'fulfilment_failed'
  /** Confirmed paid, and an `onPaid` run for this order holds the lease right now: `503`, resent later. */
  | 'fulfilment_busy'
  /** The order store could not be opened or migrated: `503`, resent later. */
  | 'store_unavailable'
  /** Anything else threw while handling it (also a `warning` with the error): `500`, resent later. */
  | 'internal_error';

/**
 * A notification answered with anything but `200 SUCCESS`: refused, not confirmed, or not
 * acknowledged yet (the gateway resends it). Every non-200 of `/notify` emits exactly one.
 */
export interface NotificationRejectedEvent {
  readonly reason: NotificationRejectReason;
  readonly orderNum?: string;
  readonly message: string;
  /** The HTTP status answered to the gateway (never 200: the gateway will resend). */
  readonly httpStatus: number;
  /** The sender's address as the framework knows it, when it does (refusal log lines are sampled by it). */
  readonly client?: string;
}

export interface NotificationAcceptedEvent {
  readonly orderNum: string;
  /** The status the notification reported. */
  readonly reported: 'paid' | 'expired' | 'failed';
  /** The order's status after applying it (a late or duplicated notification changes nothing). */
  readonly status: OrderStatus;
  /** False when the notification repeated or contradicted what was already recorded. */
  readonly changed: boolean;
}

export interface FulfilmentEvent {
  readonly orderNum: string;
  /** 1 for the first run of `onPaid` for this order. */
  readonly attempt: number;
  readonly durationMs: number;
  /** Set when `onPaid` threw; the router keeps the original error object for the merchant's logs. */
  readonly error?: unknown;
}

/** A second order of one `reference` was paid: the customer paid one purchase twice. */
export interface DuplicatePaymentEvent {
  /** The order paid second (its `onPaid` gets `order.duplicateOf`). */
  readonly orderNum: string;
  /** The order paid first. */
  readonly duplicateOf: string;
  readonly reference: string;
  readonly payMoney: string;
}

/** Who asked the gateway to confirm an order's state (`order.confirmation`). */
export type ConfirmationSource = 'notification' | 'status' | 'return' | 'sweep' | 'reconcile';

/**
 * How a confirm-by-query ended: `confirmed` (a verified answer with a final state: paid, expired
 * or failed), `not_confirmed` (a verified answer that settles nothing: still pending, no such
 * order, or facts that disagree with the stored order) or `unavailable` (no trustworthy answer).
 */
export type ConfirmationOutcome = 'confirmed' | 'not_confirmed' | 'unavailable';

/** One `/gateway/query` asked to learn an order's state (a create's query-before-retry is not one). */
export interface ConfirmationEvent {
  readonly orderNum: string;
  readonly source: ConfirmationSource;
  readonly outcome: ConfirmationOutcome;
  readonly durationMs: number;
}

/** A create request (`POST /links`, `POST /va`, `createPaymentLink()`, `createVaOrder()`) answered with an error. */
export interface OrderRefusedEvent {
  readonly kind: OrderKind;
  /** The error code answered (`invalid_request`, `origin_not_allowed`, `rate_limited`, `gateway_refused`…). */
  readonly code: string;
  readonly httpStatus: number;
}

/** One round of the notification sweep that this process ran (held the sweep's lease). */
export interface SweepRoundEvent {
  readonly outcome: 'ok' | 'failed';
  /** Orders asked about at the gateway in this round. */
  readonly asked: number;
  /** Orders this round found paid (their notification was lost or late). */
  readonly foundPaid: number;
  readonly durationMs: number;
  readonly error?: unknown;
}

export interface WarningEvent {
  readonly code: string;
  readonly message: string;
  /** The order concerned, when there is one (`reconcile_order_failed`, `unreadable_order`). */
  readonly orderNum?: string;
  readonly error?: unknown;
}

export interface PayButtonEventMap {
  'order.transition': [OrderTransitionEvent];
  'gateway.call': [GatewayCallEvent];
  'notification.accepted': [NotificationAcceptedEvent];
  'notification.rejected': [NotificationRejectedEvent];
  'fulfilment.succeeded': [FulfilmentEvent];
  'fulfilment.failed': [FulfilmentEvent];
  /**
   * A run of `onPaid` lost its lease (stalled past it, or taken over): its signal was aborted and
   * its completion not recorded; another run fulfils the order. `error` is set when it threw.
   */
  'fulfilment.lease_lost': [FulfilmentEvent];
  /**
   * `onPaid` returned, but the database would not record it (tried again until then) before
   * another process took the order over after its lease ran out, or this one closed: `error` is
   * the last failure. `onPaid` runs (or ran) again for the order; look at what this run did.
   */
  'fulfilment.unrecorded': [FulfilmentEvent];
  'order.duplicate_paid': [DuplicatePaymentEvent];
  /** A create request refused, by the error code answered (never a customer's data). */
  'order.refused': [OrderRefusedEvent];
  /** The gateway was asked to confirm an order's state (a notification, a status poll, the sweep…). */
  'order.confirmation': [ConfirmationEvent];
  /** A notification sweep round ended. */
  'sweep.round': [SweepRoundEvent];
  /** Something the merchant should look at that did not fail a request (quote() threw, misconfiguration). */
  warning: [WarningEvent];
}

export type PayButtonEventName = keyof PayButtonEventMap;

/**
 * A Node EventEmitter whose `emit` escapes control characters in the payload's text
 * (`event-text.ts`) and isolates listeners from each other and from the caller: a
 * listener that throws, or returns a promise that rejects, never breaks a payment, and is never
 * silent either: its error reaches the `warning` listeners (`listener_failed`, with the error as
 * `error`). A `warning` listener that fails is said once to the process (`process.emitWarning`),
 * since telling the `warning` listeners again could loop.
 */
export class PayButtonEvents extends EventEmitter<PayButtonEventMap> {
  private listenerFailed(name: PayButtonEventName, error: unknown): void {
    if (name === 'warning') {
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      process.emitWarning(`a payButton() "warning" listener failed: ${detail}`, { code: 'TOMBOLBAYAR_LISTENER_FAILED' });
      return;
    }
    this.emit('warning', { code: 'listener_failed', message: `a listener of the "${name}" event failed (the payment went on)`, error });
  }

  override emit<K extends PayButtonEventName>(name: K, ...raw: PayButtonEventMap[K]): boolean {
    // No one listens (`logger: false`, an event nobody asked for): nothing to escape or copy.
    if (this.listenerCount(name) === 0) return false;
    const args = raw.map(withEscapedText) as PayButtonEventMap[K];
    const listeners = this.listeners(name) as Array<(...values: PayButtonEventMap[K]) => unknown>;
    for (const listener of listeners) {
      try {
        const result = listener(...args);
        // An async listener's rejection must not become an unhandled rejection either.
        if (result && typeof (result as Promise<unknown>).catch === 'function') {
          (result as Promise<unknown>).catch((error: unknown) => this.listenerFailed(name, error));
        }
      } catch (error) {
        this.listenerFailed(name, error);
      }
    }
    // `once` listeners: `listeners()` returned unwrapped functions, so remove them explicitly.
    for (const raw of this.rawListeners(name) as Array<{ listener?: unknown }>) {
      if (typeof raw.listener === 'function') this.removeListener(name, raw.listener as never);
    }
    return listeners.length > 0;
  }
}
