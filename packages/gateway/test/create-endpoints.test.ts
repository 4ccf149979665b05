/**
 * Both create endpoints over real HTTP with signed requests, for every one of the 14 methods, on
 * every engine: what comes back, that it is signed, and that the order is really stored.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createPaymentLinkResponseSchema,
  createVaResponseSchema,
  METHOD_CODES,
  METHODS,
  parseWith,
  resolveMethod,
} from '@tombolbayar/protocol';
import { computeFee, DEFAULT_FEES, hasValidCrc, parseTlv, VA_PREFIXES } from '../src/internal.ts';
import { ENGINES } from './support/engines.ts';
import { startHarness, type Harness } from './support/harness.ts';

function assertPaymentCode(method: (typeof METHOD_CODES)[number], code: string, total: number): void {
  const kind = METHODS[method].kind;
  if (kind === 'virtual-account') {
    assert.match(code, /^\d{16}$/);
    assert.ok(code.startsWith(VA_PREFIXES[method]!), `${code} starts with the ${method} prefix`);
  } else if (kind === 'retail') {
    assert.match(code, /^8873\d{10}$/);
  } else if (kind === 'e-wallet') {
    assert.match(code, new RegExp(`^${METHODS[method].alias}\\d+$`));
    assert.equal(code.length, 16);
  } else {
    assert.ok(hasValidCrc(code), 'the QRIS payload carries a valid CRC');
    const tlv = parseTlv(code);
    assert.equal(tlv.get('00'), '01');
    assert.equal(tlv.get('53'), '360');
    assert.equal(tlv.get('54'), String(total));
    assert.equal(tlv.get('58'), 'ID');
  }
}

for (const engine of ENGINES) {
  describe(`create endpoints on ${engine}`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(engine);
    });
    after(() => h.stop());

    for (const method of METHOD_CODES) {
      test(`POST /gateway/pay with ${method} creates a signed VA order`, async () => {
        const payMoney = '250000';
        const answer = await h.client.createVa({ method, payMoney, productDetail: 'Sepatu Lari' });
        assert.equal(answer.status, 200);
        const parsed = parseWith(createVaResponseSchema, answer.body);
        assert.ok(parsed.ok, JSON.stringify(answer.body));
        const body = answer.body;
        assert.equal(body.platRespCode, 'SUCCESS');
        assert.equal(body.method, method);
        assert.equal(body.payMoney, payMoney);
        assert.equal(body.productDetail, 'Sepatu Lari');
        assert.equal(body.payFee, String(computeFee(DEFAULT_FEES[method], 250000)));
        assertPaymentCode(method, body.vaNumber!, 250000 + Number(body.payFee));
        assert.ok(h.verifies(body), 'platSign verifies');

        const stored = await h.gateway.findOrder(body.platOrderNum!);
        assert.equal(stored?.status, 'PENDING');
        assert.equal(stored?.orderNum, body.orderNum);
        assert.equal(stored?.vaNumber, body.vaNumber);
      });

      test(`POST /gateway/prepaidOrder with ${method} and with its alias ${METHODS[method].alias}`, async () => {
        for (const sent of [method, METHODS[method].alias]) {
          const answer = await h.client.createLink({ method: sent, payMoney: '99000' });
          const parsed = parseWith(createPaymentLinkResponseSchema, answer.body);
          assert.ok(parsed.ok, JSON.stringify(answer.body));
          assert.equal(answer.body.platRespCode, 'SUCCESS');
          assert.equal(answer.body.payMoney, '99000');
          assert.equal(answer.body.url, `${h.url}/pay?orderNum=${answer.body.platOrderNum}`);
          assert.ok(h.verifies(answer.body));
          const stored = await h.gateway.findOrder(answer.body.platOrderNum!);
          assert.equal(stored?.method, resolveMethod(sent));
          assert.equal(stored?.kind, 'link');
          assertPaymentCode(method, stored!.vaNumber!, 99000 + stored!.payFee!);
        }
      });
    }

    test('a payment link without a method (null, absent or "") has none until the customer picks one', async () => {
      for (const method of [null, undefined, '']) {
        const answer = await h.client.createLink({ method });
        assert.equal(answer.body.platRespCode, 'SUCCESS', JSON.stringify(answer.body));
        const stored = await h.gateway.findOrder(answer.body.platOrderNum!);
        assert.equal(stored?.method, null);
        assert.equal(stored?.vaNumber, null);
        assert.equal(stored?.payFee, null);
      }
    });

    test('the payment link opens the hosted page', async () => {
      const answer = await h.client.createLink({ method: 'VA_BNI' });
      const page = await fetch(answer.body.url!);
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    });

    test('redirectUrl is optional', async () => {
      const answer = await h.client.createLink({ redirectUrl: undefined });
      assert.equal(answer.body.platRespCode, 'SUCCESS');
      assert.equal((await h.gateway.findOrder(answer.body.platOrderNum!))?.redirectUrl, null);
    });

    test('platOrderNum and vaNumber are unique across many orders', async () => {
      const answers = await Promise.all(Array.from({ length: 30 }, () => h.client.createVa({ method: 'VA_BRI' })));
      const plat = new Set(answers.map((a) => a.body.platOrderNum));
      const va = new Set(answers.map((a) => a.body.vaNumber));
      assert.equal(plat.size, 30);
      assert.equal(va.size, 30);
      for (const value of plat) assert.match(value!, /^[0-9A-Za-z]{24}$/);
    });

    test('changing any field of a response breaks its platSign', async () => {
      const answer = await h.client.createVa({ method: 'QRIS' });
      assert.ok(h.verifies(answer.body));
      for (const field of Object.keys(answer.body).filter((key) => key !== 'platSign')) {
        const tampered = { ...answer.body, [field]: `${answer.body[field]}x` };
        assert.equal(h.verifies(tampered), false, `changing ${field} breaks the signature`);
      }
      assert.equal(h.verifies({ ...answer.body, extra: 'added' }), false, 'adding a field breaks it');
      const { vaNumber: _dropped, ...without } = answer.body;
      assert.equal(h.verifies(without), false, 'removing a field breaks it');
    });
  });
}
