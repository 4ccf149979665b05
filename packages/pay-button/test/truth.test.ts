/**
 * What `<pay-button>` tells the customer (issue 20), at 390 px and 1280 px, in English and
 * Indonesian: plain words with no code in them, "nothing was charged" when paying failed, the
 * element's language carried to the hosted page, the order watched while the popup is open, a
 * status nobody can confirm shown as "not confirmed yet" (never "cancelled") and corrected later,
 * and the outcome brought into view and focused after a full-page return.
 */
import { expect, fixture, html } from '@open-wc/testing';
import { nothing } from 'lit';
import { setViewport } from '@web/test-runner-commands';
import '../src/define.ts';
import type { PayButton } from '../src/index.ts';
import { saveAttempt } from '../src/internal/attempt-store.ts';
import { OpenSpy, popupUrl, Recorder, release, setStatus, stats, uniqueItem, waitUntil } from './helpers.ts';

type Lang = 'en' | 'id';

/** A button for `item` inside a `lang` wrapper, as a shop page in that language has it. */
async function button(item: string, lang: Lang, method: string | null = null, above = 0): Promise<{ el: PayButton; rec: Recorder }> {
  const wrapper = await fixture<HTMLElement>(
    html`<div lang=${lang}>
      <div style="height:${above}px"></div>
      <pay-button endpoint="/api" item=${item} method=${method ?? nothing} poll-interval="20" poll-timeout="300"></pay-button>
    </div>`,
  );
  const el = wrapper.querySelector('pay-button') as PayButton;
  await el.updateComplete;
  return { el, rec: new Recorder(el) };
}

const click = (el: PayButton) => el.shadowRoot!.querySelector('button')!.click();
const status = (el: PayButton) => el.shadowRoot!.querySelector('[part=status]')!.textContent!;
/** Nothing a customer should read: an error code, an errno, an HTTP status, a stack. */
const TECHNICAL = /_|\bE[A-Z]{4,}\b|\b[45]\d\d\b|network|gateway|\bat\s+\S+:\d+/i;

const WORDS = {
  en: {
    down: 'The payment service cannot be reached. Nothing was charged. Try again.',
    slow: 'Still connecting to the payment service…',
    expired: 'The time to pay has run out. Nothing was charged.',
    unconfirmed: 'Payment not confirmed yet.',
    // payMoney 150.000 and the BCA fee 4.000: what the gateway accepts for this VA.
    transfer: 'Transfer Rp 154.000 to BCA virtual account 8808',
    instructions: 'Show payment instructions',
    paid: 'Paid. Thank you!',
    notStarted: 'Payment not started. Nothing was charged.',
    paidWith: 'Already paid with order PBOTHERTAB. Do not pay this one.',
    paidTwice: 'Paid. This was also paid with order PBOTHERTAB: the shop will refund one payment.',
  },
  id: {
    down: 'Layanan pembayaran tidak dapat dihubungi. Tidak ada dana yang ditarik. Silakan coba lagi.',
    slow: 'Masih menghubungkan ke layanan pembayaran…',
    expired: 'Batas waktu pembayaran sudah lewat. Tidak ada dana yang ditarik.',
    unconfirmed: 'Pembayaran belum terkonfirmasi.',
    transfer: 'Transfer Rp 154.000 ke virtual account BCA 8808',
    instructions: 'Lihat petunjuk pembayaran',
    paid: 'Pembayaran berhasil. Terima kasih!',
    notStarted: 'Pembayaran belum dimulai. Tidak ada dana yang ditarik.',
    paidWith: 'Sudah dibayar dengan pesanan PBOTHERTAB. Jangan bayar yang ini.',
    paidTwice: 'Pembayaran berhasil. Ini juga sudah dibayar dengan pesanan PBOTHERTAB: toko akan mengembalikan salah satu pembayaran.',
  },
};

