/**
 * <pay-button> against the contract double: every state and event of the popup flow, its failures,
 * and the one-terminal-event rule.
 */
import { expect, fixture, html } from '@open-wc/testing';
import { nothing } from 'lit';
import '../src/define.ts';
import type { PayButton } from '../src/index.ts';
import { handovers } from '../src/internal/attempt-store.ts';
import { OpenSpy, popupUrl, Recorder, release, setStatus, stats, uniqueItem, waitUntil } from './helpers.ts';

/** A button for `item`; `method` is null for one that lets the customer choose on the payment page. */
async function button(item: string, method: string | null = 'VA_BCA'): Promise<{ el: PayButton; rec: Recorder }> {
  const el = await fixture<PayButton>(
    html`<pay-button endpoint="/api" item=${item} method=${method ?? nothing} poll-interval="20" poll-timeout="300">Bayar</pay-button>`,
  );
  return { el, rec: new Recorder(el) };
}

/**
 * What a reload leaves of the page: only sessionStorage. The element goes, and so does the
 * in-memory handover a re-render would have used; the next element finds the stored attempt.
 */
function reload(el: PayButton): void {
  el.remove();
  handovers.clear();
}


const click = (el: PayButton) => el.shadowRoot!.querySelector('button')!.click();

/** Sends the popup to the plug-in's return route, as the gateway does after the payment page. */
function returnFrom(popup: Window, orderNum: string): void {
  popup.location.href = `/api/return?orderNum=${encodeURIComponent(orderNum)}`;
}

