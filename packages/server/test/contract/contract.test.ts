/**
 * One contract, every framework: the same tests against a real server of each adapter in
 * `SERVERS` (Express, Hono, Fastify, ...), on SQLite and, with DATABASE_URL, on PostgreSQL. What a
 * merchant relies on whichever framework carries the plug-in: links priced by `quote()`, one
 * order per idempotency key, refusals that name the field, notifications verified over the bytes
 * the gateway sent, confirmation by query, `onPaid` once, the status and return pages, the script,
 * the body limits and the origin checks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENGINES } from '../support/engines.ts';
import { newKey, waitFor } from '../support/harness.ts';
import { MERCHANT_CODE, strangerKeys } from '../support/keys.ts';
import { asPlatform, paidFields, signedBy } from '../support/notifications.ts';
import { SERVERS } from './servers.ts';
import { ALLOWED_ORIGIN, partitionOf, startSandbox, startShop, type ContractShop, type SandboxGateway } from './shop.ts';

let sandbox: SandboxGateway;
before(async () => {
  sandbox = await startSandbox();
});
after(async () => {
  await sandbox.close();
});

const form = (fields: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

for (const engine of ENGINES) {
  for (const server of SERVERS) {
    describe(`contract: ${server.name} on ${engine.name}`, () => {
      let shop: ContractShop;
      before(async () => {
        shop = await startShop(server, engine, sandbox);
      });
      after(async () => {
        await shop?.close();
      });

      /** A fresh link for `kopi`, with what the tests need of it. */
      async function order() {
        const created = await shop.createLink();
        assert.equal(created.status, 201, created.text);
        const { orderNum, statusToken } = created.body;
        return { orderNum, statusToken, platOrderNum: await sandbox.platOrderNumOf(orderNum) };
      }

      test('a link priced by quote(), one order per idempotency key, refusals that name the field', async () => {
        const key = newKey();
        const created = await shop.createLink({ item: 'teh', idempotencyKey: key });
        assert.equal(created.status, 201, created.text);
        assert.deepEqual(Object.keys(created.body).sort(), ['expiresAt', 'orderNum', 'status', 'statusToken', 'url']);
        assert.equal(created.headers.get('cache-control'), 'no-store');
        assert.equal(new URL(created.body.url).origin, new URL(sandbox.url).origin);
        const atGateway = await sandbox.gateway.findOrderByOrderNum(MERCHANT_CODE, created.body.orderNum);
        assert.equal(atGateway?.payMoney, 50_000, 'the price comes from quote()');

        // Counted by the socket's address as the framework gives it; X-Forwarded-For is not trusted by default.
        assert.match(created.headers.get('ratelimit-policy') ?? '', new RegExp(`pk=:${partitionOf('127.0.0.1')}:$`));
        const forwarded = await shop.createLink({}, { 'x-forwarded-for': '203.0.113.9' });
        assert.match(forwarded.headers.get('ratelimit-policy') ?? '', new RegExp(`pk=:${partitionOf('127.0.0.1')}:$`));

        const replay = await shop.createLink({ item: 'teh', idempotencyKey: key });
        assert.deepEqual([replay.status, replay.body], [201, created.body]);
        assert.equal(replay.headers.get('idempotent-replayed'), 'true');
        const otherBody = await shop.createLink({ item: 'kopi', idempotencyKey: key });
        assert.deepEqual([otherBody.status, otherBody.body.error.code], [422, 'idempotency_mismatch']);

        const priced = await shop.createLink({ payMoney: '1' });
        assert.deepEqual([priced.status, priced.body.error.issues], [400, [{ field: 'payMoney', message: 'is not allowed' }]]);
        const method = await shop.post('/va', { item: 'kopi', method: 'BITCOIN', idempotencyKey: newKey() });
        assert.equal(method.status, 400);
        assert.deepEqual(method.body.error.issues.map((issue: { field: string }) => issue.field), ['method']);
        const unicorn = await shop.createLink({ item: 'unicorn' });
        assert.deepEqual([unicorn.status, unicorn.body], [422, { error: { code: 'not_for_sale', message: 'unicorn is not for sale.', retryable: false } }]);
        const wrongVerb = await shop.request('/links');
        assert.deepEqual([wrongVerb.status, wrongVerb.headers.get('allow')], [405, 'POST']);

        const va = await shop.post('/va', { item: 'kopi', method: 'VA_MANDIRI', idempotencyKey: newKey() });
        assert.equal(va.status, 201, va.text);
        assert.deepEqual([va.body.method, va.body.payMoney], ['VA_MANDIRI', '150000']);
        assert.match(va.body.vaNumber, /^\d+$/);
      });

      test("the gateway's signed notification pays the order once; a forged one is refused; status and return pages", async () => {
        const created = await order();
        const forged = await shop.request('/notify', form(signedBy(paidFields(created), strangerKeys().privateKey)));
        assert.equal(forged.status, 401);
        assert.match(forged.text, /^REJECTED bad_signature: /);
        const pending = await shop.status(created.orderNum, created.statusToken);
        assert.deepEqual([pending.status, pending.body.status, pending.body.payMoney], [200, 'pending', '150000']);
        assert.equal(pending.headers.get('cache-control'), 'no-store');
        assert.equal((await shop.status(created.orderNum, 'not-the-token')).status, 404);

        await sandbox.pay(created.orderNum);
        // Delivered: the gateway's notification reached the shop, was verified and answered SUCCESS.
        const delivery = await waitFor(async () => {
          const [latest] = await sandbox.gateway.deliveries.list({ orderNum: created.orderNum });
          return latest?.state === 'delivered' ? latest : undefined;
        }, 'the notification delivered');
        await waitFor(() => shop.paid.some((paid) => paid.orderNum === created.orderNum), 'onPaid');
        const paid = await shop.status(created.orderNum, created.statusToken);
        assert.deepEqual([paid.body.status, paid.body.method], ['paid', 'VA_BCA']);

        // The same notification again (the gateway resends): acknowledged, onPaid not run again.
        const again = await shop.request('/notify', form(delivery.fields as Record<string, string>));
        assert.deepEqual([again.status, again.text], [200, 'SUCCESS']);
        assert.equal(shop.paid.filter((paidOrder) => paidOrder.orderNum === created.orderNum).length, 1);

        const redirectUrl = (await sandbox.gateway.findOrderByOrderNum(MERCHANT_CODE, created.orderNum))!.redirectUrl!;
        assert.ok(redirectUrl.startsWith(`${shop.mountUrl}/return?`), redirectUrl);
        const page = await fetch(redirectUrl);
        assert.equal(page.status, 200);
        assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
        assert.match(page.headers.get('content-security-policy') ?? '', /^default-src 'none'; script-src 'self'/);
        assert.match(await page.text(), new RegExp(`data-order="${created.orderNum}"`));
        const onward = await fetch(redirectUrl.replace('/return?', '/return/continue?'), { redirect: 'manual' });
        assert.equal(onward.status, 303);
        assert.equal(onward.headers.get('location'), `${shop.baseUrl}/?tombolbayar_order=${created.orderNum}`);
        const stranger = await shop.request(`/return?order=${created.orderNum}&rt=wrong`);
        assert.equal(stranger.status, 404);
      });

      test('a notification held back: the status poll confirms by query, the late one changes nothing', async () => {
        const created = await order();
        await sandbox.holdNotifications(created.orderNum);
        await sandbox.pay(created.orderNum);
        await waitFor(async () => (await shop.status(created.orderNum, created.statusToken)).body.status === 'paid', 'paid by query');
        await waitFor(() => shop.paid.some((paid) => paid.orderNum === created.orderNum), 'onPaid');
        const [held] = await sandbox.gateway.deliveries.list({ orderNum: created.orderNum });
        // As the family's gateways may send it: a character set named as the Content-Encoding.
        const lateForm = form(held!.fields as Record<string, string>);
        const sendLate = () => shop.request('/notify', { ...lateForm, headers: { ...(lateForm.headers as Record<string, string>), 'content-encoding': 'UTF-8' } });
        // onPaid has been called but its completion may not be recorded yet: then the answer is
        // the RETRY a gateway sends again later, as the family's does. Sent again until answered.
        let late = await sendLate();
        await waitFor(async () => {
          if (late.status === 200) return true;
          assert.deepEqual([late.status, late.text], [503, 'RETRY: onPaid is running for this order; send this notification again later']);
          late = await sendLate();
          return late.status === 200;
        }, 'the late notification acknowledged');
        assert.deepEqual([late.status, late.text], [200, 'SUCCESS']);
        assert.equal(shop.paid.filter((paid) => paid.orderNum === created.orderNum).length, 1, 'onPaid ran once');
      });

      test('hostile bodies: over the limit, broken JSON, Latin-1 bytes', async () => {
        const huge = await shop.createLink({ filler: 'x'.repeat(20_000) });
        assert.deepEqual([huge.status, huge.body.error.code], [413, 'payload_too_large']);
        assert.match(huge.body.error.message, /larger than 8192 bytes/);
        const hugeNotify = await shop.request('/notify', form({ pad: 'x'.repeat(40_000) }));
        assert.equal(hugeNotify.status, 413);
        assert.match(hugeNotify.text, /16384/);
        // No Content-Length: counted while read, and still answered.
        const chunked = await shop.request('/links', {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: shop.baseUrl },
          body: new Blob([JSON.stringify({ item: 'kopi', idempotencyKey: newKey(), filler: 'x'.repeat(50_000) })]).stream(),
          duplex: 'half',
        } as RequestInit);
        assert.deepEqual([chunked.status, chunked.body?.error.code], [413, 'payload_too_large'], chunked.text);
        const broken = await shop.post('/links', '{"item":');
        assert.deepEqual([broken.status, broken.body.error.issues], [400, [{ field: 'body', message: 'is not valid JSON' }]]);
        const latin1 = await shop.post('/links', Uint8Array.from(Buffer.from(JSON.stringify({ item: 'Müller', idempotencyKey: newKey() }), 'latin1')));
        // Read as UTF-8 by the core, whatever the framework: never a 500, never guessed as Latin-1.
        assert.deepEqual([latin1.status, latin1.body.error.message], [422, 'M\uFFFDller is not for sale.']);

        // The family's gateways may write Latin-1: the signature is checked over the bytes sent.
        const created = await order();
        await sandbox.holdNotifications(created.orderNum);
        await sandbox.pay(created.orderNum);
        const signed = asPlatform(paidFields(created, { name: 'Müller', payMoney: '150000.00', payFee: '4000.00' }));
        const answer = await shop.request('/notify', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: Uint8Array.from(Buffer.from(JSON.stringify(signed), 'latin1')),
        });
        assert.deepEqual([answer.status, answer.text], [200, 'SUCCESS']);
        await waitFor(() => shop.paid.some((paid) => paid.orderNum === created.orderNum), 'onPaid');
      });

      test('origins: a cross-site page is refused (and may read only that), an allowed origin gets CORS; the script is served cached', async () => {
        const evil = await shop.createLink({}, { origin: 'https://evil.example' });
        assert.deepEqual([evil.status, evil.body.error.code], [403, 'origin_not_allowed']);
        // That page may read its refusal (so an element there tells the customer plainly), nothing more.
        assert.equal(evil.headers.get('access-control-allow-origin'), 'https://evil.example');
        assert.equal(evil.headers.get('access-control-allow-credentials'), null);
        assert.equal(evil.headers.get('access-control-expose-headers'), null);
        assert.doesNotMatch(evil.text, new RegExp(ALLOWED_ORIGIN.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'the allowed origins are not told to it');
        const preflight = await shop.request('/links', {
          method: 'OPTIONS',
          headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
        });
        assert.equal(preflight.status, 204);
        assert.equal(preflight.headers.get('access-control-allow-origin'), ALLOWED_ORIGIN);
        assert.match(preflight.headers.get('vary') ?? '', /Origin/);
        const allowed = await shop.createLink({}, { origin: ALLOWED_ORIGIN });
        assert.equal(allowed.status, 201, allowed.text);
        assert.equal(allowed.headers.get('access-control-allow-origin'), ALLOWED_ORIGIN);

        const script = await shop.request('/pay-button.js');
        assert.equal(script.status, 200);
        assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
        assert.equal(script.headers.get('cache-control'), 'no-cache', 'revalidated on every load');
        assert.match(script.text, /pay-button/);
        const etag = script.headers.get('etag')!;
        assert.equal((await shop.request('/pay-button.js', { headers: { 'if-none-match': etag } })).status, 304);
      });
    });
  }
}
