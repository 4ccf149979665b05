/**
 * Customers' personal data (issue 35, UU PDP) on the gateway: export and erasure by the signed
 * operator API (`/gateway/personalData/*`, the merchant's key) and by the CLI
 * (`personal-data export|erase`, on the store while the server runs), and the retention pass run
 * by the expiry sweep. After an erasure the person's e-mail and phone are in no byte of the SQLite
 * file and in no PostgreSQL row (orders, notification fields, the merchant's answers in the
 * attempt log), while the other customer's orders and every amount stay.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { formatDateTime } from '@tombolbayar/protocol/node';
import { tracesIn } from '@tombolbayar/test-support/personal-traces';
import { erasureRefusal } from '../src/privacy/personal-data.ts';
import { parsePersonQuery } from '../src/privacy/query.ts';
import { redactedFields } from '../src/store/personal-data.ts';
import { parseCli, UsageError } from '../src/cli/args.ts';
import { runCli } from './support/cli-process.ts';
import { DATABASE_URL, ENGINES } from './support/engines.ts';
import { notifiedOf, startHarness, type Harness } from './support/harness.ts';
import { eventually, startReceiver, type Receiver } from './support/receiver.ts';

const SITI = { name: 'Siti Rahma', email: 'siti.rahma@example.com', phone: '081311112222' };
const AGUS = { name: 'Agus Salim', email: 'agus.salim@example.com', phone: '085733334444' };
const DAY_MS = 24 * 3600 * 1000;

describe('personal data decisions (pure)', () => {
  test('which orders may be erased', () => {
    assert.equal(erasureRefusal({ status: 'PENDING', notificationsPending: 0 }), 'order_pending');
    assert.equal(erasureRefusal({ status: 'PAID', notificationsPending: 1 }), 'notification_pending');
    assert.equal(erasureRefusal({ status: 'PAID', notificationsPending: 0 }), undefined);
    assert.equal(erasureRefusal({ status: 'EXPIRED', notificationsPending: 0 }), undefined);
  });
  test('a query names its bad field', () => {
    assert.deepEqual(parsePersonQuery({}), { ok: false, field: 'email', message: 'give at least one of email, phone, orderNum' });
    assert.deepEqual(parsePersonQuery({ phone: 'x'.repeat(21) }), { ok: false, field: 'phone', message: 'must be 1 to 20 characters' });
    assert.deepEqual(parsePersonQuery({ email: ' a@b.c ', merchantCode: 'ignored' }), { ok: true, query: { email: 'a@b.c' } });
  });
  test('the CLI: personal-data and --retention-days', () => {
    assert.deepEqual(parseCli(['personal-data', 'export', '--email', 'a@b.c', '--order', 'A1'], {}).command, { kind: 'personal-data', action: 'export', query: { email: 'a@b.c', orderNum: 'A1' } });
    assert.throws(() => parseCli(['personal-data', 'forget', '--email', 'a@b.c'], {}), /personal-data needs a subcommand: erase or export/);
    assert.throws(() => parseCli(['personal-data', 'erase'], {}), /needs --email, --phone or --order/);
    assert.equal(parseCli(['--retention-days', '30'], {}).retentionDays, 30);
    assert.equal(parseCli(['--retention-days', 'off'], {}).retentionDays, false);
    assert.equal(parseCli([], {}).retentionDays, undefined);
    assert.throws(() => parseCli(['--retention-days', '0'], {}), (error: unknown) => error instanceof UsageError && /--retention-days must be a whole number of days from 1 to 36500, or off/.test(error.message));
  });
  test("a redacted notification keeps the order's facts, not the person, and no signature", () => {
    assert.deepEqual(redactedFields({ name: 'Siti', email: 's@x.id', orderNum: 'A1', payMoney: '150000.00', platSign: 'abc' }), { name: '', email: '', orderNum: 'A1', payMoney: '150000.00' });
  });
});

/** Where the harness's store is, as `tracesIn` reads it. */
function storeOf(h: Harness): Parameters<typeof tracesIn>[0] {
  const database = h.store.database;
  if (database.kind === 'sqlite') return { kind: 'sqlite', file: database.file };
  return { kind: 'postgres', url: database.url, schema: database.schema! };
}

/** The CLI's flags that reach the harness's store. */
function storeFlags(h: Harness): string[] {
  const database = h.store.database;
  if (database.kind === 'sqlite') {
    assert.equal(database.file, join(h.store.dataDir, 'gateway.sqlite'));
    return ['--data', h.store.dataDir];
  }
  return ['--database-url', DATABASE_URL!, '--database-schema', database.schema!];
}

type Interface = 'operator API' | 'CLI';

