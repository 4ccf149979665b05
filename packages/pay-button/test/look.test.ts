/**
 * How <pay-button> looks, speaks and reads: accessibility (axe), target size, focus ring, font,
 * custom properties, parts, slots, the amount, reduced motion, custom states and i18n.
 */
import { expect, fixture, html } from '@open-wc/testing';
import { emulateMedia, sendKeys } from '@web/test-runner-commands';
import '../src/define.ts';
import type { PayButton } from '../src/index.ts';
import { OpenSpy, Recorder, release, uniqueItem, waitUntil } from './helpers.ts';

const inner = (el: PayButton) => el.shadowRoot!.querySelector('button')!;
const part = (el: PayButton, name: string) => el.shadowRoot!.querySelector(`[part=${name}]`);
const text = (el: Element) => el.shadowRoot!.querySelector('button')!.textContent!.replace(/\s+/g, ' ').trim();

describe('<pay-button> accessibility', () => {
  let spy: OpenSpy;
  beforeEach(() => (spy = new OpenSpy()));
  afterEach(() => spy.restore());

  it('is axe-clean when idle, busy, and after each outcome', async () => {
    const item = uniqueItem('hold');
    const el = await fixture<PayButton>(html`<pay-button endpoint="/api" item=${item} amount="150000">Bayar</pay-button>`);
    await expect(el).to.be.accessible();

    const rec = new Recorder(el);
    inner(el).click();
    await el.updateComplete;
    expect(inner(el).getAttribute('aria-busy')).to.equal('true');
    expect(inner(el).getAttribute('aria-disabled')).to.equal('true');
    await expect(el).to.be.accessible();

    spy.last.close();
    await rec.settle();
    await release(item);
    expect(inner(el).getAttribute('aria-busy')).to.equal('false');
    await expect(el).to.be.accessible();

    const failed = await fixture<PayButton>(html`<pay-button endpoint="/api" item=${uniqueItem('sold-out')}></pay-button>`);
    const failedRec = new Recorder(failed);
    inner(failed).click();
    await failedRec.settle();
    await failed.updateComplete;
    await expect(failed).to.be.accessible();
  });

  it('renders a real <button type="button"> with a polite live region that announces what happens', async () => {
    const el = await fixture<PayButton>(html`<pay-button endpoint="/api" item=${uniqueItem('hold')}></pay-button>`);
    expect(inner(el).type).to.equal('button');
    const status = part(el, 'status')!;
    expect(status.getAttribute('role')).to.equal('status');
    expect(status.textContent).to.equal('');
    inner(el).click();
    await el.updateComplete;
    expect(status.textContent).to.equal('Opening the payment page…');
    el.reset();
  });

  it('offers at least a 44 x 44 px target and a visible keyboard focus ring', async () => {
    const el = await fixture<PayButton>(html`<pay-button endpoint="/api" item="x" style="font-size: 10px">$</pay-button>`);
    const box = inner(el).getBoundingClientRect();
    expect(box.height).to.be.at.least(44);
    expect(box.width).to.be.at.least(44);

    await sendKeys({ press: 'Tab' });
    expect(el.shadowRoot!.activeElement).to.equal(inner(el));
    const style = getComputedStyle(inner(el));
    expect(style.outlineStyle).to.equal('solid');
    expect(parseFloat(style.outlineWidth)).to.be.at.least(2);
  });

  it('delegates focus to the inner button', async () => {
    const el = await fixture<PayButton>(html`<pay-button endpoint="/api" item="x"></pay-button>`);
    el.focus();
    expect(el.shadowRoot!.activeElement).to.equal(inner(el));
  });
});

