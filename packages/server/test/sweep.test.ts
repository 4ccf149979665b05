/**
 * Lost notifications found early (issue 25): the router's sweep asks the gateway about pending
 * orders that have a method chosen, on a backoff schedule, one process at a time (a lease in the
 * store). A production-mode gateway here never delivers a notification (its DNS answers nothing),
 * and nobody polls: the sweep alone brings the paid order to `onPaid`, once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sign } from '@tombolbayar/protocol/node';
import { checkIntervalMs, DEFAULT_SWEEP, pickBatch, rerunDue, roundBudget, scanLimit, sweepDue } from '../src/orders/sweep-schedule.ts';
import { createStore, type Store } from '../src/store/index.ts';
import { ENGINES } from './support/engines.ts';
import { MERCHANT_CODE, platformKeys } from './support/keys.ts';
import { newKey, startHarness, waitFor, type Harness } from './support/harness.ts';
import type { GatewayAnswer } from './support/rewrite-proxy.ts';

/** Short intervals, so the test waits a second, not the defaults' minutes. */
const FAST = { intervalMs: 100, firstCheckAfterMs: 200, maxCheckIntervalMs: 400 };

describe('the sweep schedule (pure)', () => {
  const s = DEFAULT_SWEEP;
  const table: Array<[number, number]> = [
    [0, 15_000],
    [30_000, 15_000],
    [60_000, 15_000],
    [120_000, 30_000],
    [240_000, 60_000],
    [360_000, 90_000],
    [86_400_000, 90_000],
  ];
  for (const [age, interval] of table) {
    it(`an order ${age / 1000} s old is asked about every ${interval / 1000} s`, () => assert.equal(checkIntervalMs(age, s), interval));
  }

  const at = (ms: number) => new Date(1_800_000_000_000 + ms);
  const due: Array<[string, number, number | null, number, boolean]> = [
    ['younger than the first check', 0, null, 14_999, false],
    ['first check due', 0, null, 15_000, true],
    ['checked 10 s ago, 1 min old', 0, 50_000, 60_000, false],
    ['checked 15 s ago, 1 min old', 0, 45_000, 60_000, true],
    ['checked 60 s ago, 10 min old', 0, 540_000, 600_000, false],
    ['checked 90 s ago, 10 min old', 0, 510_000, 600_000, true],
  ];
  for (const [name, created, checked, now, expected] of due) {
    it(`${name} -> ${expected ? 'due' : 'not due'}`, () => {
      assert.equal(sweepDue({ createdAt: at(created), checkedAt: checked === null ? null : at(checked) }, at(now), s), expected);
    });
  }

  const budgets: Array<[string, number | undefined, number, number]> = [
    ['the first round: one interval of the budget', undefined, 0, 375],
    ['one interval since the last round', 15_000, 0, 375],
    ['a late round gets the time it waited', 20_000, 0, 500],
    ['a long pause is not spent in one burst', 600_000, 0, 750],
    ['status polls spent part of it', 15_000, 100, 275],
    ['status polls spent all of it', 15_000, 400, 0],
    ['a clock that went back', -5, 0, 0],
  ];
  for (const [name, since, others, expected] of budgets) {
    it(`round budget: ${name} -> ${expected}`, () => assert.equal(roundBudget(s, since, others), expected));
  }

  it('a round reads a backlog of a thousand or more, and a few times its budget', () => {
    assert.equal(scanLimit(s), 3_000);
    assert.equal(scanLimit({ ...s, queriesPerSecond: 1 }), 1_000);
  });

  const order = (name: string, created: number, checked: number | null) => ({ name, createdAt: at(created), checkedAt: checked === null ? null : at(checked) });
  const batches: Array<[string, ReturnType<typeof order>[], number, number, string[]]> = [
    ['nothing due', [order('young', 590_000, null)], 600_000, 10, []],
    ['the due ones, oldest first', [order('b', 300_000, null), order('a', 0, 400_000), order('c', 500_000, 550_000), order('fresh', 0, 590_000)], 600_000, 10, ['a', 'b', 'c']],
    ['as many as the budget allows, oldest first', [order('c', 500_000, null), order('a', 100_000, null), order('b', 200_000, null)], 600_000, 2, ['a', 'b']],
    ['no budget, no questions', [order('a', 0, null)], 600_000, 0, []],
  ];
  for (const [name, candidates, now, budget, expected] of batches) {
    it(`batch: ${name}`, () => assert.deepEqual(pickBatch(candidates, at(now), s, budget).map((o) => o.name), expected));
  }

  const reruns: Array<[string, number, number | null, number, boolean]> = [
    ['never met by the sweep: at once', 0, null, 1_000, true],
    ['paid 1 min ago, last tried 10 s ago', 0, 50_000, 60_000, false],
    ['paid 1 min ago, last tried 15 s ago', 0, 45_000, 60_000, true],
    ['paid 10 min ago, last tried 60 s ago', 0, 540_000, 600_000, false],
    ['paid 10 min ago, last tried 90 s ago', 0, 510_000, 600_000, true],
  ];
  for (const [name, paid, checked, now, expected] of reruns) {
    it(`onPaid again: ${name} -> ${expected ? 'due' : 'not yet'}`, () => {
      assert.equal(rerunDue({ createdAt: at(paid - 5_000), paidAt: at(paid), checkedAt: checked === null ? null : at(checked) }, at(now), s), expected);
    });
  }

  it('a backlog of 1,000 orders with a method fits the default budget at the 90 s cap', () => {
    // Each order is asked about once per 90 s at most: 1,000 of them need about 11 a second.
    assert.ok((1_000 * 1_000) / s.maxCheckIntervalMs < s.queriesPerSecond);
  });

  it('with the defaults, a payment is found within 2 minutes whatever the order age', () => {
    // The longest wait between checks plus one round.
    assert.ok(s.maxCheckIntervalMs + s.intervalMs <= 120_000);
  });
});

