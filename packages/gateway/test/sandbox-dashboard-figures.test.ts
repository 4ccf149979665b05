/**
 * The dashboard front page's "Figures" card, on both engines: after orders are created, paid,
 * expired and failed and their notifications delivered (or refused), the card shows the gateway's
 * own counts in English and Indonesian, the page watches them (`GET /sandbox/dashboard/figures`),
 * and with `metrics: false` the card says metrics are off.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FIGURES_EN, FIGURES_ID } from '../src/sandbox/dashboard/figures-messages.ts';
import { ENGINES } from './support/engines.ts';
import { notifiedOf, startHarness, type Harness } from './support/harness.ts';
import { eventually, startReceiver, type Receiver } from './support/receiver.ts';

interface FrontPage {
  readonly text: string;
  /** Each figure's label and the value shown for it, in page order. */
  readonly figures: Record<string, string>;
  readonly fingerprint: string | undefined;
}

async function frontPage(url: string, headers: Record<string, string> = {}): Promise<FrontPage> {
  const response = await fetch(`${url}/sandbox/dashboard`, { headers });
  assert.equal(response.status, 200);
  const text = await response.text();
  const figures = Object.fromEntries([...text.matchAll(/<div><dt>([^<]+)<\/dt><dd>([^<]+)<\/dd><\/div>/g)].map((match) => [match[1]!, match[2]!]));
  const fingerprint = /data-watch="\/sandbox\/dashboard\/figures" data-fingerprint="([^"]*)"/.exec(text)?.[1];
  return { text, figures, fingerprint };
}

/** Reads the front page until `check` passes on it (the counters move as the worker delivers). */
async function frontPageWhen(url: string, check: (page: FrontPage) => boolean, headers: Record<string, string> = {}): Promise<FrontPage> {
  let last: FrontPage | undefined;
  try {
    return await eventually(async () => {
      last = await frontPage(url, headers);
      return check(last) ? last : undefined;
    }, 20_000, 'the figures');
  } catch (error) {
    throw new Error(`${(error as Error).message}; last figures: ${JSON.stringify(last?.figures)}`);
  }
}

const post = (url: string) =>
  fetch(url, { method: 'POST', redirect: 'manual', headers: { 'sec-fetch-site': 'same-origin', origin: new URL(url).origin, 'content-type': 'application/x-www-form-urlencoded' }, body: '' });

test('ages read as whole seconds, minutes or hours in both languages', () => {
  assert.deepEqual([0, 59.6, 119, 120, 7199, 7200].map(FIGURES_EN.age), ['0 s', '60 s', '119 s', '2 min', '119 min', '2 h']);
  assert.deepEqual([42, 600, 10_800].map(FIGURES_ID.age), ['42 detik', '10 menit', '3 jam']);
  assert.equal(FIGURES_ID.count(12_345), '12.345');
});

