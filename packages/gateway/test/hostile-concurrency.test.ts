/**
 * Concurrency over real HTTP, held by the database and not by luck (race.test.ts covers 20 calls on
 * one endpoint and the domain API): 50 creates with one orderNum across both endpoints, 200
 * distinct creates at once, and 60 customers and testers acting on one order through every route
 * that can move it. On every engine.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { METHOD_CODES } from '@tombolbayar/protocol';
import { uniqueOrderNum } from './support/client.ts';
import { ENGINES } from './support/engines.ts';
import { NOTIFICATION_KINDS } from '../src/index.ts';
import { notifiedOf, startHarness, MERCHANT_CODE, type Harness } from './support/harness.ts';
import { countRows } from './support/inspect.ts';
import { send } from './hostile-support.ts';

for (const engine of ENGINES) {
  describe(`concurrency on ${engine}`, () => {
    let h: Harness;
    before(async () => {
      // 200 creates race at once to prove uniqueness, not shedding (availability.test.ts): room for all.
      // Every final state notified: "one final state, one notification" whichever wins.
      h = await startHarness(engine, { ...notifiedOf(NOTIFICATION_KINDS), notifications: { worker: false }, maxInFlight: 1_000 });
    });
    after(() => h.stop());

    test('50 concurrent creates with one orderNum, on both endpoints: exactly one order', async () => {
      const orderNum = uniqueOrderNum('C50');
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => (i % 2 ? h.client.createVa({ orderNum }) : h.client.createLink({ orderNum, method: 'QRIS' }))),
      );
      const codes = answers.map((answer) => answer.body.platRespCode);
      assert.equal(codes.filter((code) => code === 'SUCCESS').length, 1, codes.join(','));
      for (const answer of answers) {
        assert.equal(answer.status, 200);
        assert.ok(h.verifies(answer.body), 'every answer is signed');
        if (answer.body.platRespCode !== 'SUCCESS') assert.equal(answer.body.platRespMessage, 'orderNum: is already used by another order of this merchant');
      }
      assert.equal(await countRows(h.store, 'orders', { merchant_code: MERCHANT_CODE, order_num: orderNum }), 1);
    });

    test('200 distinct creates at once: 200 orders, every platOrderNum and payment code unique', async () => {
      const before = await countRows(h.store, 'orders');
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          i % 4 === 0 ? h.client.createLink({ orderNum: uniqueOrderNum('C200') }) : h.client.createVa({ orderNum: uniqueOrderNum('C200'), method: METHOD_CODES[i % METHOD_CODES.length]! }),
        ),
      );
      const failures = answers.filter((answer) => answer.body.platRespCode !== 'SUCCESS').map((answer) => answer.body.platRespMessage);
      assert.deepEqual(failures, []);
      assert.equal(await countRows(h.store, 'orders'), before + 200);
      assert.equal(new Set(answers.map((answer) => answer.body.platOrderNum)).size, 200);
      const codes = answers.map((answer) => answer.body.vaNumber).filter(Boolean);
      assert.equal(codes.length, 150);
      assert.equal(new Set(codes).size, 150, 'no payment code handed out twice');
    });

    test('40 actors picking, giving back and paying one link: paid once, with a method and the code it had', async () => {
      const created = await h.client.createLink();
      const platOrderNum = created.body.platOrderNum!;
      const form = (path: string, body: string) =>
        send(h.url, path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' }, body });
      const picks = ['VA_BCA', 'QRIS', 'VA_BRI', 'EWALLET_OVO'] as const;
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) => {
          const method = picks[i % picks.length]!;
          switch (i % 4) {
            case 0: return form('/pay/method', `orderNum=${platOrderNum}&method=${method}`);
            case 1: return form('/pay/method/change', `orderNum=${platOrderNum}&method=${method}`);
            case 2: return form('/pay/sandbox', `orderNum=${platOrderNum}&action=pay`);
            default: return send(h.url, `/pay/status?orderNum=${platOrderNum}`);
          }
        }),
      );
      for (const answer of answers) assert.ok(answer.status < 500, `HTTP ${answer.status}: ${answer.text.slice(0, 200)}`);
      const order = (await h.gateway.findOrder(platOrderNum))!;
      if (order.status === 'PENDING') {
        // Every payment lost to a give-back; pay now with whatever stands.
        if (order.method === null) await h.gateway.chooseMethod(platOrderNum, 'VA_BCA');
        await h.gateway.pay(platOrderNum);
      }
      const paid = (await h.gateway.findOrder(platOrderNum))!;
      assert.equal(paid.status, 'PAID');
      assert.ok(paid.method !== null && paid.vaNumber !== null && paid.payFee !== null, 'never paid without a method, code and fee');
      assert.equal(await countRows(h.store, 'notifications', { plat_order_num: platOrderNum }), 1, 'one notification');
      const after = await form('/pay/method/change', `orderNum=${platOrderNum}&method=${paid.method}`);
      assert.match(String(after.headers.location), /notice=not-pending$/, 'a paid order keeps its method');
    });

    test('60 actors on one payment link (page buttons, method picks, sandbox API): one final state, one notification', async () => {
      const created = await h.client.createLink();
      const platOrderNum = created.body.platOrderNum!;
      const form = (path: string, body: string) =>
        send(h.url, path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' }, body });
      const json = (path: string, body = '{}') => send(h.url, path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      type Kind = 'pick' | 'page-action' | 'api-action' | 'read';
      const actions: Array<{ kind: Kind; to?: string; answer: Promise<Awaited<ReturnType<typeof send>>> }> = Array.from({ length: 60 }, (_, i) => {
        const method = METHOD_CODES[i % METHOD_CODES.length]!;
        const action = (['pay', 'expire', 'fail'] as const)[i % 3]!;
        const to = { pay: 'PAID', expire: 'EXPIRED', fail: 'FAILED' }[action];
        switch (i % 5) {
          case 0: return { kind: 'pick', answer: form('/pay/method', `orderNum=${platOrderNum}&method=${method}`) };
          case 1: return { kind: 'page-action', to, answer: form('/pay/sandbox', `orderNum=${platOrderNum}&action=${action}`) };
          case 2: return { kind: 'api-action', to, answer: json(`/sandbox/orders/${platOrderNum}/${action}`, action === 'pay' ? JSON.stringify({ method }) : '{}') };
          case 3: return { kind: 'api-action', to, answer: json(`/sandbox/orders/${platOrderNum}/${action}`) };
          default: return { kind: 'read', answer: send(h.url, `/pay/status?orderNum=${platOrderNum}`) };
        }
      });
      const settled = await Promise.all(actions.map(async (action) => ({ ...action, result: await action.answer })));
      for (const { result } of settled) assert.ok(result.status < 500, `HTTP ${result.status}: ${result.text.slice(0, 200)}`);
      const pageMoved = (result: { status: number; headers: Record<string, unknown> }) => result.status === 303 && !String(result.headers.location).includes('notice=');
      const stateWinners = settled.filter(({ kind, result }) => (kind === 'api-action' && result.status === 200) || (kind === 'page-action' && pageMoved(result)));
      const methodWinners = settled.filter(({ kind, result }) => kind === 'pick' && pageMoved(result));
      assert.equal(stateWinners.length, 1, 'exactly one action moved the order');
      assert.ok(methodWinners.length <= 1, 'at most one method pick stuck');
      const order = await h.gateway.findOrder(platOrderNum);
      assert.equal(order!.status, stateWinners[0]!.to, 'the order is in the state its one winner chose');
      assert.equal(await countRows(h.store, 'notifications', { plat_order_num: platOrderNum }), 1, 'one final state, one notification');
    });
  });
}
