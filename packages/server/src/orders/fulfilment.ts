/**
 * Fenced fulfilment: `onPaid` for a paid order, under a lease, until one run returns.
 *
 * - A run starts by taking the lease (a compare-and-set that also counts the attempt: the fence).
 *   The first run's lease is taken by the very write that makes the order paid, when its caller
 *   runs `onPaid` at once (`lifecycle.ts`): one statement fewer, the same fence.
 * - While `onPaid` works, a heartbeat renews the lease every `heartbeatMs`. The renewal is fenced
 *   (this attempt, and a lease that has not run out), and the run keeps its own deadline on the
 *   monotonic clock: a heartbeat that finds the lease taken, or a run that resumes after a stall
 *   past its deadline (GC pause, frozen VM, SIGSTOP), aborts the run's `signal`.
 * - Completion is fenced by the attempt: a run whose `signal` was aborted (its lease lost) records
 *   nothing and emits `fulfilment.lease_lost`, and a run that was taken over cannot record; the
 *   run that took over is the one whose completion counts.
 * - `onPaid` completes once while the process lives: a completion the database would not take (a
 *   fault) is written again, the heartbeat going on meanwhile, until it is recorded. Nobody else
 *   can start a run while the lease holds, and this process starts none for that order while the
 *   write is pending (`busy`); after a long outage the write still counts if nobody took over
 *   (the store fences completion by attempt alone). If another process took the order over
 *   meanwhile, or this one closes first, `fulfilment.unrecorded` says so: `onPaid` runs again.
 *   Only a process killed between `onPaid` returning and that write repeats a run unreported.
 * - `close()` aborts the signal of every run in this process (shutdown) and waits for them.
 *
 * Started only by the lifecycle (`lifecycle.ts`), the one place that knows an order became paid.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { PayButtonEvents } from '../events.ts';
import type { OnPaidFunction } from '../options.ts';
import { toPublicOrder } from '../public-order.ts';
import { context, ORDER_NUM, SpanStatusCode, trace, tracer } from '../observability/tracing.ts';
import type { Order, OrderStore } from '../store/orders.ts';

export type FulfilmentSource = 'notification' | 'query' | 'reconcile';

export type FulfilmentResult = 'fulfilled' | 'already_fulfilled' | 'busy' | 'failed' | 'lease_lost' | 'unrecorded' | 'not_paid';

/** Waits between two writes of a completion the database would not take (backoff from 100 ms). */
const RECORD_RETRY_MAX_MS = 1_000;

export interface FulfilmentSettings {
  readonly onPaid: OnPaidFunction;
  /** How long one run holds the order before another process may take it over. */
  readonly leaseMs: number;
  /** How often a running `onPaid`'s lease is renewed (less than `leaseMs`). */
  readonly heartbeatMs: number;
}

/** Why a run's signal was aborted. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
}

/** The key a merchant's own writes for one order can be made idempotent with (same on every run). */
/** Frozen across the rename to tombolbayar: merchants pass it on as an idempotency key, so a run after an upgrade must give the key a run before it gave. */
export const fulfilmentKey = (orderNum: string): string => `paybutton-onpaid-${orderNum}`;

/** A lease about to be claimed: its stored deadline, and when the local one started counting. */
export interface LeaseTerms {
  /** `performance.now()` before the claim was sent. */
  readonly started: number;
  readonly now: Date;
  readonly until: Date;
}

/** A lease this process holds: the run's attempt number and the order as the claim wrote it. */
export interface ClaimedLease {
  readonly attempt: number;
  readonly order: Order;
  readonly started: number;
  /** The order paid first for its reference, if not this one (`OrderStore.duplicateOf`). */
  readonly duplicateOf: string | null;
}

export class Fulfilment {
  /** Runs in this process, aborted at shutdown. */
  private readonly running = new Map<Promise<unknown>, AbortController>();
  /** Orders whose `onPaid` returned here and whose completion is still being written. */
  private readonly recording = new Set<string>();
  private closed = false;

  constructor(
    private readonly orders: OrderStore,
    private readonly events: PayButtonEvents,
    private readonly settings: FulfilmentSettings,
    private readonly now: () => Date,
  ) {}

