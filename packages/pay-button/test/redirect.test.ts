/**
 * The full-page flow: a blocked popup or an in-app browser falls back to a redirect; the element
 * keeps the attempt in sessionStorage, picks the order up when the page comes back (the return
 * route's `?tombolbayar_order=`, or a bfcache restore) and asks the plug-in for the truth.
 * The page stays: a listener cancels `pay-open` (the full-page flow lets a page navigate itself)
 * and records where the element would have gone.
 */
import { expect, fixture, html } from '@open-wc/testing';
import { nothing } from 'lit';
import '../src/define.ts';
import type { PayButton } from '../src/index.ts';
import { findAttempt, saveAttempt } from '../src/internal/attempt-store.ts';
import { Recorder, setStatus, stats, uniqueItem, waitUntil } from './helpers.ts';

const realOpen = window.open;
let visited: string[];
/** Stands for the navigation: records the payment page the element would go to, and stays here. */
const stay = (e: Event) => {
  const { detail } = e as CustomEvent<{ mode: string; url: string }>;
  if (detail.mode === 'redirect' && !e.defaultPrevented) visited.push(detail.url);
  e.preventDefault();
};

beforeEach(() => {
  visited = [];
  // Last in the bubbling path, so a test's own pay-open listener runs first.
  window.addEventListener('pay-open', stay);
  sessionStorage.clear();
});
afterEach(() => {
  window.removeEventListener('pay-open', stay);
  window.open = realOpen;
  history.replaceState(null, '', location.pathname + location.search.replace(/[?&]tombolbayar_order=[^&]*/, ''));
});

/** A button for `item`; `method` is null for one that lets the customer choose on the payment page. */
async function button(item: string, mode = 'auto', method: string | null = 'VA_BCA'): Promise<{ el: PayButton; rec: Recorder }> {
  const el = await fixture<PayButton>(
    html`<pay-button endpoint="/api" item=${item} mode=${mode} method=${method ?? nothing} poll-interval="20" poll-timeout="300"></pay-button>`,
  );
  return { el, rec: new Recorder(el) };
}

const click = (el: PayButton) => el.shadowRoot!.querySelector('button')!.click();
const status = (el: PayButton) => el.shadowRoot!.querySelector('[part=status]')!.textContent;

/** A PageTransitionEvent as the browser fires it when it restores the page from the bfcache. */
const restoreFromBfcache = () => dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }));

