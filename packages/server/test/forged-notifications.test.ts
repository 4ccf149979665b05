/**
 * The forged-notification attack, reproduced end to end against the real gateway, on SQLite and
 * PostgreSQL, and against a production-mode gateway (no sandbox routes; https, public callbacks;
 * its DNS answers nothing, so nothing it delivers leaves the machine). The family's signature
 * signs each 117-byte chunk on its own, so any block the platform key made over 117 bytes an
 * attacker chose is a valid `platSign` for a notification of those bytes. These tests build such
 * forgeries the way an attacker would (from the gateway's unknown-route answer, which must now be
 * closed; from another merchant's create answer, which starts with that merchant's `email`) and,
 * for whatever oracle exists tomorrow, sign forgeries with the platform key itself. None of them
 * may move an order or call `onPaid`: the plug-in asks the gateway and applies its answer. The
 * genuine payment still ends in `onPaid` exactly once.
 */
import assert from 'node:assert/strict';
import { after, afterEach, describe, test } from 'node:test';
import { formatDateTime } from '@tombolbayar/protocol';
import { canonicalString, sign, verify } from '@tombolbayar/protocol/node';
import { countingStore, ENGINES, type EngineFixture } from './support/engines.ts';
import { MERCHANT_CODE, platformKeys, strangerKeys } from './support/keys.ts';
import { PRODUCTION_SHOP_URL, startHarness, waitFor, type Harness } from './support/harness.ts';

const CHUNK_BYTES = 117;
const BLOCK_BYTES = 128;

let shop: Harness | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await shop?.close();
  shop = undefined;
});
after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** Where the attacks run: each engine against a sandbox gateway, and SQLite against a production one. */
interface Setup {
  readonly label: string;
  readonly engine: EngineFixture;
  readonly production: boolean;
}

const SETUPS: readonly Setup[] = [
  ...ENGINES.map((engine) => ({ label: engine.name, engine, production: false })),
  { label: 'production-mode gateway, sqlite', engine: ENGINES[0]!, production: true },
];

async function startOn(setup: Setup, options: { readonly options?: Record<string, unknown> } = {}): Promise<Harness> {
  const { option, cleanup } = await setup.engine.fresh();
  cleanups.push(cleanup);
  return startHarness({ production: setup.production, database: option, options: { statusRefreshMs: false, ...options.options } });
}

/** The gateway's notification for a paid order, as it would deliver it (made and signed by the gateway). */
async function genuineNotification(harness: Harness, orderNum: string): Promise<Record<string, string>> {
  const delivery = await waitFor(async () => (await harness.gateway.deliveries.list({ orderNum }))[0], 'the gateway queued its notification');
  return delivery.fields as Record<string, string>;
}

interface Victim {
  readonly orderNum: string;
  readonly statusToken: string;
  readonly platOrderNum: string;
  readonly payMoney: string;
}