  /**
   * The terms of a lease about to be taken: `started` is read before the claim is sent, so the
   * local deadline is never later than the stored one. `undefined` while closing.
   */
  lease(): LeaseTerms | undefined {
    if (this.closed) return undefined;
    const started = performance.now();
    const now = this.now();
    return { started, now, until: new Date(now.getTime() + this.settings.leaseMs) };
  }

  /**
   * Run `onPaid` for a paid order unless it already returned once. `busy`: another run holds the
   * lease right now, or this process is closing (a notification retried during shutdown must not
   * start `onPaid` only to abort it); `failed`: `onPaid` threw (the lease is released for the
   * next try); `lease_lost`: this run stalled past its lease and its completion was not recorded;
   * `unrecorded`: `onPaid` returned but its completion could not be recorded before another run
   * took over or the process closed (`fulfilment.unrecorded`).
   */
  async run(orderNum: string, source: FulfilmentSource): Promise<FulfilmentResult> {
    const terms = this.lease();
    // A run of this process returned and its completion is being written: never a second run.
    if (!terms || this.recording.has(orderNum)) return 'busy';
    const claimed = await this.orders.claimFulfilment(orderNum, terms.now, terms.until);
    if (claimed === undefined) {
      const order = await this.orders.get(orderNum);
      if (!order || order.status !== 'paid') return 'not_paid';
      return order.fulfilledAt ? 'already_fulfilled' : 'busy';
    }
    return this.runClaimed({ ...claimed, started: terms.started, duplicateOf: await this.orders.duplicateOf(claimed.order) }, source);
  }

  /**
   * Run `onPaid` under a lease already taken, by `claimFulfilment` or by the write that made the
   * order paid (`OrderStore.transition` with `lease()`'s terms): the lease is this run's to use.
   */
  async runClaimed(claimed: ClaimedLease, source: FulfilmentSource): Promise<FulfilmentResult> {
    const { attempt, started } = claimed;
    const orderNum = claimed.order.orderNum;
    const order = { ...claimed.order, duplicateOf: claimed.duplicateOf };
    const controller = new AbortController();
    const work = this.attempt(orderNum, attempt, controller, started, async () =>
      this.settings.onPaid(toPublicOrder(order), { attempt, source, signal: controller.signal, key: fulfilmentKey(orderNum) }),
    );
    this.running.set(work, controller);
    if (this.closed) controller.abort(new Error('payButton() is closing'));
    try {
      return await work;
    } finally {
      this.running.delete(work);
    }
  }

  private async attempt(
    orderNum: string, attempt: number, controller: AbortController, started: number, onPaid: () => Promise<void> | void,
  ): Promise<FulfilmentResult> {
    const lease = this.heartbeat(orderNum, attempt, controller, started);
    // The run's INTERNAL span: the merchant's own spans in onPaid are its children.
    const span = tracer().startSpan('onPaid', { attributes: { [ORDER_NUM]: orderNum, 'tombolbayar.attempt': attempt } });
    const report = (name: 'fulfilment.succeeded' | 'fulfilment.failed' | 'fulfilment.lease_lost' | 'fulfilment.unrecorded', error?: unknown) => {
      span.setAttribute('tombolbayar.outcome', name.slice('fulfilment.'.length));
      if (name !== 'fulfilment.succeeded') span.setStatus({ code: SpanStatusCode.ERROR, message: name.slice('fulfilment.'.length) });
      this.events.emit(name, { orderNum, attempt, durationMs: performance.now() - started, ...(error === undefined ? {} : { error }) });
    };
    try {
      return await this.settle(orderNum, attempt, controller, lease, report, () => context.with(trace.setSpan(context.active(), span), onPaid));
    } finally {
      span.end();
    }
  }

