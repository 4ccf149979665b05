/**
 * Customers' personal data (issue 35, UU PDP): `personalData.export()` gives every order of a
 * person, `personalData.erase()` redacts them in place (an order still pending is refused until it
 * ends), and the retention pass, run by the sweep, redacts finished orders past the period. After
 * an erasure the person's e-mail and phone are in no byte of the SQLite file (WAL included) and in
 * no PostgreSQL row, while the other customer's orders and every amount stay.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { simulationsFor } from '@tombolbayar/gateway/internal';
import { tracesIn } from '@tombolbayar/test-support/personal-traces';
import { erasureRefusal } from '../src/personal-data/decide.ts';
import { parsePersonQuery } from '../src/personal-data/query.ts';
import type { DatabaseOption } from '../src/store/database.ts';
import { ENGINES } from './support/engines.ts';
import { notifiedOfEveryKind } from './support/sandbox-gateway.ts';
import { startHarness, waitFor, type Harness } from './support/harness.ts';

const SITI = { name: 'Siti Rahma', email: 'siti.rahma@example.com', phone: '081311112222' };
const AGUS = { name: 'Agus Salim', email: 'agus.salim@example.com', phone: '085733334444' };
const DAY_MS = 24 * 3600 * 1000;

describe('which orders may be erased (pure)', () => {
  const table: Array<[string, { status: 'creating' | 'pending' | 'paid' | 'expired' | 'failed'; fulfilledAt: Date | null }, string | undefined]> = [
    ['creating', { status: 'creating', fulfilledAt: null }, 'order_pending'],
    ['pending', { status: 'pending', fulfilledAt: null }, 'order_pending'],
    ['paid, onPaid not done', { status: 'paid', fulfilledAt: null }, 'fulfilment_pending'],
    ['paid and fulfilled', { status: 'paid', fulfilledAt: new Date() }, undefined],
    ['expired', { status: 'expired', fulfilledAt: null }, undefined],
    ['failed', { status: 'failed', fulfilledAt: null }, undefined],
  ];
  for (const [name, order, reason] of table) it(`${name} -> ${reason ?? 'erasable'}`, () => assert.equal(erasureRefusal(order), reason));

  it('a query names its bad field', () => {
    assert.throws(() => parsePersonQuery({}), /query: give at least one of email, phone, orderNum/);
    assert.throws(() => parsePersonQuery({ mail: 'a@b.c' }), /mail: is not a key of the query/);
    assert.throws(() => parsePersonQuery({ phone: 81234 }), /phone: must be a string/);
    assert.throws(() => parsePersonQuery({ email: ' ' }), /email: must be 1 to 254 characters/);
    assert.deepEqual(parsePersonQuery({ email: ' A@b.c ', phone: undefined }), { email: 'A@b.c' });
  });
});

/** Where the harness's store is, as `tracesIn` reads it. */
function storeOf(option: DatabaseOption): Parameters<typeof tracesIn>[0] {
  if (option.kind === 'sqlite') return { kind: 'sqlite', file: option.file };
  if (option.kind === 'postgres' && 'url' in option && option.schema) return { kind: 'postgres', url: option.url, schema: option.schema };
  throw new Error('a store the test cannot read');
}

async function paidOrder(harness: Harness, customer: typeof SITI, price: number): Promise<string> {
  const link = await harness.router.createPaymentLink({ quote: { payMoney: price, productDetail: 'Kopi Gayo 250g', ...customer }, method: 'VA_BCA' });
  await harness.payAtGateway(link.orderNum);
  await waitFor(() => harness.fulfilled.find((order) => order.orderNum === link.orderNum), `onPaid of ${link.orderNum}`, 20_000);
  return link.orderNum;
}