for (const engine of ENGINES) {
  describe(`sweep lease (${engine.name})`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    before(async () => {
      const fresh = await engine.fresh();
      cleanup = fresh.cleanup;
      store = createStore(fresh.option);
      await store.migrate();
    });
    after(async () => {
      await store.close();
      await cleanup();
    });

    it('one holder at a time; renewed by its holder; taken over once it runs out; free again once released', async () => {
      const t0 = new Date('2026-03-01T00:00:00.000Z');
      const later = (ms: number) => new Date(t0.getTime() + ms);
      assert.equal(await store.sweep.claimLease('sweep:M', 'a', t0, later(1_000)), true);
      assert.equal(await store.sweep.claimLease('sweep:M', 'b', later(10), later(1_010)), false);
      assert.equal(await store.sweep.claimLease('sweep:M', 'a', later(500), later(1_500)), true, 'renewed');
      assert.equal(await store.sweep.claimLease('sweep:M', 'b', later(1_200), later(2_200)), false, 'the renewal holds');
      assert.equal(await store.sweep.claimLease('sweep:M', 'b', later(1_600), later(2_600)), true, 'taken over after it ran out');
      assert.equal(await store.sweep.claimLease('sweep:OTHER', 'a', later(1_600), later(2_600)), true, 'leases are per name');
      await store.sweep.releaseLease('sweep:M', 'a'); // not a's any more: nothing happens
      assert.equal(await store.sweep.claimLease('sweep:M', 'a', later(1_700), later(2_700)), false);
      await store.sweep.releaseLease('sweep:M', 'b');
      assert.equal(await store.sweep.claimLease('sweep:M', 'a', later(1_700), later(2_700)), true);
    });
  });

  describe(`a lost notification and an onPaid that threw once, nobody polling (${engine.name})`, () => {
    let harness: Harness;
    let cleanup: () => Promise<void>;
    before(async () => {
      const fresh = await engine.fresh();
      cleanup = fresh.cleanup;
      harness = await startHarness({ production: true, database: fresh.option, onPaidFailures: 1, options: { sweep: FAST } });
    });
    after(async () => {
      await harness?.close();
      await cleanup?.();
    });

    it('the sweep runs onPaid again, and it completes once', async () => {
      const created = await harness.createLink({ method: 'VA_BCA' });
      const { orderNum } = created.body;
      await harness.payAtGateway(orderNum);
      await waitFor(() => harness.fulfilled.find((order) => order.orderNum === orderNum), 'onPaid through the sweep, after it threw', 30_000);
      assert.deepEqual(harness.onPaidCalls.filter((call) => call.orderNum === orderNum).map((call) => call.attempt), [1, 2]);
      assert.equal(harness.eventsNamed('notification.accepted').length, 0, 'no notification arrived');
    });
  });

  describe(`a lost notification, nobody polling (${engine.name})`, () => {
    let harness: Harness;
    let cleanup: () => Promise<void>;
    before(async () => {
      const fresh = await engine.fresh();
      cleanup = fresh.cleanup;
      harness = await startHarness({ production: true, database: fresh.option, options: { sweep: FAST } });
    });
    after(async () => {
      await harness?.close();
      await cleanup?.();
    });

    it('reaches onPaid through the sweep, exactly once', async () => {
      const created = await harness.createLink({ method: 'VA_BCA' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const { orderNum } = created.body;
      await harness.payAtGateway(orderNum);
      const paid = await waitFor(() => harness.fulfilled.find((order) => order.orderNum === orderNum), 'onPaid through the sweep', 30_000);
      assert.equal(paid.status, 'paid');
      assert.deepEqual(harness.onPaidCalls.filter((call) => call.orderNum === orderNum), [{ orderNum, attempt: 1 }]);
      assert.equal(harness.eventsNamed('notification.accepted').length, 0, 'no notification arrived');
      assert.ok(harness.dnsLookups.length > 0, 'the gateway tried to notify, and could not');
      // A link without a method is not swept (the customer has not reached the payment step).
      const open = await harness.createLink();
      await waitFor(async () => ((await harness.stored(orderNum))?.checkedAt ? true : undefined), 'the sweep checked the paid order');
      assert.equal((await harness.stored(open.body.orderNum))?.checkedAt, null);
    });
  });

  describe(`an order a create answer left in creating, nobody calling reconcile() (${engine.name})`, () => {
    let harness: Harness;
    let cleanup: () => Promise<void>;
    const clock = { offset: 0 };
    before(async () => {
      const fresh = await engine.fresh();
      cleanup = fresh.cleanup;
      harness = await startHarness({ rewriter: true, database: fresh.option, options: { sweep: FAST, now: () => Date.now() + clock.offset, totalTimeoutMs: 5_000 } });
    });
    after(async () => {
      await harness?.close();
      await cleanup?.();
    });

    it('the sweep asks the gateway once the create is surely over, and adopts the order it holds', async () => {
      // The create answered UNKNOWN, and the query that follows answers, verified, another amount:
      // not trusted, the order kept in creating (never adopted, never re-sent).
      const faults = await fetch(`${harness.gatewayUrl}/sandbox/faults/${MERCHANT_CODE}`, {
        method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ create: { respond: 'UNKNOWN', orderCreated: true } }),
      });
      assert.equal(faults.status, 200, await faults.text());
      harness.rewriter!.rewrite = (answer: GatewayAnswer, path: string) => {
        if (path !== '/gateway/query') return undefined;
        const { platSign: _old, ...fields } = { ...answer.fields, payMoney: '1500' } as Record<string, string>;
        return { status: answer.status, fields: { ...fields, platSign: sign(fields, platformKeys().privateKey) } };
      };
      const refused = await harness.createLink({ item: 'kopi', idempotencyKey: newKey() });
      assert.equal(refused.status, 502, JSON.stringify(refused.body));
      const orderNum = harness.eventsNamed('order.transition')[0]!.orderNum;
      assert.equal((await harness.stored(orderNum))?.status, 'creating');
      assert.ok(harness.eventsNamed('warning').some((warning) => warning.code === 'gateway_mismatch' && warning.orderNum === orderNum), 'logged');
      harness.rewriter!.rewrite = undefined;

      // Past the longest a create may take (and its minute of margin): the sweep's next round settles it.
      clock.offset = 5 * 60_000;
      const adopted = await waitFor(async () => {
        const stored = await harness.stored(orderNum);
        return stored?.status === 'pending' ? stored : undefined;
      }, 'the sweep adopted the order', 30_000);
      assert.ok(adopted.url, 'the link is known from the query');
      const moved = harness.eventsNamed('order.transition').filter((event) => event.orderNum === orderNum).map((event) => `${event.from}->${event.to}:${event.source}`);
      assert.deepEqual(moved, ['null->creating:create', 'creating->pending:reconcile']);
    });
  });
}
