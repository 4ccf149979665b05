/**
 * "Ask the gateway, apply its answer": the one way an order learns its state after creation.
 *
 * A notification's `platSign` proves that the platform key made the signature blocks, not that
 * the gateway meant this message: the family signs each 117-byte chunk on its own, so a block
 * signed over bytes someone else chose (an echoed path, another merchant's `email`) is a valid
 * `platSign` for a message of those bytes. So nothing that arrives at this server moves an order.
 * A notification, a status poll and `reconcile()` are only reasons to ask: the plug-in sends its
 * own signed `/gateway/query` to the configured `gatewayUrl` (the channel the merchant trusts) and
 * moves the order only to what that answer says, after checking it is about this order
 * (`orderNum`, `platOrderNum`, `payMoney`).
 *
 * - `interpretQuery` is the pure decision: a query result against what we stored.
 * - `GatewayConfirmer.confirm` asks, once at a time per order in this process (concurrent
 *   notifications, polls, returns and the create path's query-before-retry share one query in
 *   flight), and owns the one mismatch policy: a verified answer that disagrees with the stored
 *   order is never applied, and is reported once as a `gateway_mismatch` warning.
 * - Applying a confirmation is the lifecycle's (`lifecycle.ts`): the only code that moves an order.
 */
import { parseDateTime, type QuerySuccess } from '@tombolbayar/protocol';
import { PayButtonError } from '../errors.ts';
import type { ConfirmationOutcome, ConfirmationSource, PayButtonEvents } from '../events.ts';
import type { CallResult, GatewayClient } from '../gateway/client.ts';
import type { GatewayFacts } from '../store/orders.ts';
import type { FinalStatus } from './transitions.ts';

/** The gateway's order states (query `status`, and the outcomes a notification names). */
export type GatewayStatus = QuerySuccess['status'];

/** A gateway state as this router's order state; `PENDING` is not final. */
export const FINAL_STATUS: Readonly<Record<Exclude<GatewayStatus, 'PENDING'>, FinalStatus>> = { PAID: 'paid', EXPIRED: 'expired', FAILED: 'failed' };

export function finalStatusOf(status: GatewayStatus): FinalStatus | undefined {
  return status === 'PENDING' ? undefined : FINAL_STATUS[status];
}

/** What we hold about the order, and so what the gateway's answer must agree with. */
export interface ExpectedOrder {
  readonly orderNum: string;
  readonly payMoney: string;
  /** `null` while the order is `creating` (the create answer has not been recorded yet). */
  readonly platOrderNum: string | null;
}

/** The gateway's facts about an order, as confirmed by its signed query answer. */
export interface ConfirmedFacts extends GatewayFacts {
  readonly platOrderNum: string;
}

export type Confirmation =
  /** The gateway's signed answer, about this very order. */
  | { readonly kind: 'confirmed'; readonly status: GatewayStatus; readonly facts: ConfirmedFacts }
  /** The gateway signed `NOTEXIST`: it has no such order. */
  | { readonly kind: 'not_found' }
  /**
   * No trustworthy answer: `unreachable` (network, timeout, 5xx, `UNKNOWN`, an answer that does not
   * verify) or `mismatch` (a verified answer that disagrees with the order we stored: never applied).
   * `error` is what a caller that must fail (the create path) reports.
   */
  | {
      readonly kind: 'undetermined';
      readonly reason: 'unreachable' | 'mismatch';
      readonly message: string;
      readonly error: PayButtonError;
      readonly retryAfterMs?: number | undefined;
    };

/** The confirmed variant, the one a caller may apply. */
export type ConfirmedAnswer = Extract<Confirmation, { readonly kind: 'confirmed' }>;

/** Why a verified answer cannot be about the order we hold, or `undefined` when it agrees. */
export function answerMismatch(expected: ExpectedOrder, found: QuerySuccess): string | undefined {
  if (found.orderNum !== expected.orderNum) return `the gateway answered about order ${found.orderNum}`;
  if (expected.platOrderNum !== null && found.platOrderNum !== expected.platOrderNum) {
    return `the gateway holds order ${expected.orderNum} as ${found.platOrderNum}, we stored ${expected.platOrderNum}`;
  }
  if (found.payMoney !== expected.payMoney) return `the gateway holds order ${expected.orderNum} with payMoney ${found.payMoney}, we stored ${expected.payMoney}`;
  return undefined;
}