describe('<pay-button> look', () => {
  it("inherits the page's font", async () => {
    const wrap = await fixture<HTMLDivElement>(
      html`<div style="font: italic 19px Georgia, serif"><pay-button endpoint="/api" item="x"></pay-button></div>`,
    );
    const style = getComputedStyle(inner(wrap.querySelector('pay-button')!));
    expect(style.fontFamily).to.equal('Georgia, serif');
    expect(style.fontSize).to.equal('19px');
    expect(style.fontStyle).to.equal('italic');
  });

  it('is themed by --pay-button-* custom properties and ::part()', async () => {
    const wrap = await fixture<HTMLDivElement>(html`<div>
      <style>
        .themed { --pay-button-bg: rgb(1, 2, 3); --pay-button-fg: rgb(250, 250, 250); --pay-button-radius: 0px; }
        .themed::part(label) { letter-spacing: 3px; }
        .themed::part(status) { color: rgb(200, 0, 0); }
      </style>
      <pay-button class="themed" endpoint="/api" item="x"></pay-button>
    </div>`);
    const el = wrap.querySelector('pay-button')!;
    const style = getComputedStyle(inner(el));
    expect(style.backgroundColor).to.equal('rgb(1, 2, 3)');
    expect(style.color).to.equal('rgb(250, 250, 250)');
    expect(style.borderTopLeftRadius).to.equal('0px');
    expect(getComputedStyle(part(el, 'label')!).letterSpacing).to.equal('3px');
    expect(getComputedStyle(part(el, 'status')!).color).to.equal('rgb(200, 0, 0)');
  });

  it('has slots for the label and icons, and shows the amount in Rupiah', async () => {
    const el = await fixture<PayButton>(html`<pay-button endpoint="/api" item="x" amount="150000">
      <svg slot="prefix" aria-hidden="true" width="8" height="8"></svg>Checkout<b slot="suffix">→</b>
    </pay-button>`);
    expect(part(el, 'amount')!.textContent).to.equal('Rp 150.000');
    const slots = [...el.shadowRoot!.querySelectorAll('slot')].map((s) => [s.name, s.assignedNodes({ flatten: true }).length > 0]);
    expect(slots).to.deep.include.members([['prefix', true], ['', true], ['suffix', true]]);
    el.amount = undefined;
    await el.updateComplete;
    expect(part(el, 'amount')).to.be.null;
  });

  it('shows a spinner while busy, still under prefers-reduced-motion', async () => {
    const spy = new OpenSpy();
    try {
      const el = await fixture<PayButton>(html`<pay-button endpoint="/api" item=${uniqueItem('hold')}></pay-button>`);
      expect(part(el, 'spinner')).to.be.null;
      inner(el).click();
      await el.updateComplete;
      const spinner = part(el, 'spinner')!;
      expect(spinner.getAttribute('aria-hidden')).to.equal('true');
      expect(getComputedStyle(spinner).animationName).to.equal('spin');
      await emulateMedia({ reducedMotion: 'reduce' });
      expect(getComputedStyle(spinner).animationName).to.equal('none');
      await emulateMedia({ reducedMotion: 'no-preference' });
      el.reset();
    } finally {
      spy.restore();
    }
  });

  it('mirrors its state in custom states and in the reflected attribute, which it keeps', async () => {
    const el = await fixture<PayButton>(html`<pay-button endpoint="/api" item="x" state="paid"></pay-button>`);
    expect(el.getAttribute('state')).to.equal('idle');
    expect(el.matches(':state(idle)')).to.be.true;
    expect(el.matches(':state(paid)')).to.be.false;
  });

  it('hides with the hidden attribute', async () => {
    const el = await fixture<PayButton>(html`<pay-button hidden endpoint="/api" item="x"></pay-button>`);
    expect(getComputedStyle(el).display).to.equal('none');
  });
});

describe('<pay-button> i18n', () => {
  it('speaks English or Indonesian from the locale attribute', async () => {
    const el = await fixture<PayButton>(html`<pay-button endpoint="/api" item="x" locale="id"></pay-button>`);
    expect(text(el)).to.equal('Bayar');
    el.locale = 'en';
    await el.updateComplete;
    expect(text(el)).to.equal('Pay');
    el.setAttribute('locale', 'id-ID');
    await el.updateComplete;
    expect(text(el)).to.equal('Bayar');
  });

  it('follows the nearest [lang] when it has no locale, and switches when that lang changes', async () => {
    const wrap = await fixture<HTMLDivElement>(html`<div lang="en"><section lang="id"><pay-button endpoint="/api" item="x"></pay-button></section></div>`);
    const el = wrap.querySelector('pay-button')!;
    const section = wrap.querySelector('section')!;
    expect(text(el)).to.equal('Bayar');
    section.setAttribute('lang', 'en-US');
    await waitUntil(() => text(el) === 'Pay', 'did not switch to English');
    section.removeAttribute('lang');
    wrap.setAttribute('lang', 'in');
    await waitUntil(() => text(el) === 'Bayar', 'did not follow the outer lang');
  });

  it('says its messages in the locale, in the placeholder too', async () => {
    const spy = new OpenSpy();
    try {
      const el = await fixture<PayButton>(html`<pay-button endpoint="/api" item=${uniqueItem('hold')} locale="id"></pay-button>`);
      inner(el).click();
      await el.updateComplete;
      expect(part(el, 'status')!.textContent).to.equal('Membuka halaman pembayaran…');
      expect(spy.last.document.documentElement.lang).to.equal('id');
      expect(spy.last.document.body.textContent).to.equal('Membuka halaman pembayaran…');
      el.reset();
    } finally {
      spy.restore();
    }
  });
});
