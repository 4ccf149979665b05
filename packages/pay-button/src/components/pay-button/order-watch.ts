/**
 * The order a `<pay-button>` attempt is about: what is known of it (its number and status token,
 * whether a method was seen chosen, the last answer) and the asking about it, which lives in the
 * attempt's chunk (`order-check.ts`, see `loadAttemptIo`): after the payment page was left, ask
 * until the outcome is known and say it, then watch an order that may still be paid until it ends.
 * The element runs the attempt and says each outcome (`EndStep`).
 */
import type { Order, OrderState } from '../../internal/api.ts';
import type { Locale, MessageKey } from '../../internal/i18n.ts';
import type { PayButtonState, Via } from '../../internal/outcome.ts';
import type { EndEvent, PayEventDetail } from '../../internal/pay-element.ts';
import type { PayCancelDetail } from '../../events.ts';
import { attemptIo, loadAttemptIo } from './load-attempt-io.ts';

export interface CheckHost {
  readonly endpoint: string;
  readonly pollInterval: number;
  readonly pollTimeout: number;
}

/**
 * Ends the attempt in `state`, with `event` and `detail` (without, it is set without a word), and
 * shows it as found `via` (see `<pay-button>`'s `#end`). `status` is the order's: a `pending` one
 * may still be paid, so it is watched on, as new work (a click, `reset()` or removal ends it like
 * an attempt), returned. Work that ended is aborted: a check whose work is aborted says nothing more.
 */
export type EndStep = <E extends EndEvent>(via: Via, state: PayButtonState, event: E | undefined, detail: PayEventDetail<E>, status?: OrderState) => AbortController | undefined;

export class OrderWatch {
  orderNum: string | undefined;
  token: string | undefined;
  /**
   * A method was seen chosen on the payment page, or may have been (the plug-in once said it could
   * not confirm the order with the gateway), so that a status without a method later is "pending,
   * not confirmed yet", never "cancelled": the plug-in answers from what it stored between two
   * questions to the gateway, and that says nothing of a VA picked while the gateway was away.
   */
  chosen = false;
  /** The last answer about the order. */
  last: Order | undefined;

  /** @internal For `order-check.ts`. */
  constructor(
    readonly host: CheckHost,
    readonly end: EndStep,
  ) {}

  /** Now about `orderNum` (or no order yet), knowing nothing of it. */
  reset(orderNum?: string, token?: string): void {
    this.orderNum = orderNum;
    this.token = token;
    this.chosen = false;
    this.last = undefined;
  }

  /** While the payment page is `open`, asks about every second (see `order-check.ts`); `ended` when the order ended there. */
  watchOpen(signal: AbortSignal, open: () => boolean, ended: () => void): void {
    loadAttemptIo().then((io) => io.watchOpen(this, signal, open, ended), () => {});
  }

  /**
   * Asks for the outcome and says it, then watches an order that may still be paid (see
   * `order-check.ts`). Without the chunk (offline) the service cannot be reached: a retryable error.
   */
  check(work: AbortController, via: Via, cancel: PayCancelDetail): Promise<unknown> {
    return loadAttemptIo().then(
      (io) => io.check(this, work, via, cancel),
      (error) => work.signal.aborted || this.end(via, 'error', 'pay-error', error),
    );
  }

  /**
   * What a pending order with a deadline asks of the customer (see `order-check.ts`). Only `check`
   * says `pending`, from the chunk, so the chunk is here whenever there is something to say.
   */
  note(locale: Locale, text: (key: MessageKey) => string): string | undefined {
    return attemptIo?.note(this.last, locale, text);
  }
}
