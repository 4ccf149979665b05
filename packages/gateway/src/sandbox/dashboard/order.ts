/** One order on the dashboard: its facts, the simulations, its timeline and every notification attempt. */
import { formatRupiah, METHOD_CODES } from '@tombolbayar/protocol';
import type { Order } from '../../domain/types.ts';
import type { Delivery } from '../../notify/deliveries.ts';
import { html, type SafeHtml } from '../../page/html.ts';
import { dashboardUrls, when } from './document.ts';
import { orderTimeline, type TimelineEvent } from './timeline.ts';

function fact(term: string, value: SafeHtml | string | null): SafeHtml {
  return html`<div><dt>${term}</dt><dd>${value ?? '-'}</dd></div>`;
}

function actions(order: Order): SafeHtml {
  if (order.status !== 'PENDING') return html`<p>The order is ${order.status}: nothing left to simulate.</p>`;
  const method =
    order.method === null
      ? html`<label for="pay-method">Method to pay with (the order has none yet)</label>
<select id="pay-method" name="method" required>${METHOD_CODES.map((code) => html`<option value="${code}">${code}</option>`)}</select>`
      : '';
  return html`<div class="sandbox-actions">
<form method="post" action="${dashboardUrls.orderAction(order.platOrderNum, 'pay')}" class="dash-pay">${method}<button type="submit">Simulate payment</button></form>
<form method="post" action="${dashboardUrls.orderAction(order.platOrderNum, 'expire')}"><button type="submit">Expire now</button></form>
<form method="post" action="${dashboardUrls.orderAction(order.platOrderNum, 'fail')}"><button type="submit">Fail</button></form>
</div>`;
}

function timelineText(event: TimelineEvent): string {
  switch (event.kind) {
    case 'created':
      return `Created for ${formatRupiah(event.amount)}`;
    case 'closed':
      return `Became ${event.status}`;
    case 'queued':
      return `Notification ${event.deliveryId} (${event.event}) queued`;
    case 'attempt': {
      const answer = event.httpStatus === null ? `no answer (${event.errorClass ?? 'error'})` : `HTTP ${event.httpStatus}`;
      const verdict = event.acknowledged ? 'acknowledged' : 'not acknowledged';
      return `Attempt ${event.number} of ${event.deliveryId}: ${answer}, ${verdict}, ${event.latencyMs} ms`;
    }
    case 'delivered':
      return `Notification ${event.deliveryId} delivered`;
  }
}

function deliverySection(delivery: Delivery): SafeHtml {
  const rows = delivery.attempts.map(
    (attempt) => html`<tr>
<th scope="row">${attempt.number}</th>
<td>${when(attempt.attemptedAt)}</td>
<td>${attempt.httpStatus ?? '-'}</td>
<td>${attempt.acknowledged ? 'yes' : 'no'}</td>
<td>${attempt.latencyMs} ms</td>
<td>${attempt.errorClass ?? '-'}${attempt.detail ? html`<br><span class="muted">${attempt.detail}</span>` : ''}</td>
<td><code class="dash-body">${attempt.bodyExcerpt || '(empty)'}</code></td>
</tr>`,
  );
  const label = `Attempts of ${delivery.id}`;
  const attempts =
    delivery.attempts.length === 0
      ? html`<p>No attempt yet${delivery.nextAttemptAt === null ? '' : html`; next at ${when(delivery.nextAttemptAt)}`}.</p>`
      : html`<div class="dash-scroll" tabindex="0" role="region" aria-label="${label}"><table>
<caption>${label}</caption>
<thead><tr><th scope="col">#</th><th scope="col">At</th><th scope="col">HTTP status</th><th scope="col">Acknowledged</th><th scope="col">Latency</th><th scope="col">Error</th><th scope="col">Answer body</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`;
  return html`<article class="card dash-delivery" aria-labelledby="delivery-${delivery.id}">
<h3 id="delivery-${delivery.id}">${delivery.event} notification <span class="mono">${delivery.id}</span>: ${delivery.state}</h3>
<dl class="dash-facts">
${fact('Sent to', html`<span class="mono">${delivery.url}</span>`)}
${fact('Attempts', String(delivery.attemptCount))}
${fact('Fault', delivery.fault)}
${fact('Next attempt', delivery.nextAttemptAt === null ? null : when(delivery.nextAttemptAt))}
</dl>
${attempts}
<details><summary>Signed fields sent</summary><pre class="dash-body">${JSON.stringify(delivery.fields, null, 2)}</pre></details>
<form method="post" action="${dashboardUrls.resend(delivery.id)}"><button type="submit">Resend</button></form>
</article>`;
}

export function renderOrder(order: Order, deliveries: readonly Delivery[], merchantLabel: string): SafeHtml {
  const timeline = orderTimeline(order, deliveries).map((event) => html`<li><span class="mono">${when(event.at)}</span> ${timelineText(event)}</li>`);
  return html`<h1>Order ${order.orderNum}</h1>
<section class="card" aria-labelledby="facts-heading">
<h2 id="facts-heading"><span class="dash-status dash-status-${order.status.toLowerCase()}">${order.status}</span> ${formatRupiah(order.payMoney)}</h2>
<dl class="dash-facts">
${fact('Merchant', merchantLabel)}
${fact('Platform number', html`<span class="mono">${order.platOrderNum}</span>`)}
${fact('Kind', order.kind === 'va' ? 'VA order (/gateway/pay)' : 'payment link (/gateway/prepaidOrder)')}
${fact('Method', order.method)}
${fact('VA number / payment code', order.vaNumber === null ? null : html`<span class="mono">${order.vaNumber}</span>`)}
${fact('Fee', order.payFee === null ? null : formatRupiah(order.payFee))}
${fact('Product', order.productDetail)}
${fact('Customer', `${order.name} <${order.email}>`)}
${fact('Created', when(order.createdAt))}
${fact('Expires', when(order.expiresAt))}
${fact('Notify URL', html`<span class="mono">${order.notifyUrl}</span>`)}
</dl>
<p><a href="${dashboardUrls.hostedPage(order.platOrderNum)}">Open the hosted payment page</a></p>
</section>
<section class="card sandbox" aria-labelledby="simulate-heading">
<h2 id="simulate-heading">Simulate</h2>
${actions(order)}
</section>
<section aria-labelledby="timeline-heading">
<h2 id="timeline-heading">Timeline</h2>
<ol class="dash-timeline">${timeline}</ol>
</section>
<section aria-labelledby="deliveries-heading">
<h2 id="deliveries-heading">Notifications (${deliveries.length})</h2>
${deliveries.length === 0 ? html`<p>None yet: the order is notified when it leaves PENDING.</p>` : deliveries.map(deliverySection)}
</section>`;
}