describe('<pay-button> full-page flow', () => {
  it('a blocked popup (window.open returns null) falls back to a redirect and says so', async () => {
    window.open = () => null;
    const item = uniqueItem();
    const { el, rec } = await button(item);
    click(el);
    const fallback = await rec.next('pay-fallback');
    expect(fallback.detail).to.deep.equal({ from: 'popup', to: 'redirect', reason: 'popup-blocked' });
    await el.updateComplete;
    expect(status(el)).to.equal('Pop-up blocked. Opening it here…');

    const open = await rec.next('pay-open');
    expect(open.detail.mode).to.equal('redirect');
    expect(open.cancelable).to.be.true;
    expect(visited).to.deep.equal([open.detail.url]);
    expect(el.state).to.equal('open');

    // The attempt is remembered before leaving; the plug-in was told where to come back.
    expect(findAttempt((e) => e.orderNum === open.detail.orderNum)).to.include({ endpoint: '/api', item });
    expect((await stats(item)).bodies[0]!.returnTo).to.equal(location.href);
  });

  it('Back through the bfcache re-checks: unpaid ends in pay-pending (it can still be paid), never pay-cancel', async () => {
    window.open = () => null;
    const { el, rec } = await button(uniqueItem());
    click(el);
    const { detail } = await rec.next('pay-open');
    restoreFromBfcache();
    const end = await rec.settle();
    expect(end.type).to.equal('pay-pending');
    expect(end.detail).to.include({ orderNum: detail.orderNum, status: 'pending' });
    expect(rec.states).to.deep.equal(['idle', 'loading', 'open', 'checking', 'pending']);
    // Kept: the customer may go Forward, pay, and return; that return is this page's to claim.
    expect(findAttempt((e) => e.orderNum === detail.orderNum)).to.include({ orderNum: detail.orderNum });
  });

  it('Back, then Forward, pay and return: the return is claimed, the URL cleaned, and it ends paid', async () => {
    window.open = () => null;
    const item = uniqueItem();
    const first = await button(item);
    click(first.el);
    const { detail } = await first.rec.next('pay-open');
    restoreFromBfcache();
    expect((await first.rec.settle()).type).to.equal('pay-pending');
    first.el.remove();
    // Forward to the payment page, pay, and the return lands on a fresh load of this page.
    await setStatus(detail.orderNum, 'paid');
    history.replaceState(null, '', `${location.pathname}${location.search}&tombolbayar_order=${detail.orderNum}`);
    const { el, rec } = await button(item);
    const end = await rec.settle();
    expect(end.type).to.equal('pay-success');
    expect(end.detail).to.include({ orderNum: detail.orderNum });
    expect(el.state).to.equal('paid');
    expect(location.search).not.to.include('tombolbayar_order');
    expect(findAttempt((e) => e.orderNum === detail.orderNum)).to.be.undefined;
    expect((await stats(item)).orders).to.have.length(1);
  });

  it('Back before a method was chosen: nothing to report, the attempt is kept; a click reopens it, and Forward, pay and the return is claimed', async () => {
    window.open = () => null;
    const item = uniqueItem();
    const first = await button(item, 'auto', null);
    click(first.el);
    const { detail } = await first.rec.next('pay-open');
    restoreFromBfcache();
    await waitUntil(() => first.el.state === 'idle', `state ${first.el.state}`);
    // Nothing was chosen, so nothing can be paid without the page: no pending, and no event at all.
    expect(first.rec.terminal).to.have.length(0);
    expect(findAttempt((e) => e.orderNum === detail.orderNum)).to.include({ orderNum: detail.orderNum });
    // A click now reopens the same order (the same key).
    click(first.el);
    await waitUntil(() => visited.length === 2, 'no second visit');
    expect(visited[1]).to.equal(visited[0]);
    first.el.remove();
    // Forward, pay, and the return lands on a fresh load of this page.
    await setStatus(detail.orderNum, 'paid');
    history.replaceState(null, '', `${location.pathname}${location.search}&tombolbayar_order=${detail.orderNum}`);
    const { rec } = await button(item, 'auto', null);
    expect((await rec.settle()).type).to.equal('pay-success');
    expect((await stats(item)).orders).to.have.length(1);
  });

  it('Back ends pending and keeps watching; a click pays the same order', async () => {
    window.open = () => null;
    const item = uniqueItem();
    const el = await fixture<PayButton>(html`<pay-button endpoint="/api" item=${item} method="QRIS" poll-interval="20"></pay-button>`);
    const rec = new Recorder(el);
    click(el);
    const { detail } = await rec.next('pay-open');
    restoreFromBfcache();
    expect((await rec.settle()).type).to.equal('pay-pending');
    click(el);
    await waitUntil(() => visited.length === 2, 'no second visit');
    expect(visited[1]).to.equal(visited[0]);
    expect((await stats(item)).orders).to.have.length(1);
    await setStatus(detail.orderNum, 'paid');
    restoreFromBfcache();
    await rec.next('pay-success');
    expect(rec.names.filter((n) => n === 'pay-success')).to.have.length(1);
  });

  it('Back through the bfcache after paying ends in pay-success', async () => {
    window.open = () => null;
    const { el, rec } = await button(uniqueItem());
    click(el);
    const { detail } = await rec.next('pay-open');
    await setStatus(detail.orderNum, 'paid');
    restoreFromBfcache();
    expect((await rec.settle()).type).to.equal('pay-success');
    expect(el.state).to.equal('paid');
  });

  it('a pageshow that is not a bfcache restore changes nothing', async () => {
    window.open = () => null;
    const { el, rec } = await button(uniqueItem());
    click(el);
    await rec.next('pay-open');
    dispatchEvent(new PageTransitionEvent('pageshow', { persisted: false }));
    await el.updateComplete;
    expect(el.state).to.equal('open');
    expect(rec.terminal).to.have.length(0);
  });

  it('an in-app browser goes straight to the redirect, without trying a popup', async () => {
    let opened = 0;
    window.open = (...args) => (opened++, realOpen.apply(window, args));
    const ua = Object.getOwnPropertyDescriptor(Navigator.prototype, 'userAgent')!;
    Object.defineProperty(navigator, 'userAgent', {
      configurable: true,
      get: () => 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 300.0.0',
    });
    try {
      const { el, rec } = await button(uniqueItem());
      click(el);
      expect((await rec.next('pay-fallback')).detail.reason).to.equal('in-app-browser');
      await rec.next('pay-open');
      expect(opened).to.equal(0);
      expect(visited).to.have.length(1);
    } finally {
      delete (navigator as unknown as Record<string, unknown>).userAgent;
      expect(Object.getOwnPropertyDescriptor(Navigator.prototype, 'userAgent')).to.deep.equal(ua);
    }
  });

  it('mode="redirect" never opens a popup and is not a fallback', async () => {
    let opened = 0;
    window.open = (...args) => (opened++, realOpen.apply(window, args));
    const { el, rec } = await button(uniqueItem(), 'redirect');
    click(el);
    await rec.next('pay-open');
    expect(opened).to.equal(0);
    expect(rec.names).to.deep.equal(['pay-click', 'pay-open']);
    expect(visited).to.have.length(1);
  });

  it('cancelling pay-open in the full-page flow leaves the navigation to the page', async () => {
    const { el, rec } = await button(uniqueItem(), 'redirect');
    el.addEventListener('pay-open', (e) => e.preventDefault());
    click(el);
    await rec.next('pay-open');
    expect(visited).to.have.length(0);
    expect(el.state).to.equal('open');
  });
});

