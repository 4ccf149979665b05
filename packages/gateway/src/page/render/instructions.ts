/**
 * What the customer needs once the method is fixed: the number or code to pay to (with a copy
 * button the client script reveals), the QR image for QRIS, and the steps for that method.
 */
import { METHODS, formatRupiah, type MethodCode } from '@tombolbayar/protocol';
import type { PageOrder } from '../deps.ts';
import { html, type SafeHtml } from '../html.ts';
import type { Messages } from '../i18n.ts';
import type { QrImage } from '../qr.ts';
import { paymentSteps } from '../steps.ts';
import type { RenderContext } from './context.ts';
import { totalOf } from './summary.ts';

function codeLabel(method: MethodCode, t: Messages): string {
  switch (METHODS[method].kind) {
    case 'virtual-account':
      return t.vaNumber;
    case 'retail':
      return t.paymentCode;
    default:
      return t.paymentReference;
  }
}

/** A value with a copy button. The button is `hidden` until the script runs, as it needs JS. */
function copyable(id: string, label: string, shown: string, copyText: string, t: Messages): SafeHtml {
  return html`<div class="copyable">
<p class="label" id="${id}-label">${label}</p>
<p class="value"><span class="code" id="${id}">${shown}</span>
<button type="button" class="copy" hidden data-copy="${copyText}" data-copied="${t.copied}" data-copy-failed="${t.copyFailed}" aria-label="${t.copyLabel(label)}">${t.copy}</button></p>
<p class="copy-status" role="status"></p>
</div>`;
}

/**
 * "Choose another method", for payment links only (the seam says which): a real form, so it works
 * without JS. It says plainly that the code shown stops working, because the gateway releases it.
 */
function renderChangeMethod(order: PageOrder, method: MethodCode, ctx: RenderContext): SafeHtml {
  if (!order.methodChangeable) return html``;
  const { t } = ctx;
  const what = METHODS[method].kind === 'qr' ? t.qrCode : codeLabel(method, t).toLowerCase();
  return html`<form method="post" action="${ctx.urls.changeMethod}" class="change-method js-once">
<input type="hidden" name="orderNum" value="${order.platOrderNum}">
<input type="hidden" name="method" value="${method}">
<input type="hidden" name="lang" value="${ctx.locale}">
<button type="submit" class="secondary" aria-describedby="change-method-hint">${t.changeMethod}</button>
<p class="muted" id="change-method-hint">${t.changeMethodHint(what)}</p>
</form>`;
}

function renderSteps(order: PageOrder, method: MethodCode, code: string, ctx: RenderContext): SafeHtml {
  const groups = paymentSteps(method, ctx.locale, {
    code,
    total: formatRupiah(totalOf(order)),
    merchant: order.merchantName,
  });
  const items = groups.map(
    (group, index) => html`<details${index === 0 ? html` open` : ''}>
<summary>${group.title}</summary>
<ol>${group.steps.map((step) => html`<li>${step}</li>`)}</ol>
</details>`,
  );
  return html`<h3>${ctx.t.howToPay}</h3>${items}`;
}

export function renderInstructions(order: PageOrder, method: MethodCode, ctx: RenderContext, qr: QrImage | undefined): SafeHtml {
  const { t } = ctx;
  const info = METHODS[method];
  const code = order.vaNumber ?? '';
  const total = totalOf(order);
  const payTo =
    info.kind === 'qr' && qr
      ? html`<figure class="qr">
<img src="${qr.dataUrl}" width="${qr.sizePx}" height="${qr.sizePx}" alt="${t.qrAlt(formatRupiah(total))}">
<figcaption><a href="${qr.dataUrl}" download="qris-${order.platOrderNum}.png">${t.qrDownload}</a></figcaption>
</figure>`
      : copyable('pay-code', codeLabel(method, t), code, code, t);
  return html`<section class="card instructions" aria-labelledby="method-heading">
<h2 id="method-heading">${t.payWith(info.displayName)}</h2>
${payTo}
${copyable('pay-total', t.total, formatRupiah(total), String(total), t)}
<p class="exact">${t.transferExactly(formatRupiah(total))}</p>
${renderSteps(order, method, code, ctx)}
${renderChangeMethod(order, method, ctx)}
</section>`;
}