for (const width of [390, 1280]) {
  for (const lang of ['en', 'id'] as const) {
    const words = WORDS[lang];

    describe(`<pay-button> tells the truth at ${width} px in ${lang}`, () => {
      let spy: OpenSpy;
      before(() => setViewport({ width, height: 800 }));
      beforeEach(() => {
        spy = new OpenSpy();
        sessionStorage.clear();
      });
      afterEach(() => spy.restore());

      /**
       * A click, the payment page open, and the plug-in answering `answer` for the pending order
       * (as the customer acts there), until the open popup's watch has asked `asks` times.
       */
      async function openWith(lang: Lang, answer: Parameters<typeof setStatus>[2], asks: number) {
        const { el, rec } = await button(uniqueItem(), lang);
        click(el);
        const { detail } = await rec.next('pay-open');
        await popupUrl(spy.last);
        await setStatus(detail.orderNum, 'pending', answer);
        const seen = (await stats(el.item!)).gets;
        await waitUntil(async () => (await stats(el.item!)).gets >= seen + asks, 'the open popup is not watched');
        return { el, rec, detail };
      }

      it('passes its locale to the hosted page', async () => {
        const { el, rec } = await button(uniqueItem(), lang);
        click(el);
        const open = await rec.next('pay-open');
        expect(new URL(open.detail.url).searchParams.get('lang')).to.equal(lang);
        expect((await popupUrl(spy.last)).searchParams.get('lang')).to.equal(lang);
      });

      it('a gateway that is down: plain words, nothing charged, a retry offered, the code only in the event', async () => {
        const item = uniqueItem('down');
        const { el, rec } = await button(item, lang);
        click(el);
        const end = await rec.settle();
        expect(end.detail).to.include({ code: 'gateway_unavailable', retryable: true });
        await el.updateComplete;
        expect(status(el)).to.equal(words.down);
        expect(status(el)).not.to.match(TECHNICAL);
        // The retry: the same button, not disabled, asks again.
        expect(el.shadowRoot!.querySelector('button')!.getAttribute('aria-disabled')).to.equal('false');
        click(el);
        await waitUntil(async () => (await stats(item)).links === 2, 'the retry was not sent');
      });

      it('a gateway that hangs: progress first, then the plain failure, before the browser would give up', async () => {
        const item = uniqueItem('hold');
        const { el, rec } = await button(item, lang);
        click(el);
        await waitUntil(() => status(el) === words.slow, `no progress word (${status(el)})`, { timeout: 6000 });
        await waitUntil(() => rec.terminal.length > 0, 'no end', { timeout: 12000 });
        expect(rec.terminal[0]!.detail).to.include({ code: 'network', retryable: true });
        await el.updateComplete;
        expect(status(el)).to.equal(words.down);
        await release(item);
      });

      it('an order that expires while the popup is open shows here, without a return', async () => {
        const { el, rec } = await button(uniqueItem(), lang);
        click(el);
        const open = await rec.next('pay-open');
        await popupUrl(spy.last);
        await setStatus(open.detail.orderNum, 'expired');
        const end = await rec.settle();
        expect(end.type).to.equal('pay-failure');
        expect(el.state).to.equal('expired');
        await el.updateComplete;
        expect(status(el)).to.equal(words.expired);
        await waitUntil(() => spy.last.closed, 'the popup stayed open');
      });

      it('a payment made while the popup is open shows here, and focus is on the button', async () => {
        const { el, rec } = await button(uniqueItem(), lang);
        click(el);
        const open = await rec.next('pay-open');
        await popupUrl(spy.last);
        await setStatus(open.detail.orderNum, 'paid');
        expect((await rec.settle()).type).to.equal('pay-success');
        await el.updateComplete;
        expect(status(el)).to.equal(words.paid);
        expect(document.activeElement).to.equal(el);
      });

      it('a VA chosen, then the gateway unreachable when the popup closes: pending, not confirmed yet (never cancelled), corrected when it answers', async () => {
        const { el, rec } = await button(uniqueItem(), lang);
        click(el);
        const { detail } = await rec.next('pay-open');
        await popupUrl(spy.last);
        // The customer picks BCA on the hosted page: the element sees it while the popup is open.
        await setStatus(detail.orderNum, 'pending', { method: 'VA_BCA' });
        const seen = (await stats(el.item!)).gets;
        await waitUntil(async () => (await stats(el.item!)).gets >= seen + 2, 'the open popup is not watched');
        // The gateway goes away: the plug-in no longer knows the method and cannot confirm anything.
        await setStatus(detail.orderNum, 'pending', { method: null, confirmed: false });
        spy.last.close();
        const end = await rec.settle();
        expect(end.type).to.equal('pay-pending');
        expect(rec.states).not.to.include('cancelled');
        await el.updateComplete;
        expect(status(el)).to.include(words.unconfirmed);
        expect(status(el)).not.to.match(TECHNICAL);
        // The gateway is back: the instructions, with the number, the exact amount and the deadline.
        await setStatus(detail.orderNum, 'pending', { method: 'VA_BCA' });
        await waitUntil(() => status(el).includes(words.transfer), `not corrected: ${status(el)}`, { timeout: 10000 });
        expect(el.shadowRoot!.querySelector('[part=label]')!.textContent!.trim()).to.equal(words.instructions);
        await setStatus(detail.orderNum, 'paid');
        await rec.next('pay-success');
      });

      it('a VA chosen, then the shop too busy to answer when the popup closes: pending, and watched on until paid', async () => {
        const { el, rec, detail } = await openWith(lang, { method: 'VA_BCA' }, 2);
        // The shop sheds load: every status request after the close is a retryable 503.
        await setStatus(detail.orderNum, 'pending', { method: 'VA_BCA', shed: true });
        spy.last.close();
        expect((await rec.settle()).type).to.equal('pay-pending');
        await el.updateComplete;
        expect(status(el)).not.to.match(TECHNICAL);
        // The shop answers again, and the payment has landed: the customer is told, unprompted.
        const asked = (await stats(el.item!)).gets;
        await setStatus(detail.orderNum, 'paid');
        await rec.next('pay-success');
        expect((await stats(el.item!)).gets).to.be.greaterThan(asked);
        await el.updateComplete;
        expect(status(el)).to.include(words.paid);
      });

      it('a VA chosen and the cart then paid by another order (another tab): not to pay this one; paid anyway: the refund to expect', async () => {
        const { el, rec, detail } = await openWith(lang, { method: 'VA_BCA' }, 2);
        spy.last.close();
        expect((await rec.settle()).type).to.equal('pay-pending');
        await waitUntil(() => status(el).includes(words.transfer), `no instructions: ${status(el)}`);
        // Another tab paid the cart with its own number: the instructions give way to "do not pay".
        await setStatus(detail.orderNum, 'pending', { method: 'VA_BCA', paidWith: 'PBOTHERTAB' });
        const cancel = await rec.next('pay-cancel');
        expect(cancel.detail).to.deep.equal({ orderNum: detail.orderNum, reason: 'paid-elsewhere', paidWith: 'PBOTHERTAB' });
        await el.updateComplete;
        expect(el.state).to.equal('cancelled');
        expect(status(el)).to.equal(words.paidWith);
        // The customer had noted the number and pays it anyway: paid twice, said with the refund.
        await setStatus(detail.orderNum, 'paid', { method: 'VA_BCA', duplicateOf: 'PBOTHERTAB' });
        await rec.next('pay-success');
        await el.updateComplete;
        expect(status(el)).to.equal(words.paidTwice);
      });

      // Once, not at every width and language: it waits up to 15 s for the watch to ask again.
      if (width === 1280 && lang === 'en') {
        it('another order paid the cart while the popup was open, and the shop was busy when it closed: pending at first, then "already paid"; an expiry after that says nothing', async function () {
          // The watch asks at most every 15 s by now: seeing it ask once more after the expiry can take that long.
          this.timeout(45_000);
          const { el, rec, detail } = await openWith(lang, { method: 'VA_BCA', paidWith: 'PBOTHERTAB' }, 2);
          await setStatus(detail.orderNum, 'pending', { method: 'VA_BCA', paidWith: 'PBOTHERTAB', shed: true });
          spy.last.close();
          expect((await rec.settle()).type).to.equal('pay-pending');
          await setStatus(detail.orderNum, 'pending', { method: 'VA_BCA', paidWith: 'PBOTHERTAB' });
          expect((await rec.next('pay-cancel')).detail).to.deep.equal({ orderNum: detail.orderNum, reason: 'paid-elsewhere', paidWith: 'PBOTHERTAB' });
          await el.updateComplete;
          expect(status(el)).to.equal(words.paidWith);
          // The order the customer was told not to pay expires: nothing more is said about it.
          await setStatus(detail.orderNum, 'expired');
          const asked = (await stats(el.item!)).gets;
          await waitUntil(async () => (await stats(el.item!)).gets > asked, 'the expired order was not asked about', { timeout: 30_000 });
          await el.updateComplete;
          expect(rec.names).not.to.include('pay-failure');
          expect(status(el)).to.equal(words.paidWith);
        });
      }

      it('not confirmed once, then an answer from what the plug-in stored (no method, not asked again): still not confirmed yet, never cancelled', async () => {
        const { el, rec, detail } = await openWith(lang, { method: null, confirmed: false }, 1);
        // Between two questions to the gateway, the plug-in answers from its store: confirmed, no method.
        await setStatus(detail.orderNum, 'pending', { method: null });
        spy.last.close();
        expect((await rec.settle()).type).to.equal('pay-pending');
        expect(rec.states).not.to.include('cancelled');
        await el.updateComplete;
        expect(status(el)).to.include(words.unconfirmed);
      });

      it('no method chosen and the gateway down: not confirmed yet; the gateway back and saying no method: not started, and Pay reopens the same order', async () => {
        const { el, rec, detail } = await openWith(lang, { method: null, confirmed: false }, 1);
        spy.last.close();
        expect((await rec.settle()).type).to.equal('pay-pending');
        await el.updateComplete;
        expect(status(el)).to.include(words.unconfirmed);
        // The gateway is back and the plug-in asked it: no method was chosen. A way on: pay again.
        await setStatus(detail.orderNum, 'pending', { method: null, confirmed: true });
        await rec.next('pay-cancel');
        await el.updateComplete;
        expect(el.state).to.equal('cancelled');
        expect(status(el)).to.equal(words.notStarted);
        expect(el.shadowRoot!.querySelector('[part=label]')!.textContent!.trim()).not.to.equal(words.instructions);
        rec.events.length = 0;
        click(el);
        expect((await rec.next('pay-open')).detail.orderNum).to.equal(detail.orderNum);
        el.reset();
      });

      it('after a full-page return the outcome is in view and focused', async () => {
        const item = uniqueItem();
        const res = await fetch('/api/links', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ item, method: 'VA_BCA', idempotencyKey: crypto.randomUUID() }),
        });
        const order = (await res.json()) as { orderNum: string; statusToken: string };
        saveAttempt({ orderNum: order.orderNum, statusToken: order.statusToken, endpoint: '/api', item });
        await setStatus(order.orderNum, 'paid');
        history.replaceState(null, '', `${location.pathname}${location.search}${location.search ? '&' : '?'}tombolbayar_order=${order.orderNum}`);
        scrollTo(0, 0);
        const { el } = await button(item, lang, 'VA_BCA', 1600);
        // The pick-up may end before a recorder could be attached: wait on the state.
        await waitUntil(() => el.state === 'paid', `state ${el.state}`);
        await el.updateComplete;
        expect(location.search).not.to.include('tombolbayar_order');
        const box = el.shadowRoot!.querySelector('[part=status]')!.getBoundingClientRect();
        expect(box.top).to.be.at.least(0);
        expect(box.bottom).to.be.at.most(innerHeight);
        expect(document.activeElement).to.equal(el);
        expect(status(el)).to.equal(words.paid);
      });
    });
  }
}