for (const engine of ENGINES) {
  for (const via of ['operator API', 'CLI'] as const satisfies readonly Interface[]) {
    describe(`erasure and export through the ${via} (${engine})`, () => {
      let h: Harness;
      let receiver: Receiver;
      before(async () => {
        receiver = await startReceiver();
        // The first attempt of each notification is refused with an answer that repeats the
        // customer's e-mail (a merchant's error page might): the attempt log then holds it too.
        receiver.answer((index) => {
          const fields = receiver.received[index]!.fields;
          const first = receiver.received.filter((r) => r.fields.orderNum === fields.orderNum).length === 1;
          return first ? { status: 500, body: `no customer ${fields.email} here` } : { status: 200, body: 'SUCCESS' };
        });
        // EXPIRED notifications asked for: the pending order below ends by one, and it is erased too.
        h = await startHarness(engine, { timeScale: 0.001, ...notifiedOf(['paid', 'failed', 'expired']) });
      });
      after(async () => {
        await h?.stop();
        await receiver?.close();
      });

      async function paidOrder(customer: typeof SITI, payMoney: string): Promise<{ orderNum: string; platOrderNum: string }> {
        const created = await h.client.createVa({ ...customer, payMoney, notifyUrl: receiver.url });
        assert.equal(created.body.platRespCode, 'SUCCESS', JSON.stringify(created.body));
        const { orderNum, platOrderNum } = created.body as { orderNum: string; platOrderNum: string };
        await h.gateway.pay(platOrderNum);
        await settled(orderNum);
        return { orderNum, platOrderNum };
      }

      async function settled(orderNum: string) {
        await eventually(async () => {
          const list = await h.gateway.deliveries.list({ orderNum });
          return list.length > 0 && list.every((d) => d.state === 'delivered') && list.every((d) => d.attempts.length >= 2) ? list : undefined;
        }, 20_000, `the notification of ${orderNum} delivered`);
      }

      /** Export or erase through the interface under test; the report as the interface gives it. */
      async function ask(action: 'export' | 'erase', query: { email?: string; phone?: string; orderNum?: string }): Promise<any> {
        if (via === 'operator API') {
          const answer = await h.client.call(`/gateway/personalData/${action}`, { merchantCode: h.merchant.merchantCode, ...query, dateTime: formatDateTime() });
          assert.equal(answer.body.platRespCode, 'SUCCESS', JSON.stringify(answer.body));
          assert.ok(h.verifies(answer.body), 'the answer is signed by the platform');
          const { orders, erased, refused } = answer.body as Record<string, string>;
          return action === 'export' ? { orders: JSON.parse(orders!) } : { erased: JSON.parse(erased!), refused: JSON.parse(refused!) };
        }
        const flags = [...(query.email ? ['--email', query.email] : []), ...(query.phone ? ['--phone', query.phone] : []), ...(query.orderNum ? ['--order', query.orderNum] : [])];
        const run = await runCli(['personal-data', action, ...flags, ...storeFlags(h)]);
        const report = JSON.parse(run.stdout);
        assert.equal(run.code, action === 'erase' && report.refused.length > 0 ? 3 : 0, run.stderr);
        return report;
      }

      test('exports every order of the person, erases them by e-mail (a pending one refused until it ends), and leaves no trace', async () => {
        const siti = [await paidOrder(SITI, '150000'), await paidOrder(SITI, '50000')];
        const agus = await paidOrder(AGUS, '75000');
        const open = await h.client.createVa({ ...SITI, payMoney: '20000', notifyUrl: receiver.url });

        const exported = await ask('export', { email: SITI.email.toUpperCase() });
        assert.deepEqual(exported.orders.map((o: any) => o.orderNum).sort(), [...siti.map((o) => o.orderNum), open.body.orderNum].sort());
        for (const order of exported.orders) assert.deepEqual([order.name, order.email, order.phone, order.redactedAt], [SITI.name, SITI.email, SITI.phone, null]);
        assert.deepEqual((await ask('export', { phone: AGUS.phone })).orders.map((o: any) => o.payMoney), [75_000]);

        const first = await ask('erase', { email: SITI.email });
        assert.deepEqual(first.erased.map((o: any) => o.orderNum).sort(), siti.map((o) => o.orderNum).sort());
        assert.deepEqual(first.refused.map((o: any) => [o.orderNum, o.reason]), [[open.body.orderNum, 'order_pending']]);

        // The pending order ends, its notification is delivered: now it goes too.
        await h.gateway.expire(open.body.platOrderNum!);
        await settled(open.body.orderNum!);
        const second = await ask('erase', { email: SITI.email });
        assert.deepEqual(second.erased.map((o: any) => [o.orderNum, o.status, o.payMoney]), [[open.body.orderNum, 'EXPIRED', 20_000]]);
        assert.deepEqual(second.refused, []);

        await eventually(async () => ((await tracesIn(storeOf(h), [SITI.email, SITI.phone, SITI.name])).length === 0 ? true : undefined), 10_000, 'no trace of the erased customer');
        assert.deepEqual((await tracesIn(storeOf(h), [AGUS.email, AGUS.phone])).sort(), [AGUS.email, AGUS.phone].sort(), 'the search finds what is there');

        // The financial record stays; the other customer is untouched.
        for (const [order, money] of [[siti[0]!, 150_000], [siti[1]!, 50_000]] as const) {
          const stored = await h.gateway.findOrder(order.platOrderNum);
          assert.deepEqual([stored?.status, stored?.payMoney, stored?.name, stored?.email, stored?.phone], ['PAID', money, '', '', '']);
          const [delivery] = await h.gateway.deliveries.list({ orderNum: order.orderNum });
          assert.equal(delivery?.fields.email, '');
          assert.equal(delivery?.fields.platSign, undefined);
          assert.ok(delivery!.attempts.every((attempt) => attempt.bodyExcerpt === ''));
          assert.equal(await h.gateway.deliveries.resend(delivery!.id), undefined, "a redacted order's notification is never sent again");
        }
        const kept = await h.gateway.findOrder(agus.platOrderNum);
        assert.deepEqual([kept?.name, kept?.email, kept?.phone, kept?.payMoney, kept?.status], [AGUS.name, AGUS.email, AGUS.phone, 75_000, 'PAID']);
        assert.deepEqual((await ask('export', { email: SITI.email })).orders, []);
        const byNumber = await ask('export', { orderNum: siti[0]!.orderNum });
        assert.equal(byNumber.orders[0].email, '');
        assert.equal(typeof byNumber.orders[0].redactedAt, 'number');
      });

      if (via === 'operator API') {
        test('an unsigned or wrongly signed request is refused and touches nothing; a bad query names its field', async () => {
          const unsigned = await fetch(`${h.url}/gateway/personalData/export`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ merchantCode: h.merchant.merchantCode, email: AGUS.email, dateTime: formatDateTime() }) });
          const body = (await unsigned.json()) as Record<string, string>;
          assert.notEqual(body.platRespCode, 'SUCCESS');
          assert.equal(body.orders, undefined);
          const forged = await fetch(`${h.url}/gateway/personalData/erase`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ merchantCode: h.merchant.merchantCode, email: AGUS.email, dateTime: formatDateTime(), sign: 'AAAA' }) });
          assert.notEqual(((await forged.json()) as Record<string, string>).platRespCode, 'SUCCESS');
          const bad = await h.client.call('/gateway/personalData/export', { merchantCode: h.merchant.merchantCode, dateTime: formatDateTime() });
          assert.deepEqual([bad.body.platRespCode, bad.body.platRespMessage], ['FAIL', 'email: give at least one of email, phone, orderNum']);
          assert.deepEqual((await tracesIn(storeOf(h), [AGUS.email])), [AGUS.email], 'still there');
        });
      } else {
        test('a bad flag is a usage error naming it', async () => {
          const run = await runCli(['personal-data', 'erase', '--phone', 'x'.repeat(21), ...storeFlags(h)]);
          assert.equal(run.code, 2);
          assert.match(run.stderr, /--phone must be 1 to 20 characters/);
          const none = await runCli(['personal-data', 'export', ...storeFlags(h)]);
          assert.equal(none.code, 2);
          assert.match(none.stderr, /needs --email, --phone or --order/);
        });
      }
    });
  }

  describe(`retention, run by the expiry sweep (${engine})`, () => {
    let h: Harness;
    let receiver: Receiver;
    before(async () => {
      receiver = await startReceiver();
      h = await startHarness(engine, { timeScale: 0.001, expirySweepIntervalMs: 50, personalData: { retentionDays: 30 } });
    });
    after(async () => {
      await h?.stop();
      await receiver?.close();
    });

    test('redacts a finished order once the period has passed (gateway clock), keeping its amount and state', async () => {
      const created = await h.client.createVa({ ...SITI, payMoney: '150000', notifyUrl: receiver.url });
      await h.gateway.pay(created.body.platOrderNum!);
      await eventually(async () => ((await h.gateway.deliveries.list({ orderNum: created.body.orderNum! }))[0]?.state === 'delivered' ? true : undefined), 20_000, 'delivered');
      h.gateway.clock.advance(29 * DAY_MS);
      assert.equal(await h.gateway.personalData.applyRetention(), 0, 'not yet');
      assert.equal((await h.gateway.findOrder(created.body.platOrderNum!))?.email, SITI.email);
      h.gateway.clock.advance(2 * DAY_MS);
      // No call: the sweep's next pass does it.
      const redacted = await eventually(async () => {
        const order = await h.gateway.findOrder(created.body.platOrderNum!);
        return order?.email === '' ? order : undefined;
      }, 10_000, 'the retention pass redacted the order');
      assert.deepEqual([redacted.name, redacted.phone, redacted.payMoney, redacted.status], ['', '', 150_000, 'PAID']);
      await eventually(async () => ((await tracesIn(storeOf(h), [SITI.email, SITI.phone])).length === 0 ? true : undefined), 10_000, 'no trace left');
    });
  });
}