/** The query answer's facts in the store's terms. */
export function factsOf(found: QuerySuccess): ConfirmedFacts {
  return {
    platOrderNum: found.platOrderNum,
    url: found.url,
    vaNumber: found.vaNumber,
    payFee: found.payFee,
    method: found.method,
    expiresAt: parseDateTime(found.expireTime),
    paidAt: found.paidTime ? parseDateTime(found.paidTime) : undefined,
  };
}

/** The pure decision: what one `/gateway/query` result says about the order we hold. */
export function interpretQuery(expected: ExpectedOrder, result: CallResult<QuerySuccess>): Confirmation {
  if (!result.ok) {
    if (result.outcome.kind === 'result' && result.outcome.code === 'NOTEXIST') return { kind: 'not_found' };
    return {
      kind: 'undetermined',
      reason: 'unreachable',
      message: result.error.message,
      error: result.error,
      retryAfterMs: result.outcome.kind === 'http' ? result.outcome.retryAfterMs : undefined,
    };
  }
  const mismatch = answerMismatch(expected, result.value);
  if (mismatch) {
    const error = new PayButtonError('gateway_response_invalid', `Order ${expected.orderNum} was left unchanged: ${mismatch}.`);
    return { kind: 'undetermined', reason: 'mismatch', message: mismatch, error };
  }
  return { kind: 'confirmed', status: result.value.status, facts: factsOf(result.value) };
}

/** The longest a confirmation may take when someone (a notification, a customer) waits for it. */
const CONFIRM_TIMEOUT_MS = 5_000;

export interface ConfirmOptions {
  /** For the query this caller starts (a caller that joins one in flight waits for that one). */
  readonly timeoutMs?: number | undefined;
  /** The `attempt` of the `gateway.call` event: the create loop counts its queries. */
  readonly attempt?: number | undefined;
  /** Who asks: reported in `order.confirmation` (none for the create path's query-before-retry). */
  readonly source?: ConfirmationSource | undefined;
}

/** A confirmation as `order.confirmation` reports it (see `ConfirmationOutcome`). */
export function confirmationOutcome(confirmation: Confirmation): ConfirmationOutcome {
  if (confirmation.kind === 'confirmed') return finalStatusOf(confirmation.status) === undefined ? 'not_confirmed' : 'confirmed';
  if (confirmation.kind === 'undetermined' && confirmation.reason === 'unreachable') return 'unavailable';
  return 'not_confirmed';
}

/**
 * Asks the gateway about orders. Callers for the same order in this process share the query in
 * flight (so N notifications, polls and a create retry for one order cost one query). They all
 * pass the stored row, so they expect the same facts, and one interpretation serves them all. A
 * mismatch is reported as a `warning` once per query (it means a bug or an attack, never a payment).
 */
export class GatewayConfirmer {
  private readonly inFlight = new Map<string, Promise<Confirmation>>();

  constructor(
    private readonly client: Pick<GatewayClient, 'query'>,
    private readonly events: PayButtonEvents,
    /** The per-call timeout of the options; a confirmation waits at most `CONFIRM_TIMEOUT_MS`. */
    private readonly callTimeoutMs: number,
  ) {}

  confirm(order: ExpectedOrder, options: ConfirmOptions = {}): Promise<Confirmation> {
    const running = this.inFlight.get(order.orderNum);
    if (running) return running;
    const timeoutMs = options.timeoutMs ?? Math.min(this.callTimeoutMs, CONFIRM_TIMEOUT_MS);
    const work = (async (): Promise<Confirmation> => {
      const started = performance.now();
      const result = await this.client.query(order.orderNum, options.attempt ?? 1, timeoutMs);
      const confirmation = interpretQuery(order, result);
      if (options.source) {
        this.events.emit('order.confirmation', { orderNum: order.orderNum, source: options.source, outcome: confirmationOutcome(confirmation), durationMs: performance.now() - started });
      }
      if (confirmation.kind === 'undetermined' && confirmation.reason === 'mismatch') {
        this.events.emit('warning', { code: 'gateway_mismatch', message: `order ${order.orderNum} left unchanged: ${confirmation.message}`, orderNum: order.orderNum });
      }
      return confirmation;
    })().finally(() => this.inFlight.delete(order.orderNum));
    this.inFlight.set(order.orderNum, work);
    return work;
  }

  /** Resolves once no query is in flight (for `close()`). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight.values()]);
  }
}