describe('<pay-button> coming back from the full-page flow', () => {
  async function orderFor(item: string): Promise<{ orderNum: string; statusToken: string }> {
    const res = await fetch('/api/links', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ item, method: 'VA_BCA', idempotencyKey: crypto.randomUUID() }),
    });
    return res.json();
  }

  it('picks up the returning order from ?tombolbayar_order=, asks the plug-in, and cleans the URL', async () => {
    const item = uniqueItem();
    const order = await orderFor(item);
    saveAttempt({ orderNum: order.orderNum, statusToken: order.statusToken, endpoint: '/api', item });
    await setStatus(order.orderNum, 'paid');
    history.replaceState(null, '', `${location.pathname}${location.search}&tombolbayar_order=${order.orderNum}`);

    const { el, rec } = await button(item);
    const end = await rec.settle();
    expect(end.type).to.equal('pay-success');
    expect(end.detail.orderNum).to.equal(order.orderNum);
    expect(el.state).to.equal('paid');
    expect(location.search).not.to.include('tombolbayar_order');
    expect(findAttempt((e) => e.orderNum === order.orderNum)).to.be.undefined;
  });

  it('picks the order up when the properties are set after connecting, as React does', async () => {
    const item = uniqueItem();
    const order = await orderFor(item);
    saveAttempt({ orderNum: order.orderNum, statusToken: order.statusToken, endpoint: '/api', item });
    await setStatus(order.orderNum, 'paid');
    history.replaceState(null, '', `${location.pathname}${location.search}&tombolbayar_order=${order.orderNum}`);
    const el = document.createElement('pay-button');
    const rec = new Recorder(el);
    document.body.append(el);
    el.endpoint = '/api';
    el.item = item;
    el.pollInterval = 20;
    try {
      expect((await rec.settle()).type).to.equal('pay-success');
    } finally {
      el.remove();
    }
  });

  it('never trusts the query: the plug-in says pending, so the outcome is pending', async () => {
    const item = uniqueItem();
    const order = await orderFor(item);
    saveAttempt({ orderNum: order.orderNum, statusToken: order.statusToken, endpoint: '/api', item });
    history.replaceState(null, '', `${location.pathname}${location.search}&tombolbayar_order=${order.orderNum}&status=paid`);
    const { rec } = await button(item);
    const end = await rec.settle();
    expect(end.type).to.equal('pay-pending');
    expect((await stats(item)).gets).to.be.greaterThan(0);
  });

  it('a tombolbayar_order it did not store is ignored: no request, no event', async () => {
    const item = uniqueItem();
    const order = await orderFor(item);
    await setStatus(order.orderNum, 'paid');
    history.replaceState(null, '', `${location.pathname}${location.search}&tombolbayar_order=${order.orderNum}`);
    const { el, rec } = await button(item);
    await el.updateComplete;
    expect(el.state).to.equal('idle');
    expect(rec.events).to.have.length(0);
    expect((await stats(item)).gets).to.equal(0);
  });

  it("an older plug-in's #paybutton_token= fragment is never read, and leaves the address bar with tombolbayar_order", async () => {
    const item = uniqueItem();
    const order = await orderFor(item);
    saveAttempt({ orderNum: order.orderNum, statusToken: order.statusToken, endpoint: '/api', item });
    await setStatus(order.orderNum, 'paid');
    // A wrong token in the fragment: had the element read it, the plug-in would answer 404 (pay-error).
    history.replaceState(null, '', `${location.pathname}${location.search}&tombolbayar_order=${order.orderNum}#paybutton_token=not-${order.statusToken}`);

    const { el, rec } = await button(item);
    const end = await rec.settle();
    expect(end.type).to.equal('pay-success');
    expect(el.state).to.equal('paid');
    expect(location.search).not.to.include('tombolbayar_order');
    expect(location.hash).to.equal('');
    expect(location.href).not.to.include(order.statusToken);
  });

  it('a token fragment goes even when no attempt is stored; a tombolbayar_order nobody can claim (a return replayed by Back or Forward after its order ended) goes too, and nothing is asked', async () => {
    const item = uniqueItem();
    const order = await orderFor(item);
    await setStatus(order.orderNum, 'paid');
    history.replaceState(null, '', `${location.pathname}${location.search}&tombolbayar_order=${order.orderNum}#paybutton_token=${order.statusToken}`);
    const { el, rec } = await button(item);
    await waitUntil(() => !location.href.includes(order.statusToken), 'the token stayed in the address bar');
    expect(location.hash).to.equal('');
    expect(location.search).not.to.include('tombolbayar_order');
    expect(el.state).to.equal('idle');
    expect(rec.events).to.have.length(0);
    expect((await stats(item)).gets).to.equal(0);
  });

  it('another element removing the token fragment first does not keep the owner from claiming its order', async () => {
    const item = uniqueItem();
    const order = await orderFor(item);
    saveAttempt({ orderNum: order.orderNum, statusToken: order.statusToken, endpoint: '/api', item });
    await setStatus(order.orderNum, 'paid');
    history.replaceState(null, '', `${location.pathname}${location.search}&tombolbayar_order=${order.orderNum}#paybutton_token=${order.statusToken}`);
    const wrapper = await fixture<HTMLDivElement>(html`<div>
      <pay-button endpoint="/api" item="other" poll-interval="20"></pay-button>
      <pay-button endpoint="/api" item=${item} poll-interval="20"></pay-button>
    </div>`);
    const [other, owner] = [...wrapper.querySelectorAll('pay-button')];
    await waitUntil(() => owner!.state === 'paid', 'the owner did not pick the order up');
    expect(other!.state).to.equal('idle');
    expect(location.search).not.to.include('tombolbayar_order');
    expect(location.hash).to.equal('');
  });

  for (const payMoney of ['"0"', '"0007"', '"12345678901234567890"', '12345678901234567890']) {
    it(`an order whose payMoney (${payMoney}) is outside the contract ends in pay-error, never pay-success`, async () => {
      const item = uniqueItem(`amount[${payMoney}]["4000"]`);
      const order = await orderFor(item);
      saveAttempt({ orderNum: order.orderNum, statusToken: order.statusToken, endpoint: '/api', item });
      await setStatus(order.orderNum, 'paid');
      history.replaceState(null, '', `${location.pathname}${location.search}&tombolbayar_order=${order.orderNum}`);
      const { el, rec } = await button(item);
      const end = await rec.settle();
      expect(end.type).to.equal('pay-error');
      expect(end.detail).to.include({ code: 'bad_response', retryable: true });
      expect(rec.terminal).to.have.length(1);
      expect(el.state).to.equal('error');
    });
  }

  it('only the element with the same endpoint and item claims the order, once', async () => {
    const item = uniqueItem();
    const order = await orderFor(item);
    saveAttempt({ orderNum: order.orderNum, statusToken: order.statusToken, endpoint: '/api', item });
    await setStatus(order.orderNum, 'paid');
    history.replaceState(null, '', `${location.pathname}${location.search}&tombolbayar_order=${order.orderNum}`);
    const wrapper = await fixture<HTMLDivElement>(html`<div>
      <pay-button endpoint="/api" item="other" poll-interval="20"></pay-button>
      <pay-button endpoint="/api" item=${item} poll-interval="20"></pay-button>
      <pay-button endpoint="/api" item=${item} poll-interval="20"></pay-button>
    </div>`);
    const [other, first, second] = [...wrapper.querySelectorAll('pay-button')];
    await waitUntil(() => first!.state === 'paid', 'the matching element did not pick the order up');
    expect(other!.state).to.equal('idle');
    expect(second!.state).to.equal('idle');
  });
});
