/**
 * The sandbox JSON API: simulate payment, expiry and failure; move the clock; read and resend
 * notifications; inject faults. None of it exists outside sandbox mode.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createGateway, type Gateway, type SandboxGateway } from '../src/index.ts';
import { ENGINES } from './support/engines.ts';
import { platformKeys } from './support/keys.ts';
import { startHarness, MERCHANT_CODE, type Harness } from './support/harness.ts';
import { eventually, startReceiver, type Receiver } from './support/receiver.ts';

interface Answer {
  status: number;
  body: Record<string, any>;
}

async function call(method: string, url: string, body?: unknown): Promise<Answer> {
  const response = await fetch(url, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

for (const engine of ENGINES) {
  describe(`sandbox API on ${engine}`, () => {
    let h: Harness;
    let receiver: Receiver;
    before(async () => {
      receiver = await startReceiver();
      h = await startHarness(engine, { timeScale: 0.001 });
    });
    after(async () => {
      await h.stop();
      await receiver.close();
    });
    const sandbox = (path: string) => `${h.url}/sandbox${path}`;

    test('simulate payment, expiry and failure; each only once', async () => {
      for (const [action, status] of [['pay', 'PAID'], ['expire', 'EXPIRED'], ['fail', 'FAILED']] as const) {
        const created = await h.client.createVa();
        const answer = await call('POST', sandbox(`/orders/${created.body.platOrderNum}/${action}`));
        assert.equal(answer.status, 200);
        assert.equal(answer.body.platRespCode, 'SUCCESS');
        assert.equal(answer.body.order.status, status);
        assert.equal(answer.body.order.orderNum, created.body.orderNum);
        const again = await call('POST', sandbox(`/orders/${created.body.platOrderNum}/${action}`));
        assert.equal(again.status, 409);
        assert.equal(again.body.platRespCode, 'FAIL');
        assert.match(again.body.platRespMessage, new RegExp(`the order is ${status}`));
      }
      const missing = await call('POST', sandbox('/orders/NOPE/pay'));
      assert.equal(missing.status, 404);
      assert.equal(missing.body.platRespCode, 'NOTEXIST');
    });

    test('paying a link without a method needs one; the body may choose it', async () => {
      const created = await h.client.createLink();
      const refused = await call('POST', sandbox(`/orders/${created.body.platOrderNum}/pay`));
      assert.equal(refused.status, 409);
      assert.match(refused.body.platRespMessage, /choose one before paying/);
      const badMethod = await call('POST', sandbox(`/orders/${created.body.platOrderNum}/pay`), { method: 'CASH' });
      assert.equal(badMethod.status, 400);
      assert.match(badMethod.body.platRespMessage, /^method: /);
      const paid = await call('POST', sandbox(`/orders/${created.body.platOrderNum}/pay`), { method: 'EWALLET_OVO' });
      assert.equal(paid.body.order.status, 'PAID');
      assert.equal(paid.body.order.method, 'EWALLET_OVO');
      assert.equal(paid.body.order.url, created.body.url);
      const read = await call('GET', sandbox(`/orders/${created.body.platOrderNum}`));
      assert.equal(read.body.order.status, 'PAID');
    });

    test('the method is spelled as prepaidOrder takes it: code, alias, or null and "" for none', async () => {
      for (const [spelling, code] of [['OVO', 'EWALLET_OVO'], ['BCA', 'VA_BCA'], ['ALFAMART', 'RETAIL_ALFAMART'], ['QRIS', 'QRIS']] as const) {
        const created = await h.client.createLink();
        const paid = await call('POST', sandbox(`/orders/${created.body.platOrderNum}/pay`), { method: spelling });
        assert.equal(paid.status, 200, spelling);
        assert.deepEqual([paid.body.order.status, paid.body.order.method], ['PAID', code], spelling);
      }
      for (const none of [null, '']) {
        const created = await h.client.createLink();
        const refused = await call('POST', sandbox(`/orders/${created.body.platOrderNum}/pay`), { method: none });
        assert.equal(refused.status, 409, 'no method chosen: the link still needs one');
        assert.match(refused.body.platRespMessage, /choose one before paying/);
      }
      const lowerCase = await call('POST', sandbox(`/orders/${(await h.client.createLink()).body.platOrderNum}/pay`), { method: 'ovo' });
      assert.equal(lowerCase.status, 400, 'the wire format is case-sensitive, as for prepaidOrder');
      assert.doesNotMatch(lowerCase.body.platRespMessage, /"/);
    });

    test('the clock advances and expires what is due', async () => {
      const created = await h.client.createVa({ expiryPeriod: '45' });
      const before = await call('GET', sandbox('/clock'));
      const advanced = await call('POST', sandbox('/clock/advance'), { minutes: 46 });
      assert.equal(advanced.status, 200);
      assert.ok(advanced.body.expiredOrders >= 1);
      assert.equal(advanced.body.clock.offsetMinutes, before.body.clock.offsetMinutes + 46);
      assert.equal((await h.client.query({ orderNum: created.body.orderNum! })).body.status, 'EXPIRED');
      for (const bad of [{ minutes: -5 }, { minutes: 'ten' }, {}, { minutes: 5, extra: true }]) {
        const refused = await call('POST', sandbox('/clock/advance'), bad);
        assert.equal(refused.status, 400);
        assert.match(refused.body.platRespMessage, /minutes|extra|Unrecognized/);
      }
    });

    test('the delivery log by orderNum, and resend', async () => {
      const created = await h.client.createVa({ notifyUrl: receiver.url });
      await call('POST', sandbox(`/orders/${created.body.platOrderNum}/pay`));
      const log = await eventually(async () => {
        const answer = await call('GET', sandbox(`/deliveries?orderNum=${created.body.orderNum}`));
        return answer.body.deliveries[0]?.state === 'delivered' ? answer.body.deliveries : undefined;
      });
      assert.equal(log.length, 1);
      assert.equal(log[0].event, 'PAID');
      assert.equal(log[0].fields.platOrderNum, created.body.platOrderNum);
      assert.deepEqual(log[0].attempts.map((a: any) => [a.number, a.httpStatus, a.acknowledged]), [[1, 200, true]]);
      const latest = await call('GET', sandbox('/deliveries'));
      assert.ok(latest.body.deliveries.some((d: any) => d.id === log[0].id), 'without a filter: the latest deliveries');

      const resent = await call('POST', sandbox(`/deliveries/${log[0].id}/resend`));
      assert.equal(resent.status, 200);
      assert.equal(resent.body.delivery.state, 'pending');
      await eventually(async () => {
        const answer = await call('GET', sandbox(`/deliveries?orderNum=${created.body.orderNum}`));
        return answer.body.deliveries[0]?.attempts.length === 2 ? true : undefined;
      });
      assert.equal(receiver.received.filter((r) => r.fields.orderNum === created.body.orderNum).length, 2);
      assert.equal((await call('POST', sandbox('/deliveries/nope/resend'))).status, 404);
      assert.equal((await call('GET', sandbox('/deliveries?limit=0'))).status, 400);
    });

    test('fault: duplicate delivers every notification twice', async () => {
      const created = await h.client.createVa({ notifyUrl: receiver.url });
      const rule = await call('PUT', sandbox(`/faults/${MERCHANT_CODE}/orders/${created.body.orderNum}`), { notifications: { duplicate: true } });
      assert.equal(rule.status, 200);
      await h.gateway.pay(created.body.platOrderNum!);
      await eventually(async () => (receiver.received.filter((r) => r.fields.orderNum === created.body.orderNum).length === 2 ? true : undefined));
      const log = await h.gateway.deliveries.list({ orderNum: created.body.orderNum! });
      assert.deepEqual(log.map((d) => d.fault).sort(), ['duplicate', null].sort());
    });

    test('fault: delay holds the first attempt back (on the gateway clock)', async () => {
      const created = await h.client.createVa({ notifyUrl: receiver.url });
      await call('PUT', sandbox(`/faults/${MERCHANT_CODE}/orders/${created.body.orderNum}`), { notifications: { delayMs: 600_000 } });
      await h.gateway.pay(created.body.platOrderNum!);
      const [delivery] = await h.gateway.deliveries.list({ orderNum: created.body.orderNum! });
      assert.equal(delivery?.state, 'pending');
      assert.equal(delivery?.fault, 'delay');
      assert.equal(delivery?.attempts.length, 0);
      await call('POST', sandbox('/clock/advance'), { minutes: 11 });
      await eventually(async () => ((await h.gateway.deliveries.get(delivery!.id))?.state === 'delivered' ? true : undefined));
    });

    test('fault: drop logs the notification as dropped and never sends it; resend does', async () => {
      const created = await h.client.createVa({ notifyUrl: receiver.url });
      await call('PUT', sandbox(`/faults/${MERCHANT_CODE}/orders/${created.body.orderNum}`), { notifications: { drop: true } });
      await h.gateway.pay(created.body.platOrderNum!);
      const [delivery] = await h.gateway.deliveries.list({ orderNum: created.body.orderNum! });
      assert.equal(delivery?.state, 'dropped');
      await h.gateway.deliveries.runOnce();
      assert.equal(receiver.received.filter((r) => r.fields.orderNum === created.body.orderNum).length, 0);
      await call('POST', sandbox(`/deliveries/${delivery!.id}/resend`));
      await eventually(async () => ((await h.gateway.deliveries.get(delivery!.id))?.state === 'delivered' ? true : undefined));
    });

    test('fault: creates answer UNKNOWN, with or without storing the order', async () => {
      await call('PUT', sandbox(`/faults/${MERCHANT_CODE}/orders/UNKNOWN-STORED`), { create: { respond: 'UNKNOWN' } });
      await call('PUT', sandbox(`/faults/${MERCHANT_CODE}/orders/UNKNOWN-LOST`), { create: { respond: 'UNKNOWN', orderCreated: false } });
      const stored = await h.client.createVa({ orderNum: 'UNKNOWN-STORED' });
      assert.equal(stored.body.platRespCode, 'UNKNOWN');
      assert.ok(h.verifies(stored.body));
      assert.equal((await h.client.query({ orderNum: 'UNKNOWN-STORED' })).body.platRespCode, 'SUCCESS');
      const lost = await h.client.createLink({ orderNum: 'UNKNOWN-LOST' });
      assert.equal(lost.body.platRespCode, 'UNKNOWN');
      assert.equal((await h.client.query({ orderNum: 'UNKNOWN-LOST' })).body.platRespCode, 'NOTEXIST');
    });

    test('fault rules per merchant, overridden per order, listed and removed; bad rules refused', async () => {
      await call('PUT', sandbox(`/faults/${MERCHANT_CODE}`), { create: { respond: 'UNKNOWN' } });
      await call('PUT', sandbox(`/faults/${MERCHANT_CODE}/orders/EXEMPT-1`), { create: { delayMs: 1 } });
      assert.equal((await h.client.createVa()).body.platRespCode, 'UNKNOWN', 'the merchant rule applies to every order');
      assert.equal((await h.client.createVa({ orderNum: 'EXEMPT-1' })).body.platRespCode, 'SUCCESS', "the order's rule wins");
      const listed = await call('GET', sandbox('/faults'));
      assert.ok(listed.body.faults.some((f: any) => f.merchantCode === MERCHANT_CODE && f.orderNum === null));
      assert.equal((await call('DELETE', sandbox(`/faults/${MERCHANT_CODE}`))).status, 200);
      assert.equal((await call('DELETE', sandbox(`/faults/${MERCHANT_CODE}`))).status, 404);
      assert.equal((await h.client.createVa()).body.platRespCode, 'SUCCESS');
      for (const bad of [{ notifications: { duplicate: 'yes' } }, { create: { respond: 'ERROR' } }, { create: { delayMs: 999_999_999 } }, { other: 1 }]) {
        const refused = await call('PUT', sandbox(`/faults/${MERCHANT_CODE}`), bad);
        assert.equal(refused.status, 400, JSON.stringify(bad));
      }
    });

    test('a cross-site page cannot drive the sandbox: body-less form POSTs and no-cors fetches are refused, nothing changes', async () => {
      const created = await h.client.createVa();
      const order = created.body.platOrderNum!;
      const clockBefore = (await call('GET', sandbox('/clock'))).body.clock.offsetMinutes;
      const crossSite: Record<string, string>[] = [
        // An HTML form with no fields on another site: Content-Length 0, the form content type.
        { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site', 'content-type': 'application/x-www-form-urlencoded' },
        // fetch(url, { method: 'POST', mode: 'no-cors' }) from a sibling port (same site, other origin).
        { origin: 'http://127.0.0.1:1', 'sec-fetch-site': 'same-site' },
        // An older browser without Sec-Fetch-*: the Origin alone decides.
        { origin: 'http://evil.example', 'content-type': 'text/plain' },
      ];
      for (const headers of crossSite) {
        for (const path of [`/orders/${order}/pay`, `/orders/${order}/expire`, `/orders/${order}/fail`, '/clock/advance', `/faults/${MERCHANT_CODE}`]) {
          const method = path.startsWith('/faults') ? 'DELETE' : 'POST';
          const response = await fetch(sandbox(path), { method, headers, body: '' });
          assert.equal(response.status, 403, `${method} ${path} ${JSON.stringify(headers)}`);
          const body = (await response.json()) as Record<string, string>;
          assert.equal(body.platRespCode, 'FAIL');
          assert.match(body.platRespMessage!, /^Origin: /);
        }
      }
      assert.equal((await call('GET', sandbox(`/orders/${order}`))).body.order.status, 'PENDING', 'the order did not change');
      assert.equal((await call('GET', sandbox('/clock'))).body.clock.offsetMinutes, clockBefore, 'the clock did not move');

      // The control: the same request from the gateway's own origin, and from a tool without browser headers.
      const sameOrigin = await fetch(sandbox(`/orders/${order}/fail`), { method: 'POST', headers: { 'sec-fetch-site': 'same-origin', origin: new URL(h.url).origin } });
      assert.equal(sameOrigin.status, 200);
      const tool = await h.client.createVa();
      assert.equal((await call('POST', sandbox(`/orders/${tool.body.platOrderNum}/expire`))).status, 200);
    });

    test('the delivery log filters follow the protocol field rules', async () => {
      for (const [query, field] of [['orderNum=a%20b', 'orderNum'], ['merchantCode=ABC', 'merchantCode'], [`platOrderNum=${'x'.repeat(65)}`, 'platOrderNum'], ['orderNum=', 'orderNum']]) {
        const refused = await call('GET', sandbox(`/deliveries?${query}`));
        assert.equal(refused.status, 400, query);
        assert.match(refused.body.platRespMessage, new RegExp(`^${field}: `), query);
      }
      assert.equal((await call('GET', sandbox(`/deliveries?merchantCode=${MERCHANT_CODE}&orderNum=ORDER-1&limit=5`))).status, 200);
    });

    test('sandbox routes take JSON or no body', async () => {
      const created = await h.client.createVa();
      const response = await fetch(sandbox(`/orders/${created.body.platOrderNum}/pay`), { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'pay' });
      assert.equal(response.status, 415);
    });
  });
}

describe('outside sandbox mode', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', { sandbox: false });
  });
  after(() => h.stop());

  test('no sandbox route exists', async () => {
    for (const [method, path] of [
      ['POST', '/sandbox/orders/X/pay'],
      ['POST', '/sandbox/orders/X/expire'],
      ['POST', '/sandbox/orders/X/fail'],
      ['POST', '/sandbox/clock/advance'],
      ['GET', '/sandbox/deliveries'],
      ['POST', '/sandbox/deliveries/X/resend'],
      ['PUT', `/sandbox/faults/${MERCHANT_CODE}`],
    ]) {
      const answer = await call(method!, `${h.url}${path}`, method === 'GET' ? undefined : {});
      assert.equal(answer.status, 404, `${method} ${path}`);
      assert.equal(answer.body.platRespCode, 'NOTEXIST');
    }
  });

  test('the in-process simulations exist only on a sandbox gateway, in the type and on the object', async () => {
    const production: Gateway = createGateway({ platformPrivateKey: platformKeys().privateKey, logger: false, notifications: { worker: false }, database: { kind: 'sqlite', file: ':memory:' } });
    const sandbox: SandboxGateway = createGateway({ platformPrivateKey: platformKeys().privateKey, logger: false, notifications: { worker: false }, database: { kind: 'sqlite', file: ':memory:' }, sandbox: true });
    try {
      for (const member of ['pay', 'expire', 'fail', 'chooseMethod', 'clock']) {
        assert.ok(!(member in production), `${member} is not on a production-mode gateway`);
        assert.ok(member in sandbox, `${member} is on a sandbox gateway`);
      }
      assert.equal(production.sandbox, false);
      // @ts-expect-error: the Gateway type has no pay(); only SandboxGateway does.
      assert.equal(production.pay, undefined);
      assert.ok(!Object.keys(production).includes('pageDeps'), 'test seams stay off the object');
    } finally {
      await Promise.all([production.close(), sandbox.close()]);
    }
  });
});
