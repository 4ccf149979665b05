/**
 * <pay-va>: operation 1 inline, against the contract double.
 */
import { expect, fixture, html } from '@open-wc/testing';
import '../src/define.ts';
import type { PayVa } from '../src/index.ts';
import { Recorder, setStatus, stats, uniqueItem, waitUntil } from './helpers.ts';

async function va(item: string, method = 'VA_BCA', locale = 'en'): Promise<{ el: PayVa; rec: Recorder }> {
  const el = await fixture<PayVa>(html`<pay-va endpoint="/api" item=${item} method=${method} locale=${locale} poll-interval="20"></pay-va>`);
  return { el, rec: new Recorder(el) };
}

const shadow = (el: PayVa) => el.shadowRoot!;
const part = (el: PayVa, name: string) => shadow(el).querySelector(`[part=${name}]`);
const panelText = (el: PayVa) => part(el, 'panel')!.textContent!.replace(/\s+/g, ' ').trim();

describe('<pay-va>', () => {
  beforeEach(() => sessionStorage.clear());

  it('creates the VA order on click and shows bank, number, amount, fee and a countdown, then ends paid', async () => {
    const item = uniqueItem();
    const { el, rec } = await va(item);
    shadow(el).querySelector('button')!.click();
    expect(el.state).to.equal('loading');
    const open = await rec.next('pay-open');
    expect(open.detail.mode).to.equal('inline');
    await el.updateComplete;

    expect(el.state).to.equal('pending');
    expect(part(el, 'method')!.textContent).to.equal('BCA Virtual Account');
    expect(part(el, 'number')!.textContent).to.equal(el.order!.vaNumber);
    expect(panelText(el)).to.include('Virtual account number');
    // The total to transfer comes first, copyable; amount and fee are its breakdown.
    expect(panelText(el)).to.match(/^BCA Virtual Account Transfer exactly Rp 154\.000 Copy Amount Rp 150\.000 Fee Rp 4\.000/);
    expect(part(el, 'total')!.textContent).to.equal('Rp 154.000');
    expect(part(el, 'copy-total')!.getAttribute('aria-label')).to.equal('Copy: Transfer exactly');
    expect(part(el, 'steps')!.textContent).to.include(`Enter ${el.order!.vaNumber}.`);
    expect(part(el, 'countdown')!.textContent).to.match(/Pay within (00:59:[0-5]\d|01:00:00)/);
    await expect(el).to.be.accessible();

    await setStatus(open.detail.orderNum, 'paid');
    const end = await rec.settle();
    expect(end.type).to.equal('pay-success');
    expect(end.detail).to.include({ orderNum: open.detail.orderNum, status: 'paid' });
    expect(rec.states).to.deep.equal(['idle', 'loading', 'pending', 'paid']);
    expect(el.matches(':state(paid)')).to.be.true;
    await el.updateComplete;
    expect(part(el, 'status')!.textContent).to.equal('Paid. Thank you!');
    // Only the paid state: no number, no copy button, no countdown, no steps.
    for (const gone of ['number', 'copy', 'total', 'countdown', 'steps']) expect(part(el, gone), gone).to.be.null;
    expect(shadow(el).querySelector('[part~=outcome]')!.textContent).to.match(/Payment received\s+Rp 154\.000 received\. Thank you!/);
    await expect(el).to.be.accessible();
    const body = (await stats(item)).bodies[0]!;
    expect(body).to.include({ item, method: 'VA_BCA' });
    expect(body.idempotencyKey).to.match(/^[0-9a-f]{32}$/);
  });

  it('an expired order ends in pay-failure and offers a new number', async () => {
    const { el, rec } = await va(uniqueItem());
    el.create();
    const open = await rec.next('pay-open');
    await setStatus(open.detail.orderNum, 'expired');
    const end = await rec.settle();
    expect(end.type).to.equal('pay-failure');
    expect(el.state).to.equal('expired');
    await el.updateComplete;
    expect(part(el, 'status')!.textContent).to.equal('The time to pay has run out. Nothing was charged.');
    // The expired panel replaces the instructions: nobody transfers to a number that takes no money.
    expect(shadow(el).querySelector('[part~=outcome]')!.textContent).to.include('This payment number has expired');
    for (const gone of ['number', 'copy', 'total', 'countdown', 'steps']) expect(part(el, gone), gone).to.be.null;
    expect(part(el, 'button')!.textContent!.trim()).to.equal('Get a new payment number');
  });

  it('a number whose cart another order paid says not to pay it (pay-cancel paid-elsewhere), with no way to pay and nothing to restore', async () => {
    const item = uniqueItem();
    const { el, rec } = await va(item);
    el.create();
    const open = await rec.next('pay-open');
    await setStatus(open.detail.orderNum, 'pending', { method: 'VA_BCA', paidWith: 'PBPAIDBYLINK' });
    const end = await rec.settle();
    expect(end.type).to.equal('pay-cancel');
    expect(end.detail).to.deep.equal({ orderNum: open.detail.orderNum, reason: 'paid-elsewhere', paidWith: 'PBPAIDBYLINK' });
    expect(el.state).to.equal('closed');
    await el.updateComplete;
    expect(part(el, 'status')!.textContent).to.equal('Already paid with another order. Do not pay this number.');
    expect(shadow(el).querySelector('[part~=outcome]')!.textContent).to.match(/This is already paid\s+It was paid with order PBPAIDBYLINK\. Do not pay this number\./);
    for (const gone of ['number', 'copy', 'total', 'countdown', 'steps', 'button']) expect(part(el, gone), gone).to.be.null;
    await expect(el).to.be.accessible();
    // A reload shows no number to pay.
    const { el: reloaded } = await va(item);
    await reloaded.updateComplete;
    expect(reloaded.state).to.equal('idle');
    expect(reloaded.order).to.be.undefined;
  });

  it('a number paid after another order had paid its cart says "paid twice" and the refund to expect, in Indonesian', async () => {
    const { el, rec } = await va(uniqueItem(), 'VA_BCA', 'id');
    el.create();
    const open = await rec.next('pay-open');
    await setStatus(open.detail.orderNum, 'paid', { method: 'VA_BCA', duplicateOf: 'PBPAIDFIRST' });
    expect((await rec.settle()).type).to.equal('pay-success');
    await el.updateComplete;
    const panel = shadow(el).querySelector('[part~=outcome]')!.textContent!;
    expect(panel).to.include('Pembayaran diterima');
    expect(panel).to.include('Ini juga sudah dibayar dengan pesanan PBPAIDFIRST: toko akan mengembalikan salah satu pembayaran.');
    const body = (await stats(el.item!)).bodies[0]!;
    expect(body.lang).to.equal('id');
  });

  it('shows the same order after a reload instead of creating another', async () => {
    const item = uniqueItem();
    const first = await va(item);
    first.el.create();
    const open = await first.rec.next('pay-open');
    first.el.remove();

    const second = await va(item, 'BCA'); // the alias names the same method
    await second.el.updateComplete;
    expect(second.el.state).to.equal('pending');
    expect(second.el.order!.orderNum).to.equal(open.detail.orderNum);
    expect((await stats(item)).va).to.equal(1);
    await setStatus(open.detail.orderNum, 'paid');
    expect((await second.rec.settle()).type).to.equal('pay-success');
  });

  it('a reload restores the method it showed, even when the page\'s control reset to another one', async () => {
    const item = uniqueItem();
    const first = await va(item, 'VA_MANDIRI');
    first.el.create();
    const open = await first.rec.next('pay-open');
    await first.el.updateComplete;
    const number = first.el.order!.vaNumber;
    first.el.remove();

    // The page's select resets to its first option (BCA) on reload.
    const el = document.createElement('pay-va') as PayVa;
    Object.assign(el, { endpoint: '/api', item, method: 'VA_BCA', pollInterval: 20 });
    const rec = new Recorder(el);
    document.body.append(el);
    try {
      const restored = await rec.next('pay-open');
      expect(restored.detail).to.include({ orderNum: open.detail.orderNum, mode: 'inline', restored: true });
      await el.updateComplete;
      expect(el.method).to.equal('VA_MANDIRI');
      expect(el.order!.vaNumber).to.equal(number);
      expect(part(el, 'method')!.textContent).to.equal('Mandiri Virtual Account');
      expect(part(el, 'number')!.textContent).to.equal(number);
      expect((await stats(item)).va).to.equal(1, 'no second number');
      // Asking again while it is shown makes nothing new.
      expect(el.create()).to.be.false;
      expect((await stats(item)).va).to.equal(1);
    } finally {
      el.remove();
    }
  });

  it('restores when its properties are set after connecting, as React does', async () => {
    const item = uniqueItem();
    const first = await va(item);
    first.el.create();
    const open = await first.rec.next('pay-open');
    first.el.remove();
    const el = document.createElement('pay-va');
    document.body.append(el);
    Object.assign(el, { endpoint: '/api', item, method: 'VA_BCA', pollInterval: 20 });
    try {
      await waitUntil(() => el.order?.orderNum === open.detail.orderNum, 'not restored');
      expect(el.state).to.equal('pending');
    } finally {
      el.remove();
    }
  });

  it('copies the number (or selects it where the clipboard is unavailable)', async () => {
    const { el, rec } = await va(uniqueItem());
    el.create();
    await rec.next('pay-open');
    await el.updateComplete;
    const copy = part(el, 'copy') as HTMLButtonElement;
    expect(copy.getAttribute('aria-label')).to.equal('Copy: Virtual account number');
    copy.click();
    const number = el.order!.vaNumber;
    await waitUntil(
      () => part(el, 'status')!.textContent === 'Copied.' || getSelection()!.toString() === number,
      'neither copied nor selected',
    );
    el.reset();
  });

  it('draws the QRIS code the plug-in sends (token in the header), in Indonesian', async () => {
    const { el, rec } = await va(uniqueItem(), 'QRIS', 'id');
    el.create();
    await rec.next('pay-open');
    await el.updateComplete;
    expect(part(el, 'method')!.textContent).to.equal('QRIS');
    expect(panelText(el)).to.include('Jumlah yang harus dibayar Rp 154.000');
    expect(panelText(el)).to.include('Kode QRIS');
    expect(panelText(el)).to.include('pindai kode QR');
    await waitUntil(() => part(el, 'qr'), 'no QR image');
    const image = part(el, 'qr')!;
    expect(image.getAttribute('aria-label')).to.equal('Kode QRIS untuk membayar Rp 154.000');
    expect(image.querySelector('path')!.getAttribute('d')).to.match(/^M\d+ \d+h\d+v1h-\d+z/);
    expect(part(el, 'number')).to.be.null;
    expect(panelText(el)).to.include('Jumlah Rp 150.000');
    await expect(el).to.be.accessible();
    el.reset();
    expect(el.state).to.equal('idle');
  });

  it('saves the QRIS code as a PNG, for a customer paying on the same phone (a 44 px button, in Indonesian)', async () => {
    const { el, rec } = await va(uniqueItem(), 'QRIS', 'id');
    el.create();
    await rec.next('pay-open');
    await waitUntil(() => part(el, 'save-qr'), 'no save button');
    const save = part(el, 'save-qr') as HTMLButtonElement;
    expect(save.textContent).to.equal('Simpan gambar QR');
    expect(save.getBoundingClientRect().height).to.be.at.least(44);
    // Watch the download the browser is asked for (the real click still runs).
    const downloads: HTMLAnchorElement[] = [];
    const click = HTMLAnchorElement.prototype.click;
    HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
      if (this.download) downloads.push(this);
      else click.call(this);
    };
    try {
      save.click();
      await waitUntil(() => downloads.length === 1, 'nothing was saved');
    } finally {
      HTMLAnchorElement.prototype.click = click;
    }
    expect(downloads[0]!.download).to.equal(`QRIS-${el.order!.orderNum}.png`);
    const png = new Uint8Array(await (await fetch(downloads[0]!.href)).arrayBuffer());
    expect([...png.slice(1, 4)].map((c) => String.fromCharCode(c)).join('')).to.equal('PNG');
    // The picture is the code: decode its size and check it is a square of whole modules.
    const bitmap = await createImageBitmap(new Blob([png]));
    expect(bitmap.width).to.equal(bitmap.height);
    expect(bitmap.width % 10).to.equal(0);
    el.reset();
  });

  for (const [method, label, kind] of [['RETAIL_ALFAMART', 'Payment code', 'Alfamart'], ['EWALLET_DANA', 'Payment reference', 'DANA app']] as const) {
    it(`shows ${method}: the total to pay, the ${label.toLowerCase()} and its steps`, async () => {
      const { el, rec } = await va(uniqueItem(), method);
      el.create();
      await rec.next('pay-open');
      await el.updateComplete;
      expect(panelText(el)).to.include('Pay exactly Rp 154.000');
      expect(panelText(el)).to.include(`${label} ${el.order!.vaNumber}`);
      expect(part(el, 'steps')!.textContent).to.include(kind);
      expect(part(el, 'steps')!.textContent).to.include('Rp 154.000');
      el.reset();
    });
  }

  for (const [prefix, code, message] of [['sold-out', 'not_for_sale', 'This item is not for sale.'], ['refused', 'quote_refused', 'Only 2 left in stock.']]) {
    it(`a refusal of quote() (${code}) says the merchant's words, not "try again", and the same request is not sent again`, async () => {
      const item = uniqueItem(prefix);
      const { el, rec } = await va(item);
      el.create();
      const end = await rec.settle();
      expect(end.type).to.equal('pay-error');
      expect(end.detail).to.include({ code, retryable: false, message });
      expect(el.state).to.equal('error');
      await el.updateComplete;
      expect(part(el, 'status')!.textContent).to.equal(message);
      const button = part(el, 'button') as HTMLButtonElement;
      expect(button.getAttribute('aria-disabled')).to.equal('true');
      button.click();
      expect(el.create()).to.be.false;
      expect((await stats(item)).va).to.equal(1);
      // Another request (here another method) is another question: it may be asked.
      el.method = 'VA_BNI';
      await el.updateComplete;
      expect(button.getAttribute('aria-disabled')).to.equal('false');
      expect(el.create()).to.be.true;
      await waitUntil(async () => (await stats(item)).va === 2, 'no request for the other method');
    });
  }

  it('a gateway that is down says so plainly, and a click asks again with the same key', async () => {
    const item = uniqueItem('down');
    const { el, rec } = await va(item);
    el.create();
    expect((await rec.settle()).detail).to.include({ code: 'gateway_unavailable', retryable: true });
    await el.updateComplete;
    expect(part(el, 'status')!.textContent).to.equal('The payment service cannot be reached. Nothing was charged. Try again.');
    expect(el.create()).to.be.true;
    await waitUntil(async () => (await stats(item)).va === 2, 'no second request');
    const [first, second] = (await stats(item)).bodies;
    expect(second!.idempotencyKey).to.equal(first!.idempotencyKey);
  });

  const outside = [['"0"', '"4000"'], ['"0007"', '"4000"'], ['"12345678901234567890"', '"4000"'], ['12345678901234567890', '0'], ['"150000"', '"0007"'], ['"150000"', '-1']];
  for (const [payMoney, payFee] of outside) {
    it(`amounts outside the contract (payMoney ${payMoney}, payFee ${payFee}) end in pay-error, with no number shown`, async () => {
      const { el, rec } = await va(uniqueItem(`amount[${payMoney}][${payFee}]`));
      el.create();
      const end = await rec.settle();
      expect(end.type).to.equal('pay-error');
      expect(end.detail).to.include({ code: 'bad_response', retryable: true });
      expect(rec.names).not.to.include('pay-open');
      expect(el.order).to.be.undefined;
      await el.updateComplete;
      expect(part(el, 'number')).to.be.null;
    });
  }

  it('a zero fee is within the contract and shown as Rp 0', async () => {
    const { el, rec } = await va(uniqueItem('amount["150000"]["0"]'));
    el.create();
    await rec.next('pay-open');
    await el.updateComplete;
    expect(panelText(el)).to.include('Fee Rp 0');
    el.reset();
  });

  it('ignores clicks while creating or showing an order, and a cancelled pay-click', async () => {
    const item = uniqueItem();
    const { el, rec } = await va(item);
    const cancel = (e: Event) => e.preventDefault();
    el.addEventListener('pay-click', cancel);
    expect(el.create()).to.be.false;
    el.removeEventListener('pay-click', cancel);
    expect(el.create()).to.be.true;
    expect(el.create()).to.be.false;
    await rec.next('pay-open');
    expect(el.create()).to.be.false;
    expect((await stats(item)).va).to.equal(1);
    el.reset();
  });
});