/** A customer's own payment link: everything a notification needs is known to them. */
async function victimOrder(harness: Harness): Promise<Victim> {
  const created = await harness.createLink({ item: 'kopi' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return { orderNum: created.body.orderNum, statusToken: created.body.statusToken, platOrderNum: await harness.platOrderNumOf(created.body.orderNum), payMoney: '150000' };
}

/**
 * A "paid" notification whose canonical string is exactly one chunk (117 bytes), padded in `msg`.
 * The values are chosen to also read as the start of an e-mail domain (for the e-mail oracle).
 */
function oneChunkForgery(victim: Victim, overrides: Record<string, string> = {}): Record<string, string> {
  const base = { code: '00', email: 'a@b.co', name: 'Budi', orderNum: victim.orderNum, payMoney: victim.payMoney, platOrderNum: victim.platOrderNum, status: 'SUCCESS', ...overrides };
  const length = Buffer.byteLength(canonicalString(base), 'utf8');
  assert.ok(length < CHUNK_BYTES, `the forgery's fields take ${length} bytes`);
  return { ...base, msg: 'x'.repeat(CHUNK_BYTES - length) };
}

/** Block `index` of a signature, as a signature of its own. */
function block(platSign: string, index: number): string {
  return Buffer.from(platSign, 'base64').subarray(index * BLOCK_BYTES, (index + 1) * BLOCK_BYTES).toString('base64');
}

async function notify(harness: Harness, fields: Record<string, string>): Promise<{ status: number; text: string }> {
  const response = await fetch(`${harness.mountUrl}/notify`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, text: await response.text() };
}

async function assertUntouched(harness: Harness, victim: Victim): Promise<void> {
  assert.equal((await harness.status(victim.orderNum, victim.statusToken)).body.status, 'pending');
  assert.equal((await harness.router.getOrder(victim.orderNum))?.status, 'pending');
  assert.equal(harness.onPaidCalls.length, 0, 'onPaid never called');
  assert.equal(harness.eventsNamed('notification.accepted').length, 0);
}

for (const setup of SETUPS) {
  describe(`forged notifications never pay (${setup.label})`, () => {
    test('the unknown-route oracle is closed: the 404 repeats nothing of the path, and a platform-signed forgery pays nothing', async () => {
      shop = await startOn(setup);
      const victim = await victimOrder(shop);
      const forged = oneChunkForgery(victim);
      const text = canonicalString(forged);
      // Whatever the path and its alignment to a 117-byte chunk, the gateway answers the same fixed body.
      const bodies: Array<Record<string, string>> = [];
      for (const path of [encodeURI(text), `${'f'.repeat(58)}${encodeURI(text)}`, `${'f'.repeat(116)}${encodeURI(text)}`, 'nothing-here']) {
        const answer = await fetch(`${shop.gatewayUrl}/${path}`);
        assert.equal(answer.status, 404);
        bodies.push((await answer.json()) as Record<string, string>);
      }
      for (const body of bodies.slice(1)) assert.deepEqual(body, bodies[0], 'the 404 depends on nothing the caller chose');
      const signed = canonicalString(bodies[0]!);
      assert.ok(!signed.includes(victim.orderNum) && !signed.includes('fff'), 'nothing of the path is in what the gateway signed');
      const blocks = Buffer.from(bodies[0]!.platSign ?? '', 'base64').length / BLOCK_BYTES;
      for (let index = 0; index < blocks; index++) {
        assert.equal(verify(forged, block(bodies[0]!.platSign!, index), platformKeys().publicKey), false, `block ${index} signs nothing usable`);
      }
      // Tomorrow's oracle, whatever it is, gives exactly this: one platform-signed block over the
      // attacker's 117 bytes. It must not pay either.
      const forgery = sign(forged, platformKeys().privateKey);
      assert.equal(Buffer.from(forgery, 'base64').length, BLOCK_BYTES, 'one block, as an oracle would give');
      const answer = await notify(shop, { ...forged, platSign: forgery });
      assert.equal(answer.status, 409, answer.text);
      assert.match(answer.text, /^REJECTED not_confirmed/);
      await assertUntouched(shop, victim);
    });

    test('the other-merchant oracle: a block of a create answer signed over a chosen e-mail is a valid platSign, and pays nothing', async () => {
      shop = await startOn(setup);
      const attacker = { merchantCode: 'MERCH-ATTACKER', keys: strangerKeys() };
      await shop.gateway.registerMerchant({ merchantCode: attacker.merchantCode, publicKey: attacker.keys.publicKey, name: 'Attacker' });
      // The forged canonical string must sit inside an e-mail domain: no "_" in platOrderNum.
      let victim = await victimOrder(shop);
      for (let i = 0; i < 20 && victim.platOrderNum.includes('_'); i++) victim = await victimOrder(shop);
      assert.ok(!victim.platOrderNum.includes('_'));
      const forged = oneChunkForgery(victim);
      const email = `${canonicalString(forged)}.com`;
      const request = {
        merchantCode: attacker.merchantCode, orderNum: `ATK${Date.now()}`, payMoney: '10000', productDetail: 'Oracle', name: 'Eve',
        email, phone: '081234567890', notifyUrl: 'https://attacker.example/notify', expiryPeriod: '60', dateTime: formatDateTime(Date.now()),
      };
      const response = await fetch(`${shop.gatewayUrl}/gateway/prepaidOrder`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...request, sign: sign(request, attacker.keys.privateKey) }),
      });
      const answer = (await response.json()) as Record<string, string>;
      assert.equal(answer.platRespCode, 'SUCCESS', JSON.stringify(answer));
      // The answer's canonical string starts with the e-mail: its first block signs the forgery.
      const forgery = block(answer.platSign!, 0);
      assert.equal(verify(forged, forgery, platformKeys().publicKey), true, 'the oracle is real: a genuine platform signature over forged bytes');
      const refused = await notify(shop, { ...forged, platSign: forgery });
      assert.equal(refused.status, 409, refused.text);
      assert.match(refused.text, /^REJECTED not_confirmed/);
      await assertUntouched(shop, victim);
    });

    test('a notification genuinely signed with the platform key for an order the gateway has pending never pays', async () => {
      shop = await startOn(setup);
      const victim = await victimOrder(shop);
      const forged = oneChunkForgery(victim);
      const answer = await notify(shop, { ...forged, platSign: sign(forged, platformKeys().privateKey) });
      assert.equal(answer.status, 409, answer.text);
      const [event] = shop.eventsNamed('notification.rejected');
      assert.deepEqual([event!.reason, event!.orderNum], ['not_confirmed', victim.orderNum]);
      await assertUntouched(shop, victim);
    });

    test('a forged EXPIRED, then a forged paid with another method: neither is applied', async () => {
      shop = await startOn(setup);
      const victim = await victimOrder(shop);
      const expired = oneChunkForgery(victim, { code: '02', status: 'EXPIRED' });
      assert.equal((await notify(shop, { ...expired, platSign: sign(expired, platformKeys().privateKey) })).status, 409);
      const paid = { ...oneChunkForgery(victim), method: 'QRIS' };
      assert.equal((await notify(shop, { ...paid, platSign: sign(paid, platformKeys().privateKey) })).status, 409);
      await assertUntouched(shop, victim);
    });

    test('concurrent forgeries: none acknowledged, the order unpaid, exactly one query for all of them', async () => {
      const store = await countingStore(setup.engine);
      cleanups.push(store.cleanup);
      shop = await startHarness({ production: setup.production, rewriter: true, database: store.option, options: { statusRefreshMs: false } });
      const victim = await victimOrder(shop);
      const forged = oneChunkForgery(victim);
      const signedForgery = { ...forged, platSign: sign(forged, platformKeys().privateKey) };
      // The first to ask is held at the gateway's door until every forgery has looked its order
      // up (after which it runs to confirmOrder without waiting on anything): all are in flight.
      let release: () => void = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      shop.rewriter!.hold = (path) => (path === '/gateway/query' ? released : undefined);
      const readsBefore = store.ordersRead();
      const N = 20;
      try {
        const answering = Promise.all(Array.from({ length: N }, () => notify(shop!, signedForgery)));
        await waitFor(() => store.ordersRead() - readsBefore >= N, `the ${N} forgeries' order lookups`);
        release();
        const answers = await answering;
        assert.ok(answers.every((answer) => answer.status === 409), answers.map((answer) => answer.status).join(','));
      } finally {
        release();
      }
      const queries = shop.eventsNamed('gateway.call').filter((call) => call.operation === 'query' && call.orderNum === victim.orderNum);
      assert.equal(queries.length, 1, `${queries.length} queries for ${N} concurrent forgeries`);
      assert.equal(shop.rewriter!.paths.filter((path) => path === '/gateway/query').length, 1, 'one query reached the gateway');
      assert.equal(shop.eventsNamed('notification.rejected').length, N, 'each forgery named in an event');
      await assertUntouched(shop, victim);
    });

    test('an order still creating is not settled by a notification it cannot check', { skip: setup.production && 'needs the sandbox\'s create delay' }, async () => {
      shop = await startOn(setup);
      await fetch(`${shop.gatewayUrl}/sandbox/faults/${MERCHANT_CODE}`, {
        method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ create: { delayMs: 1_500 } }),
      });
      const pending = shop.createLink({ item: 'kopi' });
      const orderNum = await waitFor(() => shop!.eventsNamed('order.transition')[0]?.orderNum, 'the order stored in creating');
      assert.equal((await shop.router.getOrder(orderNum))?.status, 'creating');
      const forged = oneChunkForgery({ orderNum, statusToken: '', platOrderNum: 'ForgedPlatOrderNum000000', payMoney: '150000' });
      const answer = await notify(shop, { ...forged, platSign: sign(forged, platformKeys().privateKey) });
      assert.equal(answer.status, 409, answer.text);
      const created = await pending;
      assert.equal(created.status, 201);
      assert.equal((await shop.router.getOrder(orderNum))?.status, 'pending');
      assert.equal(shop.onPaidCalls.length, 0);
    });

    test('the genuine payment still pays, onPaid exactly once', async () => {
      shop = await startOn(setup);
      const victim = await victimOrder(shop);
      await shop.payAtGateway(victim.orderNum);
      if (setup.production) {
        // The gateway's delivery to https://shop.example is never dialled (its DNS answers
        // nothing): the test hands the shop the gateway's own notification, as the network would.
        const genuine = await genuineNotification(shop, victim.orderNum);
        await waitFor(() => shop!.dnsLookups.includes(new URL(PRODUCTION_SHOP_URL).hostname), 'the delivery tried, and stopped at DNS');
        const answer = await notify(shop, genuine);
        assert.equal(answer.text, 'SUCCESS');
        assert.deepEqual(shop.dnsLookups.filter((name) => name !== new URL(PRODUCTION_SHOP_URL).hostname), [], 'no other name looked up');
      } else {
        await waitFor(() => shop!.fulfilled.length === 1, 'onPaid from the genuine notification');
        const delivery = await waitFor(async () => {
          const [found] = await shop!.gateway.deliveries.list({ orderNum: victim.orderNum });
          return found?.state === 'delivered' ? found : undefined;
        }, 'the notification acknowledged');
        assert.equal(delivery.state, 'delivered');
      }
      assert.equal((await shop.status(victim.orderNum, victim.statusToken)).body.status, 'paid');
      assert.equal(shop.fulfilled.length, 1);
      assert.equal(shop.onPaidCalls.length, 1);
    });
  });
}

describe('when the gateway cannot confirm', () => {
  test('unreachable: 503 so the gateway resends, an event names it, and the order waits', async () => {
    shop = await startHarness({ proxy: true, options: { statusRefreshMs: false } });
    const victim = await victimOrder(shop);
    await shop.proxy!.down();
    const forged = oneChunkForgery(victim);
    const answer = await notify(shop, { ...forged, platSign: sign(forged, platformKeys().privateKey) });
    assert.equal(answer.status, 503, answer.text);
    assert.match(answer.text, /^RETRY: /);
    assert.deepEqual(shop.eventsNamed('notification.rejected').map((event) => event.reason), ['confirmation_unavailable']);
    assert.equal((await shop.router.getOrder(victim.orderNum))?.status, 'pending');
    assert.equal(shop.onPaidCalls.length, 0);
  });
});