  /** `onPaid` run, and its outcome recorded and reported (`report`) once. */
  private async settle(
    orderNum: string, attempt: number, controller: AbortController, lease: { stop(): Promise<void> },
    report: (name: 'fulfilment.succeeded' | 'fulfilment.failed' | 'fulfilment.lease_lost' | 'fulfilment.unrecorded', error?: unknown) => void,
    onPaid: () => Promise<void> | void,
  ): Promise<FulfilmentResult> {
    const lost = (): boolean => controller.signal.aborted && controller.signal.reason instanceof LeaseLostError;
    try {
      await onPaid();
    } catch (error) {
      await lease.stop();
      if (lost()) {
        report('fulfilment.lease_lost', error);
        return 'lease_lost';
      }
      const name = error instanceof Error ? `${error.name}: ${error.message}` : 'onPaid threw a non-Error value';
      // Only this run's lease is released: a run that lost it must not free a newer run's.
      await this.orders.failFulfilment(orderNum, attempt, this.now(), name);
      report('fulfilment.failed', error);
      return 'failed';
    }
    if (lost()) {
      await lease.stop();
      report('fulfilment.lease_lost');
      return 'lease_lost';
    }
    // The heartbeat goes on while the completion is written; this process starts no other run
    // for the order until the write is settled.
    this.recording.add(orderNum);
    let outcome: { recorded: boolean; error?: unknown };
    try {
      outcome = await this.record(orderNum, attempt);
    } finally {
      this.recording.delete(orderNum);
      await lease.stop();
    }
    if (outcome.recorded) {
      report('fulfilment.succeeded');
      return 'fulfilled';
    }
    if (outcome.error === undefined) {
      // Taken over between onPaid returning and the write (this process stalled past its lease).
      if (!controller.signal.aborted) controller.abort(new LeaseLostError(`the onPaid lease of order ${orderNum} ran out before it returned`));
      report('fulfilment.lease_lost');
      return 'lease_lost';
    }
    report('fulfilment.unrecorded', outcome.error);
    return 'unrecorded';
  }

  /**
   * Write run `attempt`'s completion, again after each failure (backoff from 100 ms to 1 s) until
   * it is recorded, another run took the order over, or the process closes. `error`: the last
   * failure, when it was never written; without it, the store said another run took over first.
   */
  private async record(orderNum: string, attempt: number): Promise<{ recorded: boolean; error?: unknown }> {
    let error: unknown;
    for (let tries = 0; ; tries++) {
      try {
        // After a failure the write may have committed all the same: the store then reads whose it is.
        const recorded = await this.orders.completeFulfilment(orderNum, attempt, this.now(), tries > 0);
        return recorded || error === undefined ? { recorded } : { recorded, error };
      } catch (caught) {
        error = caught;
        this.events.emit('warning', { code: 'fulfilment_record_failed', message: `could not record that onPaid returned for order ${orderNum} (run ${attempt}); trying again`, orderNum, error });
      }
      if (this.closed) return { recorded: false, error };
      await sleep(Math.min(RECORD_RETRY_MAX_MS, 100 * 2 ** tries));
    }
  }

  /**
   * Renew the lease of run `attempt` every `heartbeatMs` until `stop()` (which waits for a renewal
   * in flight). Aborts `controller` when the lease is lost: the renewal found it taken or run out,
   * or this process woke up past the deadline it last secured.
   */
  private heartbeat(orderNum: string, attempt: number, controller: AbortController, started: number): { stop(): Promise<void> } {
    const { leaseMs, heartbeatMs } = this.settings;
    let deadline = started + leaseMs;
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    let inFlight: Promise<void> = Promise.resolve();
    const lose = (why: string): void => {
      stopped = true;
      if (!controller.signal.aborted) controller.abort(new LeaseLostError(`the onPaid lease of order ${orderNum} was lost: ${why}`));
    };
    const beat = (): void => {
      inFlight = (async () => {
        if (stopped) return;
        const sent = performance.now();
        if (sent > deadline) return lose('this process was stalled past its lease');
        const now = this.now();
        try {
          if (await this.orders.renewFulfilment(orderNum, attempt, now, new Date(now.getTime() + leaseMs))) deadline = sent + leaseMs;
          else return lose('another run took it over, or it ran out');
        } catch (error) {
          this.events.emit('warning', { code: 'fulfilment_lease_renewal_failed', message: `could not renew the onPaid lease of order ${orderNum}`, orderNum, error });
        }
        if (!stopped) timer = setTimeout(beat, heartbeatMs);
      })();
    };
    timer = setTimeout(beat, heartbeatMs);
    return {
      async stop() {
        stopped = true;
        clearTimeout(timer);
        await inFlight;
      },
    };
  }

  /** Shutdown: abort every run's signal, then wait for the runs to end. */
  async close(): Promise<void> {
    this.closed = true;
    for (const controller of this.running.values()) controller.abort(new Error('payButton() is closing'));
    await Promise.allSettled([...this.running.keys()]);
  }
}
