/** The dashboard's front page: find an order, pay a number, move the clock, orders, merchants. */
import { formatRupiah } from '@tombolbayar/protocol';
import type { Merchant, Order } from '../../domain/types.ts';
import { html, type SafeHtml } from '../../page/html.ts';
import { MAX_LOOKUP_TERM } from '../lookup.ts';
import { dashboardUrls, when } from './document.ts';

export interface HomeView {
  /** The number searched for, if any (then `orders` are its matches). */
  readonly number: string | undefined;
  readonly orders: readonly Order[];
  readonly merchants: readonly Merchant[];
  readonly clock: { readonly now: number; readonly offsetMinutes: number };
}

function ordersTable(orders: readonly Order[], caption: string): SafeHtml {
  const rows = orders.map(
    (order) => html`<tr>
<th scope="row"><a href="${dashboardUrls.order(order.platOrderNum)}">${order.orderNum}</a></th>
<td>${order.merchantCode}</td>
<td><span class="dash-status dash-status-${order.status.toLowerCase()}">${order.status}</span></td>
<td>${order.method ?? '-'}</td>
<td class="mono">${order.vaNumber ?? '-'}</td>
<td>${formatRupiah(order.payMoney)}</td>
<td>${when(order.createdAt)}</td>
</tr>`,
  );
  return html`<div class="dash-scroll" tabindex="0" role="region" aria-label="${caption}">
<table>
<caption>${caption}</caption>
<thead><tr><th scope="col">Order number</th><th scope="col">Merchant</th><th scope="col">Status</th><th scope="col">Method</th><th scope="col">VA number / code</th><th scope="col">Amount</th><th scope="col">Created</th></tr></thead>
<tbody>${rows}</tbody>
</table>
</div>`;
}

export function renderHome(view: HomeView): SafeHtml {
  const { number, orders, merchants, clock } = view;
  const caption = number === undefined ? `Newest orders (${orders.length})` : `Orders matching ${number} (${orders.length})`;
  const list =
    orders.length === 0
      ? html`<p>${number === undefined ? 'No orders yet: create one from your shop.' : 'No order has this number.'}</p>`
      : ordersTable(orders, caption);
  const merchantItems = merchants.map(
    (merchant) => html`<li><a href="${dashboardUrls.merchant(merchant.merchantCode)}">${merchant.merchantCode}</a>${merchant.name ? html` <span class="muted">${merchant.name}</span>` : ''}</li>`,
  );
  return html`<h1>Sandbox dashboard</h1>
<div class="dash-grid">
<section class="card" aria-labelledby="find-heading">
<h2 id="find-heading">Find an order</h2>
<form method="get" action="${dashboardUrls.home()}" role="search">
<label for="find-number">Order number, platform number or VA number</label>
<div class="dash-row">
<input id="find-number" name="number" type="search" required maxlength="${MAX_LOOKUP_TERM}" autocomplete="off" spellcheck="false" value="${number ?? ''}">
<button type="submit">Find</button>
</div>
</form>
</section>
<section class="card" aria-labelledby="pay-heading">
<h2 id="pay-heading">Pay a VA or payment code</h2>
<form method="post" action="${dashboardUrls.payNumber}">
<label for="pay-number">VA number or payment code</label>
<div class="dash-row">
<input id="pay-number" name="number" type="text" inputmode="numeric" required maxlength="${MAX_LOOKUP_TERM}" autocomplete="off" spellcheck="false">
<button type="submit">Pay</button>
</div>
</form>
</section>
<section class="card" aria-labelledby="clock-heading">
<h2 id="clock-heading">Clock</h2>
<p>Gateway time: <strong>${when(clock.now)}</strong> (${clock.offsetMinutes === 0 ? 'real time' : `${clock.offsetMinutes} minutes ahead`})</p>
<form method="post" action="${dashboardUrls.clock}">
<label for="clock-minutes">Advance by minutes</label>
<div class="dash-row">
<input id="clock-minutes" name="minutes" type="number" min="1" step="1" required value="60">
<button type="submit">Advance</button>
</div>
</form>
</section>
</div>
<section aria-labelledby="orders-heading">
<h2 id="orders-heading">Orders</h2>
${list}
</section>
<section aria-labelledby="merchants-heading">
<h2 id="merchants-heading">Merchants</h2>
${merchants.length === 0 ? html`<p>No merchants yet.</p>` : html`<ul>${merchantItems}</ul>`}
</section>`;
}