for (const engine of ENGINES) {
  describe(`dashboard figures on ${engine}`, () => {
    let h: Harness;
    let shop: Receiver;
    let down: Receiver;
    before(async () => {
      shop = await startReceiver();
      down = await startReceiver(() => ({ status: 500, body: 'restarting' }));
      h = await startHarness(engine, { timeScale: 0.001, ...notifiedOf(['paid', 'failed', 'expired']) });
    });
    after(async () => {
      await h.stop();
      await shop.close();
      await down.close();
    });
    const dash = (path: string) => `${h.url}/sandbox/dashboard${path}`;

    test('counts orders made, paid, expired and failed and their deliveries, in English and Indonesian', async () => {
      const created = [];
      for (let index = 0; index < 4; index++) created.push((await h.client.createVa({ notifyUrl: shop.url })).body as Record<string, string>);
      const [toPay, toExpire, toFail] = created;
      await h.gateway.pay(toPay!.platOrderNum!);
      assert.equal((await post(dash(`/orders/${toExpire!.platOrderNum}/expire`))).status, 303);
      assert.equal((await post(dash(`/orders/${toFail!.platOrderNum}/fail`))).status, 303);

      const en = FIGURES_EN;
      const settled = await frontPageWhen(h.url, (page) => page.figures[en.attemptsDelivered] === '3' && page.figures[en.queued] === '0');
      assert.ok(settled.text.includes(`<h2 id="figures-heading">Figures</h2>`));
      assert.deepEqual(settled.figures, {
        [en.ordersCreated]: '4',
        [en.paid]: '1',
        [en.expired]: '1',
        [en.failed]: '1',
        [en.queued]: '0',
        [en.oldestUndelivered]: 'none',
        [en.attemptsDelivered]: '3',
        [en.attemptsFailed]: '0',
        [en.givenUp]: '0',
        [en.shed]: '0',
      });
      assert.ok(settled.text.includes('<a href="/metrics">/metrics</a>'), 'the card links to every metric');
      // What the page watches is what its figures say now.
      const watched = (await (await fetch(dash('/figures'))).json()) as { fingerprint: string; figures: { paid: number } };
      assert.equal(settled.fingerprint, watched.fingerprint);
      assert.equal(watched.figures.paid, 1);
      const crossSite = await fetch(dash('/figures'), { headers: { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' } });
      assert.equal(crossSite.status, 403, 'another site reads no figures (the dashboard\'s rule)');

      const id = FIGURES_ID;
      const indonesian = await frontPage(h.url, { 'accept-language': 'id' });
      assert.ok(indonesian.text.includes(`<h2 id="figures-heading">Angka utama</h2>`));
      assert.equal(indonesian.figures[id.ordersCreated], '4');
      assert.equal(indonesian.figures[id.paid], '1');
      assert.equal(indonesian.figures[id.expired], '1');
      assert.equal(indonesian.figures[id.failed], '1');
      assert.equal(indonesian.figures[id.attemptsDelivered], '3');
      assert.equal(indonesian.figures[id.oldestUndelivered], 'tidak ada');
      assert.match(indonesian.text, /Semua metrik, dalam format Prometheus: <a href="\/metrics">/);

      // A shop that refuses: its notification waits in the queue, and the page's watch sees it.
      const refused = (await h.client.createVa({ notifyUrl: down.url })).body as Record<string, string>;
      await h.gateway.pay(refused.platOrderNum!);
      const waiting = await frontPageWhen(h.url, (page) => page.figures[en.queued] === '1' && page.figures[en.attemptsFailed] !== '0');
      assert.equal(waiting.figures[en.ordersCreated], '5');
      assert.equal(waiting.figures[en.paid], '2');
      assert.ok(Number(waiting.figures[en.attemptsFailed]) >= 1);
      assert.match(waiting.figures[en.oldestUndelivered]!, /^\d+ (s|min)$/);
      assert.notEqual(waiting.fingerprint, settled.fingerprint);
      const waitingId = await frontPageWhen(h.url, (page) => page.figures[id.queued] === '1', { 'accept-language': 'id' });
      assert.match(waitingId.figures[id.oldestUndelivered]!, /^\d+ (detik|menit)$/);
    });
  });
}

test('with metrics: false the card says metrics are off, and the front page watches nothing', async () => {
  const h = await startHarness('sqlite', { metrics: false });
  try {
    const page = await frontPage(h.url);
    assert.ok(page.text.includes(FIGURES_EN.off));
    assert.deepEqual(page.figures, {});
    assert.equal(page.fingerprint, undefined);
    assert.doesNotMatch(page.text, /data-watch/);
    assert.ok((await frontPage(h.url, { 'accept-language': 'id' })).text.includes(FIGURES_ID.off));
    assert.equal((await fetch(`${h.url}/sandbox/dashboard/figures`)).status, 404);
    assert.equal((await fetch(`${h.url}/metrics`)).status, 404);
  } finally {
    await h.stop();
  }
});
