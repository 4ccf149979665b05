/**
 * A backlog of pending orders is drained by the sweep within its bound (issue 31): a real gateway
 * that never delivers a notification (production mode, its DNS answers nothing), nobody polling,
 * hundreds of orders with a method chosen, and the sweep on a time scale shortened `SCALE` times
 * (its query budget raised as many times). Orders paid at random moments must each reach
 * `onPaid` within the README's bound, 120 s / `SCALE`; the whole backlog is asked about.
 *
 * SWEEP_BACKLOG sets the backlog (default 300; 1000 is the figure, slower to set up).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_SWEEP } from '../src/orders/sweep-schedule.ts';
import { startHarness, waitFor, type Harness } from './support/harness.ts';

const SCALE = 10;
const BACKLOG = Number(process.env.SWEEP_BACKLOG ?? 300);
const PAID = 20;
const BOUND_MS = 120_000 / SCALE;
const SWEEP = {
  intervalMs: DEFAULT_SWEEP.intervalMs / SCALE,
  firstCheckAfterMs: DEFAULT_SWEEP.firstCheckAfterMs / SCALE,
  maxCheckIntervalMs: DEFAULT_SWEEP.maxCheckIntervalMs / SCALE,
  queriesPerSecond: DEFAULT_SWEEP.queriesPerSecond * SCALE,
};

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

describe(`a backlog of ${BACKLOG} pending orders, notifications lost, nobody polling (time / ${SCALE})`, () => {
  let harness: Harness;
  before(async () => {
    harness = await startHarness({ production: true, options: { sweep: SWEEP, statusRefreshMs: 0 } });
  });
  after(async () => {
    await harness?.close();
  });

  it(`every paid order reaches onPaid within ${BOUND_MS} ms, and every order is asked about`, async () => {
    const orders: string[] = [];
    for (let i = 0; i < BACKLOG; i += 10) {
      const made = await Promise.all(Array.from({ length: Math.min(10, BACKLOG - i) }, () => harness.createLink({ item: 'kopi', method: 'VA_BCA' })));
      for (const link of made) {
        assert.equal(link.status, 201, JSON.stringify(link.body));
        orders.push(link.body.orderNum as string);
      }
    }
    const created = Date.now();

    // Pay a random sample, one every few hundred ms, while the sweep works through the backlog.
    const sample = [...orders].sort(() => Math.random() - 0.5).slice(0, PAID);
    const paidAt = new Map<string, number>();
    for (const orderNum of sample) {
      await harness.payAtGateway(orderNum);
      paidAt.set(orderNum, Date.now());
      await new Promise((resolve) => setTimeout(resolve, (Math.random() * SWEEP.maxCheckIntervalMs) / PAID));
    }
    const fulfilledAt = new Map<string, number>();
    await waitFor(() => {
      for (const order of harness.fulfilled) if (!fulfilledAt.has(order.orderNum)) fulfilledAt.set(order.orderNum, Date.now());
      return sample.every((orderNum) => fulfilledAt.has(orderNum));
    }, 'every paid order reached onPaid', 4 * BOUND_MS + 30_000);

    const latencies = sample.map((orderNum) => fulfilledAt.get(orderNum)! - paidAt.get(orderNum)!).sort((a, b) => a - b);
    const figures = { backlog: BACKLOG, paid: PAID, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1)!, boundMs: BOUND_MS };
    console.log(`sweep backlog figures (ms, time / ${SCALE}): ${JSON.stringify(figures)}`);
    assert.ok(figures.p99 <= BOUND_MS, `p99 ${figures.p99} ms within ${BOUND_MS} ms: ${JSON.stringify(latencies)}`);
    assert.equal(harness.eventsNamed('notification.accepted').length, 0, 'no notification arrived: the sweep found them all');
    for (const orderNum of sample) assert.deepEqual(harness.onPaidCalls.filter((call) => call.orderNum === orderNum).map((call) => call.attempt), [1]);

    // The whole backlog was asked about, not only the first rows of it.
    const unchecked = [];
    for (const orderNum of orders) if (!(await harness.stored(orderNum))?.checkedAt) unchecked.push(orderNum);
    assert.deepEqual(unchecked, [], `asked about within ${Date.now() - created} ms of the last create`);
  });
});