describe('<pay-button> popup flow', () => {
  let spy: OpenSpy;
  beforeEach(() => (spy = new OpenSpy()));
  afterEach(() => spy.restore());

  it("forwards the page's <meta name=traceparent> with POST /links, and no traceparent without one", async () => {
    const meta = Object.assign(document.createElement('meta'), { name: 'traceparent', content: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });
    document.head.append(meta);
    try {
      const traced = await button(uniqueItem('traced'));
      click(traced.el);
      await traced.rec.next('pay-open');
      traced.el.reset();
      meta.remove();
      const plain = await button(uniqueItem('untraced'));
      click(plain.el);
      await plain.rec.next('pay-open');
      plain.el.reset();
      expect((await stats(traced.el.item!)).traceparents).to.deep.equal([meta.content]);
      expect((await stats(plain.el.item!)).traceparents).to.deep.equal([null]);
    } finally {
      meta.remove();
    }
  });

  /** The customer clicks, the payment page opens in the popup, and the customer closes it: the attempt's `pay-open`. */
  async function openThenClose(el: PayButton, rec: Recorder): Promise<CustomEvent<{ orderNum: string; url: string }>> {
    click(el);
    const open = await rec.next('pay-open');
    await popupUrl(spy.last);
    spy.last.close();
    return open as CustomEvent<{ orderNum: string; url: string }>;
  }

  it('opens the popup inside the click, navigates it once /links answers, and ends paid', async () => {
    const item = uniqueItem('autopay');
    const { el, rec } = await button(item);
    el.fields = { quantity: 2, idempotencyKey: 'must-not-override-the-key' };

    click(el);
    // Synchronously, before any network answer: the placeholder is open and the element is loading.
    expect(spy.windows).to.have.length(1);
    expect(spy.last.location.href).to.equal('about:blank');
    // Readable on a phone while the payment page loads: a viewport, the element's language and words.
    expect(spy.last.document.querySelector('meta[name=viewport]')!.getAttribute('content')).to.equal('width=device-width,initial-scale=1');
    expect(spy.last.document.body.textContent).to.equal('Opening the payment page…');
    expect(el.state).to.equal('loading');
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('button')!.getAttribute('aria-busy')).to.equal('true');
    expect(el.shadowRoot!.querySelector('[part=spinner]')).to.exist;

    const open = await rec.next('pay-open');
    expect(open.detail).to.include({ mode: 'popup' });
    expect(open.detail.url).to.match(/\/api\/__gateway\?orderNum=/);
    const success = await rec.settle();

    expect(success.type).to.equal('pay-success');
    expect(success.detail).to.include({ orderNum: open.detail.orderNum, status: 'paid', payMoney: '150000' });
    expect(rec.names).to.deep.equal(['pay-click', 'pay-open', 'pay-success']);
    expect(rec.states).to.deep.equal(['idle', 'loading', 'open', 'checking', 'paid']);
    expect(el.matches(':state(paid)')).to.be.true;
    expect(el.shadowRoot!.querySelector('[part=status]')!.textContent).to.equal('Paid. Thank you!');

    const s = await stats(item);
    expect(s.links).to.equal(1);
    expect(s.gets).to.be.greaterThan(0);
    // The status token travels in the Tombolbayar-Status-Token header only, never in a URL.
    expect(s.tokensInUrl).to.equal(0);
    const body = s.bodies[0]!;
    expect(body).to.include({ item, method: 'VA_BCA', quantity: 2 });
    expect(body.idempotencyKey).to.match(/^[0-9a-f]{32}$/);
    expect(body).not.to.have.property('returnTo');
  });

  it('a status answer about another orderNum than the one asked about is refused (bad_response), never an outcome', async () => {
    const item = uniqueItem('autopay-liar');
    const { el, rec } = await button(item);
    click(el);
    const end = await rec.settle();
    expect(end.type).to.equal('pay-error');
    expect(end.detail).to.include({ code: 'bad_response' });
    expect(rec.of('pay-success')).to.be.undefined;
    expect(el.state).to.equal('error');
  });

  it('every event bubbles and is composed, and pay-click is cancelable', async () => {
    const item = uniqueItem('autopay');
    const { el, rec } = await button(item);
    click(el);
    await rec.settle();
    for (const e of rec.events) expect([e.type, e.bubbles, e.composed]).to.deep.equal([e.type, true, true]);
    expect(rec.of('pay-click')!.cancelable).to.be.true;
    expect(rec.of('pay-click')!.detail).to.deep.equal({ item, method: 'VA_BCA' });
  });

  it('a pending order after the return is polled with backoff, then ends pending', async () => {
    const item = uniqueItem();
    const { el, rec } = await button(item);
    click(el);
    const { detail } = await rec.next('pay-open');
    returnFrom(spy.last, detail.orderNum);
    const end = await rec.settle();
    expect(end.type).to.equal('pay-pending');
    expect(end.detail).to.include({ orderNum: detail.orderNum, status: 'pending' });
    expect(rec.states).to.deep.equal(['idle', 'loading', 'open', 'checking', 'pending']);
    expect((await stats(item)).gets).to.be.greaterThan(1);
  });

  it('keeps polling while pending and ends paid when the payment lands', async () => {
    const item = uniqueItem();
    const { el, rec } = await button(item);
    el.pollTimeout = 8000;
    click(el);
    const { detail } = await rec.next('pay-open');
    returnFrom(spy.last, detail.orderNum);
    await waitUntil(async () => el.state === 'checking' && (await stats(item)).gets > 1, 'never polled twice');
    await setStatus(detail.orderNum, 'paid');
    expect((await rec.settle()).type).to.equal('pay-success');
  });

  for (const status of ['expired', 'failed'] as const) {
    it(`an ${status} order ends in pay-failure and state ${status}`, async () => {
      const { el, rec } = await button(uniqueItem());
      click(el);
      const { detail } = await rec.next('pay-open');
      await setStatus(detail.orderNum, status);
      returnFrom(spy.last, detail.orderNum);
      const end = await rec.settle();
      expect(end.type).to.equal('pay-failure');
      expect(end.detail.status).to.equal(status);
      expect(el.state).to.equal(status);
      expect(el.matches(`:state(${status})`)).to.be.true;
    });
  }

  it('closing the popup once the payment page opened is not a cancellation: pay-pending, then pay-success when the payment lands', async () => {
    const item = uniqueItem();
    const { el, rec } = await button(item);
    const { detail } = await openThenClose(el, rec);
    const pending = await rec.settle();
    expect(pending.type).to.equal('pay-pending');
    expect(pending.detail).to.include({ orderNum: detail.orderNum, status: 'pending', method: 'VA_BCA' });
    expect(el.state).to.equal('pending');
    expect(rec.states).to.deep.equal(['idle', 'loading', 'open', 'checking', 'pending']);
    // The customer pays at the ATM; the page is still open and keeps watching.
    await setStatus(detail.orderNum, 'paid');
    await rec.next('pay-success');
    expect(el.state).to.equal('paid');
    expect(rec.names).to.deep.equal(['pay-click', 'pay-open', 'pay-pending', 'pay-success']);
    expect((await stats(item)).links).to.equal(1);
  });

  it('a click while the order is pending reopens the same order, never a second one', async () => {
    const item = uniqueItem();
    const { el, rec } = await button(item);
    click(el);
    const first = await rec.next('pay-open');
    await popupUrl(spy.last);
    spy.last.close();
    expect((await rec.settle()).type).to.equal('pay-pending');
    rec.events.length = 0;
    click(el);
    const again = await rec.next('pay-open');
    expect(again.detail.orderNum).to.equal(first.detail.orderNum);
    const s = await stats(item);
    expect(s.orders).to.have.length(1);
    expect(s.bodies[1]!.idempotencyKey).to.equal(s.bodies[0]!.idempotencyKey);
    await setStatus(first.detail.orderNum, 'paid');
    returnFrom(spy.last, first.detail.orderNum);
    expect((await rec.settle()).type).to.equal('pay-success');
  });

  it('replaced mid-attempt (a framework re-render): the new element takes the attempt over; one order, one popup, and the detached one says nothing', async () => {
    const item = uniqueItem();
    const old = await button(item);
    click(old.el);
    const { detail } = await old.rec.next('pay-open');
    const popup = await popupUrl(spy.last).then(() => spy.last);
    old.el.remove();
    const { el, rec } = await button(item);
    await waitUntil(() => el.state === 'open', `the new element did not take over (state ${el.state})`);
    click(el);
    expect(spy.windows).to.have.length(1);
    // It asked again with the same key: the same order, replayed.
    const s = await stats(item);
    expect(s.orders).to.have.length(1);
    expect(new Set(s.bodies.map((b) => b.idempotencyKey)).size).to.equal(1);
    await setStatus(detail.orderNum, 'paid');
    returnFrom(popup, detail.orderNum);
    const end = await rec.settle();
    expect(end.type).to.equal('pay-success');
    expect(end.detail).to.include({ orderNum: detail.orderNum });
    expect(old.rec.names).to.deep.equal(['pay-click', 'pay-open']);
  });

  it('replaced while /links is in flight, then a click: the same idempotency key, so one order for the cart', async () => {
    const item = uniqueItem('hold');
    const old = await button(item);
    click(old.el);
    await waitUntil(async () => (await stats(item)).links === 1);
    old.el.remove();
    const { el, rec } = await button(item);
    click(el);
    await release(item);
    const open = await rec.next('pay-open');
    const s = await stats(item);
    expect(s.orders).to.have.length(1);
    expect(new Set(s.bodies.map((b) => b.idempotencyKey)).size).to.equal(1);
    expect(spy.windows).to.have.length(1);
    await setStatus(open.detail.orderNum, 'paid');
    returnFrom(spy.last, open.detail.orderNum);
    expect((await rec.settle()).type).to.equal('pay-success');
    expect(old.rec.terminal).to.have.length(0);
  });

  it('closing the popup before a method was chosen cancels (nothing to pay without the page); the next click reopens the same order', async () => {
    const item = uniqueItem();
    const { el, rec } = await button(item, null);
    click(el);
    const first = await rec.next('pay-open');
    await popupUrl(spy.last);
    spy.last.close();
    const end = await rec.settle();
    expect(end.type).to.equal('pay-cancel');
    expect(end.detail).to.deep.equal({ orderNum: first.detail.orderNum, reason: 'closed' });
    expect(el.state).to.equal('cancelled');
    expect(rec.states).to.deep.equal(['idle', 'loading', 'open', 'checking', 'cancelled']);
    rec.events.length = 0;
    click(el);
    const again = await rec.next('pay-open');
    expect(again.detail.orderNum).to.equal(first.detail.orderNum);
    const s = await stats(item);
    expect(s.orders).to.have.length(1);
    expect(s.bodies[1]!.idempotencyKey).to.equal(s.bodies[0]!.idempotencyKey);
    el.reset();
  });

  it('back to the shop without paying (the return page, no method chosen): "not started" at once, not after the minute-long check', async () => {
    const item = uniqueItem();
    // The element's real timings: a return with a method known would be asked about for a minute.
    const el = await fixture<PayButton>(html`<pay-button endpoint="/api" item=${item}>Bayar</pay-button>`);
    const rec = new Recorder(el);
    click(el);
    const { detail } = await rec.next('pay-open');
    await popupUrl(spy.last);
    const left = performance.now();
    returnFrom(spy.last, detail.orderNum);
    const end = await rec.settle();
    expect(end.type).to.equal('pay-cancel');
    expect(performance.now() - left).to.be.below(3000);
    expect(el.state).to.equal('cancelled');
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[part=status]')!.textContent).to.equal('Payment not started. Nothing was charged.');
    el.reset();
  });

  it('a cancelled order is still watched: paid after all (its page reopened), it ends paid', async () => {
    const { el, rec } = await button(uniqueItem(), null);
    const { detail } = await openThenClose(el, rec);
    expect((await rec.settle()).type).to.equal('pay-cancel');
    await setStatus(detail.orderNum, 'paid');
    await rec.next('pay-success');
    expect(el.state).to.equal('paid');
    expect(rec.names).to.deep.equal(['pay-click', 'pay-open', 'pay-cancel', 'pay-success']);
  });

  it('a cancelled order paid after all (its page reopened from history) is found paid by the next load', async () => {
    const item = uniqueItem();
    const first = await button(item, null);
    const { detail } = await openThenClose(first.el, first.rec);
    expect((await first.rec.settle()).type).to.equal('pay-cancel');
    await setStatus(detail.orderNum, 'paid');
    reload(first.el);
    const { el, rec } = await button(item, null);
    expect((await rec.settle()).type).to.equal('pay-success');
    expect(el.state).to.equal('paid');
  });

  it('a popup attempt survives a reload: pending again, still watched, and a click pays the same order', async () => {
    const item = uniqueItem();
    const first = await button(item);
    const { detail } = await openThenClose(first.el, first.rec);
    expect((await first.rec.settle()).type).to.equal('pay-pending');
    reload(first.el);

    const { el, rec } = await button(item);
    const pending = await rec.settle();
    expect(pending.type).to.equal('pay-pending');
    expect(pending.detail).to.include({ orderNum: detail.orderNum });
    expect(el.state).to.equal('pending');
    rec.events.length = 0;
    click(el);
    expect((await rec.next('pay-open')).detail.orderNum).to.equal(detail.orderNum);
    const s = await stats(item);
    expect(s.orders).to.have.length(1);
    expect(new Set(s.bodies.map((b) => b.idempotencyKey)).size).to.equal(1);
    await setStatus(detail.orderNum, 'paid');
    returnFrom(spy.last, detail.orderNum);
    expect((await rec.settle()).type).to.equal('pay-success');
  });

  it('reloaded after a cancel (no method chosen): nothing is said, and a click still reopens the same order', async () => {
    const item = uniqueItem();
    const first = await button(item, null);
    const { detail } = await openThenClose(first.el, first.rec);
    expect((await first.rec.settle()).type).to.equal('pay-cancel');
    reload(first.el);
    const before = (await stats(item)).gets;

    const { el, rec } = await button(item, null);
    // It asks about the stored order (twice, as after a close), then stays idle: nothing to say.
    await waitUntil(async () => el.state === 'idle' && (await stats(item)).gets >= before + 2, `not asked, or state ${el.state}`);
    expect(rec.events).to.have.length(0);
    click(el);
    expect((await rec.next('pay-open')).detail.orderNum).to.equal(detail.orderNum);
    expect((await stats(item)).orders).to.have.length(1);
    el.reset();
  });

  it('a popup closed after paying (before the return) still ends paid: the status decides', async () => {
    const { el, rec } = await button(uniqueItem());
    click(el);
    const { detail } = await rec.next('pay-open');
    await setStatus(detail.orderNum, 'paid');
    spy.last.close();
    expect((await rec.settle()).type).to.equal('pay-success');
  });

  it('a slow plug-in: the placeholder shows a ring in the shop\'s colour turning above its words, then the payment page', async () => {
    const item = uniqueItem('hold');
    const { el, rec } = await button(item);
    el.style.setProperty('--pay-button-bg', 'rgb(120, 40, 10)');
    click(el);
    await waitUntil(async () => (await stats(item)).links === 1);
    const doc = spy.last.document;
    await waitUntil(() => !!doc.querySelector('[role=progressbar]'), 'no ring in the placeholder');
    const ring = doc.querySelector<HTMLElement>('[role=progressbar]')!;
    expect(ring.style.borderTopColor).to.equal('rgb(120, 40, 10)');
    expect(ring.getAttribute('aria-label')).to.equal('Opening the payment page…');
    expect(ring.getAnimations().map((animation) => animation.playState)).to.deep.equal(['running']);
    expect(doc.body.textContent).to.equal('Opening the payment page…');
    expect(doc.querySelectorAll('[role=progressbar]')).to.have.length(1);
    await release(item);
    await rec.next('pay-open');
    await popupUrl(spy.last);
    spy.last.close();
    await rec.settle();
  });

  it('closing the placeholder before /links answers cancels, and the late answer changes nothing', async () => {
    const item = uniqueItem('hold');
    const { el, rec } = await button(item);
    click(el);
    await waitUntil(async () => (await stats(item)).links === 1);
    spy.last.close();
    const end = await rec.settle();
    expect(end.detail).to.deep.equal({ orderNum: undefined, reason: 'closed' });
    await release(item);
    await waitUntil(async () => (await stats(item)).orders.length === 1, 'the held request was not answered');
    await el.updateComplete;
    expect(rec.terminal).to.have.length(1);
    expect(rec.names).to.deep.equal(['pay-click', 'pay-cancel']);
    expect(el.state).to.equal('cancelled');
  });

  it('ignores a return message from a foreign origin, and one from the right origin but another window', async () => {
    const { el, rec } = await button(uniqueItem());
    click(el);
    const { detail } = await rec.next('pay-open');
    const foreignHost = location.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
    const seen: MessageEvent[] = [];
    addEventListener('message', (e) => seen.push(e));

    spy.last.location.href = `${location.protocol}//${foreignHost}:${location.port}/api/__foreign-return?orderNum=${detail.orderNum}`;
    await waitUntil(() => seen.some((e) => e.origin.includes(foreignHost)), 'the foreign page never posted');
    postMessage({ type: 'tombolbayar:return', orderNum: detail.orderNum }, location.origin);
    await waitUntil(() => seen.some((e) => e.source === window), 'own message never arrived');

    // Both were delivered to the element's listener too (it was registered first) and ignored.
    expect(el.state).to.equal('open');
    expect(rec.terminal).to.have.length(0);
    spy.last.close();
    expect((await rec.settle()).type).to.equal('pay-pending');
  });

  it('a double click makes one /links call and one attempt', async () => {
    const item = uniqueItem('autopay');
    const { el, rec } = await button(item);
    const inner = el.shadowRoot!.querySelector('button')!;
    inner.click();
    inner.click();
    expect(el.pay()).to.be.false;
    await rec.settle();
    expect((await stats(item)).links).to.equal(1);
    expect(spy.windows).to.have.length(1);
    expect(rec.names.filter((n) => n === 'pay-click')).to.have.length(1);
  });

  it('a cancelled pay-click starts nothing', async () => {
    const item = uniqueItem();
    const { el, rec } = await button(item);
    el.addEventListener('pay-click', (e) => e.preventDefault());
    click(el);
    expect(el.pay()).to.be.false;
    expect(spy.windows).to.have.length(0);
    expect(el.state).to.equal('idle');
    expect(rec.names).to.deep.equal(['pay-click', 'pay-click']);
    expect((await stats(item)).links).to.equal(0);
  });

  it('a /links error closes the placeholder and ends in pay-error with the plug-in code', async () => {
    const item = uniqueItem('sold-out');
    const { el, rec } = await button(item);
    click(el);
    const end = await rec.settle();
    expect(end.type).to.equal('pay-error');
    expect(end.detail).to.include({ code: 'not_for_sale', retryable: false, status: 409, message: 'This item is not for sale.' });
    expect(spy.last.closed).to.be.true;
    expect(rec.states).to.deep.equal(['idle', 'loading', 'error']);
    // A refusal says the merchant's words, without suggesting a retry that cannot succeed.
    expect(el.shadowRoot!.querySelector('[part=status]')!.textContent).to.equal('This item is not for sale.');
  });

  it("quote()'s http-errors refusal (quote_refused) says the merchant's words, and the same request is not sent again", async () => {
    const item = uniqueItem('refused');
    const { el, rec } = await button(item);
    click(el);
    expect((await rec.settle()).detail).to.include({ code: 'quote_refused', retryable: false, status: 409, message: 'Only 2 left in stock.' });
    await el.updateComplete;
    const inner = el.shadowRoot!.querySelector('button')!;
    expect(el.shadowRoot!.querySelector('[part=status]')!.textContent).to.equal('Only 2 left in stock.');
    expect(inner.getAttribute('aria-disabled')).to.equal('true');
    inner.click();
    expect(el.pay()).to.be.false;
    expect(spy.windows).to.have.length(1);
    expect((await stats(item)).links).to.equal(1);
    // Another request (other fields: another cart) may be asked.
    el.fields = { quantity: 1 };
    await el.updateComplete;
    expect(inner.getAttribute('aria-disabled')).to.equal('false');
    expect(el.pay()).to.be.true;
    await waitUntil(async () => (await stats(item)).links === 2, 'the other request was not sent');
  });

  it('a retryable refusal of quote() (429) keeps the generic wording', async () => {
    const { el, rec } = await button(uniqueItem('busy'));
    click(el);
    expect((await rec.settle()).detail).to.include({ code: 'quote_refused', retryable: true });
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[part=status]')!.textContent).to.equal('Something went wrong. Nothing was charged. Try again.');
  });

  it('a gateway that is down says so plainly, that nothing was charged, and offers a retry (the code stays in the event)', async () => {
    const { el, rec } = await button(uniqueItem('down'));
    click(el);
    expect((await rec.settle()).detail).to.include({ code: 'gateway_unavailable', retryable: true });
    expect(el.shadowRoot!.querySelector('[part=status]')!.textContent).to.equal('The payment service cannot be reached. Nothing was charged. Try again.');
  });

  it("a page whose origin the plug-in refuses is told so (the shop's settings), never \"cannot be reached\" nor \"try again\"", async () => {
    const { el, rec } = await button(uniqueItem('foreign'));
    click(el);
    expect((await rec.settle()).detail).to.include({ code: 'origin_not_allowed', retryable: false, status: 403 });
    expect(el.shadowRoot!.querySelector('[part=status]')!.textContent).to.equal('Payments are not allowed on this page. Nothing was charged.');
  });

  it('without an endpoint it ends in pay-error invalid_config and closes the placeholder', async () => {
    const el = await fixture<PayButton>(html`<pay-button item="x"></pay-button>`);
    const rec = new Recorder(el);
    click(el);
    expect((await rec.settle()).detail).to.include({ code: 'invalid_config', retryable: false });
    expect(spy.last.closed).to.be.true;
  });

  it('an answer outside the contract is a retryable bad_response', async () => {
    const { el, rec } = await button(uniqueItem('garbage'));
    click(el);
    expect((await rec.settle()).detail).to.include({ code: 'bad_response', retryable: true });
  });

  it('a retry after a retryable error reuses the idempotency key; a new attempt does not', async () => {
    const item = uniqueItem('down');
    const { el, rec } = await button(item);
    click(el);
    expect((await rec.settle()).detail).to.include({ code: 'gateway_unavailable', retryable: true, status: 503 });
    rec.events.length = 0;
    click(el);
    await rec.settle();
    const [first, second] = (await stats(item)).bodies;
    expect(second!.idempotencyKey).to.equal(first!.idempotencyKey);

    // A fresh attempt (after reset, or after an outcome) gets a fresh key.
    el.reset();
    rec.events.length = 0;
    click(el);
    await rec.settle();
    expect((await stats(item)).bodies[2]!.idempotencyKey).not.to.equal(first!.idempotencyKey);
  });

  it('reset() during an attempt closes the popup and cancels with reason reset', async () => {
    const { el, rec } = await button(uniqueItem());
    click(el);
    const { detail } = await rec.next('pay-open');
    el.reset();
    expect(rec.terminal.map((e) => [e.type, e.detail])).to.deep.equal([['pay-cancel', { orderNum: detail.orderNum, reason: 'reset' }]]);
    expect(el.state).to.equal('idle');
    await waitUntil(() => spy.last.closed, 'popup left open');
  });

  it('clicks while in flight bring the popup forward and are otherwise ignored; disabled and paid ignore clicks', async () => {
    const item = uniqueItem('autopay');
    const { el, rec } = await button(item);
    el.disabled = true;
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('button')!.disabled).to.be.true;
    expect(el.pay()).to.be.false;
    el.disabled = false;
    await el.updateComplete;
    click(el);
    await rec.settle();
    expect(el.state).to.equal('paid');
    expect(el.pay()).to.be.false;
    expect(el.shadowRoot!.querySelector('button')!.getAttribute('aria-disabled')).to.equal('true');
    expect((await stats(item)).links).to.equal(1);
  });

  it('after an outcome other than paid, a click starts a new attempt', async () => {
    const item = uniqueItem();
    const { el, rec } = await button(item);
    click(el);
    await rec.next('pay-open');
    spy.last.close();
    await rec.settle();
    rec.events.length = 0;
    click(el);
    expect(el.state).to.equal('loading');
    await rec.next('pay-open');
    expect((await stats(item)).links).to.equal(2);
    el.reset();
  });
});
