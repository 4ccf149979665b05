/**
 * The router owns its body parsing: mounted after any common global parser it still creates
 * orders and verifies notifications; after a parser that leaves nothing usable, it says so.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MERCHANT_CODE } from './support/keys.ts';
import { startHarness, waitFor, type Parsers } from './support/harness.ts';

/** Parsers that leave /notify the bytes: none ran, none matched a form, or they kept the bytes. */
const USABLE: Parsers[] = ['none', 'json', 'text', 'raw', 'both-keeping-raw'];
/** Parsers that leave an object made of the bytes, and not the bytes. */
const OBJECT_ONLY: Parsers[] = ['urlencoded', 'urlencoded-extended', 'both'];

describe('mounted with and without global body parsers', () => {
  for (const parsers of OBJECT_ONLY) {
    test(`global parsers: ${parsers} -> links still made; the notification refused (body_consumed), saying how to keep the bytes`, async () => {
      const shop = await startHarness({ parsers, options: { statusRefreshMs: false } });
      try {
        const created = await shop.createLink({ item: 'kopi' });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        await shop.payAtGateway(created.body.orderNum);
        const rejected = await waitFor(() => shop.eventsNamed('notification.rejected')[0], 'the refusal');
        assert.deepEqual([rejected.reason, rejected.httpStatus], ['body_consumed', 500]);
        assert.match(rejected.message, /parsed by a body parser that ran before payButton\(\), and its raw bytes were not kept/);
        assert.match(rejected.message, /req\.rawBody = buf/);
        assert.equal(shop.fulfilled.length, 0);
        assert.equal((await shop.router.getOrder(created.body.orderNum))!.status, 'pending', 'left for the resend, once the app is fixed');
      } finally {
        await shop.close();
      }
    });
  }

  test('global express.json(): a JSON notification with a field sent twice is refused, never read as one of them', async () => {
    for (const [parsers, status, reason] of [['json', 500, 'body_consumed'], ['both-keeping-raw', 400, 'unreadable_body']] as const) {
      const shop = await startHarness({ parsers, options: { statusRefreshMs: false } });
      try {
        const answer = await fetch(`${shop.mountUrl}/notify`, {
          method: 'POST', headers: { 'content-type': 'application/json' },
          body: '{"orderNum":"PB1","orderNum":"PB2","platOrderNum":"P1","payMoney":"1000","code":"00","status":"SUCCESS","platSign":"AAAA"}',
        });
        assert.equal(answer.status, status, `${parsers}: ${await answer.text()}`);
        const [rejected] = shop.eventsNamed('notification.rejected');
        assert.equal(rejected!.reason, reason);
        if (reason === 'unreadable_body') assert.match(rejected!.message, /field orderNum appears more than once/);
      } finally {
        await shop.close();
      }
    }
  });

  for (const parsers of USABLE) {
    test(`global parsers: ${parsers} -> create, notification verified and acknowledged`, async () => {
      const shop = await startHarness({ parsers, options: { statusRefreshMs: false } });
      try {
        const created = await shop.createLink({ item: 'kopi' });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        await shop.payAtGateway(created.body.orderNum);
        const [delivery] = await waitFor(async () => {
          const list = await shop.gateway.deliveries.list({ orderNum: created.body.orderNum });
          return list[0]?.state === 'delivered' ? list : undefined;
        }, 'the notification acknowledged');
        assert.equal(delivery!.attemptCount, 1, 'acknowledged at the first attempt');
        assert.equal((await shop.status(created.body.orderNum, created.body.statusToken)).body.status, 'paid');
        assert.equal(shop.fulfilled.length, 1);
        const bad = await shop.post('/links', '{"item": "kopi",');
        assert.equal(bad.status, 400, 'broken JSON is still a 400 naming the body');
      } finally {
        await shop.close();
      }
    });
  }

  for (const parsers of ['json', 'text', 'raw'] as const) {
    test(`global parsers: ${parsers} (larger limit than ours) -> bodyLimitBytes still applies, 413 naming it`, async () => {
      const shop = await startHarness({ parsers, options: { bodyLimitBytes: 1024 } });
      try {
        const big = await shop.createLink({ item: 'kopi', note: 'x'.repeat(4_000) });
        assert.equal(big.status, 413, JSON.stringify(big.body));
        assert.equal(big.body.error.code, 'payload_too_large');
        assert.match(big.body.error.message, /larger than 1024 bytes/);
        // Chunked (no Content-Length): what the parser produced is measured instead.
        const body = JSON.stringify({ item: 'kopi', idempotencyKey: 'k'.repeat(20), note: 'x'.repeat(4_000) });
        const chunked = await fetch(`${shop.mountUrl}/links`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: shop.merchantUrl },
          body: new Blob([body]).stream(),
          duplex: 'half',
        } as RequestInit);
        assert.equal(chunked.status, 413);
        assert.equal(shop.eventsNamed('order.transition').length, 0, 'nothing was stored');
        assert.equal((await shop.createLink({ item: 'kopi' })).status, 201, 'a normal body still passes');
      } finally {
        await shop.close();
      }
    });
  }

  test('after a middleware that ate the body: the notification is refused with a message saying what to move', async () => {
    const shop = await startHarness({ parsers: 'stream-eater', options: { statusRefreshMs: false, mountPath: '/pay' } });
    try {
      const created = await shop.router.createPaymentLink({ quote: { payMoney: 10_000, productDetail: 'Kopi', name: 'Budi', email: 'b@example.com', phone: '0812345678' } });
      await shop.payAtGateway(created.orderNum);
      const rejected = await waitFor(() => shop.eventsNamed('notification.rejected')[0], 'the rejection');
      assert.equal(rejected.reason, 'body_consumed');
      assert.equal(rejected.httpStatus, 500);
      assert.match(rejected.message, /consumed by a body parser that ran before payButton\(\).*Mount payButton\(\) before global body parsers/);
      // The gateway records the attempt once the answer is back (after the router's event).
      const full = await waitFor(async () => {
        const [delivery] = await shop.gateway.deliveries.list({ orderNum: created.orderNum });
        const found = delivery && (await shop.gateway.deliveries.get(delivery.id));
        return found && found.attempts.length > 0 ? found : undefined;
      }, 'the attempt on the gateway\'s record');
      assert.equal(full.attempts[0]!.httpStatus, 500, 'not acknowledged: the gateway will resend');
      assert.equal((await shop.router.getOrder(created.orderNum))!.status, 'pending');
      const browser = await shop.post('/links', { item: 'kopi', idempotencyKey: 'k'.repeat(20) });
      assert.equal(browser.status, 400);
      assert.match(browser.body.error.message, /consumed by another body parser/);
    } finally {
      await shop.close();
    }
  });

  test('Content-Encoding: UTF-8 (a charset named as the encoding): a global parser first answers 415 before the router; kept off the mount path, the router acknowledges', async () => {
    for (const [parsers, expected] of [['urlencoded', 415], ['both', 415], ['urlencoded-off-mount', 200], ['none', 200]] as const) {
      // env 'test': Express's final handler answers the parser's 415 without printing its stack.
      const shop = await startHarness({ parsers, options: { statusRefreshMs: false }, configureApp: (app) => app.set('env', 'test') });
      try {
        await fetch(`${shop.gatewayUrl}/sandbox/faults/${MERCHANT_CODE}`, {
          method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ notifications: { delayMs: 200_000 } }),
        });
        const created = await shop.createLink({ item: 'kopi' });
        await shop.payAtGateway(created.body.orderNum);
        const [delivery] = await shop.gateway.deliveries.list({ orderNum: created.body.orderNum });
        const answer = await fetch(`${shop.mountUrl}/notify`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'UTF-8' },
          body: new URLSearchParams(delivery!.fields as Record<string, string>).toString(),
        });
        assert.equal(answer.status, expected, `${parsers}: ${await answer.text()}`);
        const seen = shop.eventsNamed('notification.accepted').length + shop.eventsNamed('notification.rejected').length;
        assert.equal(seen, expected === 200 ? 1 : 0, `${parsers}: the router ${expected === 200 ? 'answered' : 'never saw it'}`);
      } finally {
        await shop.close();
      }
    }
  });
});