for (const engine of ENGINES) {
  describe(`export and erasure through pay.personalData (${engine.name})`, () => {
    let harness: Harness;
    let cleanup: () => Promise<void>;
    before(async () => {
      const fresh = await engine.fresh();
      cleanup = fresh.cleanup;
      // The merchant asks for EXPIRED notifications too, so the pending order below ends by one.
      harness = await startHarness({ database: fresh.option, gatewayOptions: notifiedOfEveryKind() });
    });
    after(async () => {
      await harness?.close();
      await cleanup?.();
    });

    it('exports every order of the person, erases them (refusing one still pending until it ends), and leaves no trace', async () => {
      const { router } = harness;
      const siti = [await paidOrder(harness, SITI, 150_000), await paidOrder(harness, SITI, 50_000)];
      const agus = await paidOrder(harness, AGUS, 75_000);
      const open = await router.createPaymentLink({ quote: { payMoney: 20_000, productDetail: 'Teh Tarik', ...SITI }, method: 'VA_BCA' });

      const exported = await router.personalData.export({ email: 'SITI.rahma@example.com' });
      assert.deepEqual(exported.orders.map((order) => order.orderNum).sort(), [...siti, open.orderNum].sort());
      for (const order of exported.orders) {
        assert.equal(order.name, SITI.name);
        assert.equal(order.email, SITI.email);
        assert.equal(order.phone, SITI.phone);
        assert.equal(order.redactedAt, null);
      }
      assert.deepEqual((await router.personalData.export({ phone: AGUS.phone })).orders.map((order) => order.orderNum), [agus]);
      assert.deepEqual((await router.personalData.export({ orderNum: siti[1]! })).orders.map((order) => order.payMoney), ['50000']);

      const first = await router.personalData.erase({ email: SITI.email });
      assert.deepEqual(first.erased.map((order) => order.orderNum).sort(), [...siti].sort());
      assert.deepEqual(first.refused.map(({ orderNum, reason }) => ({ orderNum, reason })), [{ orderNum: open.orderNum, reason: 'order_pending' }]);
      assert.match(first.refused[0]!.message, /can still be paid/);

      // The pending order ends (expired at the gateway, told by its notification): now it goes too.
      await simulationsFor(harness.gateway).expire(await harness.platOrderNumOf(open.orderNum));
      await waitFor(async () => ((await harness.stored(open.orderNum))?.status === 'expired' ? true : undefined), 'the pending order expired');
      const second = await router.personalData.erase({ email: SITI.email });
      assert.deepEqual(second, { erased: [{ orderNum: open.orderNum, status: 'expired', payMoney: '20000' }], refused: [] });

      const store = storeOf(harness.database);
      assert.deepEqual(await tracesIn(store, [SITI.email, SITI.phone, SITI.name]), [], 'the erased customer is nowhere in the store');
      assert.deepEqual((await tracesIn(store, [AGUS.email, AGUS.phone])).sort(), [AGUS.email, AGUS.phone].sort(), 'the search finds what is there');

      // The financial record stays: numbers, amounts, states; the other customer is untouched.
      for (const [orderNum, money] of [[siti[0]!, '150000'], [siti[1]!, '50000']] as const) {
        const order = await router.getOrder(orderNum);
        assert.equal(order?.status, 'paid');
        assert.equal(order?.payMoney, money);
        assert.deepEqual([order?.name, order?.email, order?.phone], ['', '', '']);
      }
      const kept = await router.getOrder(agus);
      assert.deepEqual([kept?.name, kept?.email, kept?.phone, kept?.payMoney, kept?.status], [AGUS.name, AGUS.email, AGUS.phone, '75000', 'paid']);
      // The erased orders are still found by number, redacted.
      const after = await router.personalData.export({ orderNum: siti[0]! });
      assert.equal(after.orders[0]?.email, '');
      assert.ok(after.orders[0]?.redactedAt instanceof Date);
      assert.deepEqual((await router.personalData.export({ email: SITI.email })).orders, []);
    });

    it('a bad query is an invalid_request naming the field', async () => {
      await assert.rejects(harness.router.personalData.erase({ email: '' }), (error: any) => error.code === 'invalid_request' && /email/.test(error.message));
    });
  });

  describe(`retention, run by the sweep (${engine.name})`, () => {
    let harness: Harness;
    let cleanup: () => Promise<void>;
    let offsetMs = 0;
    before(async () => {
      const fresh = await engine.fresh();
      cleanup = fresh.cleanup;
      harness = await startHarness({ database: fresh.option, options: { now: () => Date.now() + offsetMs, sweep: { intervalMs: 50 }, personalData: { retentionDays: 30 } } });
    });
    after(async () => {
      await harness?.close();
      await cleanup?.();
    });

    it('redacts a finished order once the period has passed, keeping its amount and state', async () => {
      const orderNum = await paidOrder(harness, SITI, 150_000);
      offsetMs = 29 * DAY_MS;
      assert.deepEqual(await harness.router.personalData.applyRetention(), { redacted: 0 }, 'not yet');
      assert.equal((await harness.stored(orderNum))?.email, SITI.email);
      offsetMs = 31 * DAY_MS;
      // No call: the sweep's next round does it.
      const redacted = await waitFor(async () => {
        const stored = await harness.stored(orderNum);
        return stored?.email === '' ? stored : undefined;
      }, 'the sweep redacted the order');
      assert.deepEqual([redacted.name, redacted.phone, redacted.payMoney, redacted.status], ['', '', '150000', 'paid']);
      // The pass then truncates the WAL (on its thread, after the redaction is visible).
      await waitFor(async () => ((await tracesIn(storeOf(harness.database), [SITI.email, SITI.phone])).length === 0 ? true : undefined), 'no trace left');
    });
  });
}
