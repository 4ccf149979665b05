/** One order on the dashboard: its facts, the simulations, its timeline and every notification attempt. */
import { formatRupiah, METHOD_CODES } from '@tombolbayar/protocol';
import type { Order } from '../../domain/types.ts';
import type { Delivery } from '../../notify/deliveries.ts';
import { html, type SafeHtml } from '../../page/html.ts';
import { dashboardUrls, when } from './document.ts';
import type { DashboardMessages } from './messages.ts';
import { orderTimeline, type TimelineEvent } from './timeline.ts';

function fact(term: string, value: SafeHtml | string | null): SafeHtml {
  return html`<div><dt>${term}</dt><dd>${value ?? '-'}</dd></div>`;
}

function actions(t: DashboardMessages, order: Order): SafeHtml {
  if (order.status !== 'PENDING') return html`<p>${t.nothingToSimulate(order.status)}</p>`;
  const method =
    order.method === null
      ? html`<label for="pay-method">${t.methodToPay}</label>
<select id="pay-method" name="method" required>${METHOD_CODES.map((code) => html`<option value="${code}">${code}</option>`)}</select>`
      : '';
  return html`<div class="sandbox-actions">
<form method="post" action="${dashboardUrls.orderAction(order.platOrderNum, 'pay')}" class="dash-pay">${method}<button type="submit">${t.simulatePay}</button></form>
<form method="post" action="${dashboardUrls.orderAction(order.platOrderNum, 'expire')}"><button type="submit">${t.expireNow}</button></form>
<form method="post" action="${dashboardUrls.orderAction(order.platOrderNum, 'fail')}"><button type="submit">${t.fail}</button></form>
</div>`;
}

function timelineText(t: DashboardMessages, event: TimelineEvent): string {
  const words = t.timeline;
  switch (event.kind) {
    case 'created':
      return words.created(formatRupiah(event.amount));
    case 'closed':
      return words.closed(event.status);
    case 'queued':
      return words.queued(event.deliveryId, event.event);
    case 'attempt': {
      const answer = event.httpStatus === null ? words.noAnswer(event.errorClass ?? 'error') : `HTTP ${event.httpStatus}`;
      return words.attempt(event.number, event.deliveryId, answer, event.acknowledged, event.latencyMs);
    }
    case 'delivered':
      return words.delivered(event.deliveryId);
  }
}

function deliverySection(t: DashboardMessages, delivery: Delivery): SafeHtml {
  const c = t.attemptColumns;
  const rows = delivery.attempts.map(
    (attempt) => html`<tr>
<th scope="row">${attempt.number}</th>
<td>${when(attempt.attemptedAt)}</td>
<td>${attempt.httpStatus ?? '-'}</td>
<td>${attempt.acknowledged ? t.yes : t.no}</td>
<td>${attempt.latencyMs} ms</td>
<td>${attempt.errorClass ?? '-'}${attempt.detail ? html`<br><span class="muted">${attempt.detail}</span>` : ''}</td>
<td><code class="dash-body">${attempt.bodyExcerpt || t.emptyBody}</code></td>
</tr>`,
  );
  const label = t.attemptsOf(delivery.id);
  const attempts =
    delivery.attempts.length === 0
      ? html`<p>${t.noAttemptYet}${delivery.nextAttemptAt === null ? '' : html` ${t.nextAt(when(delivery.nextAttemptAt))}`}</p>`
      : html`<div class="dash-scroll" tabindex="0" role="region" aria-label="${label}"><table>
<caption>${label}</caption>
<thead><tr><th scope="col">#</th><th scope="col">${c.at}</th><th scope="col">${c.httpStatus}</th><th scope="col">${c.acknowledged}</th><th scope="col">${c.latency}</th><th scope="col">${c.error}</th><th scope="col">${c.body}</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`;
  return html`<article class="card dash-delivery" aria-labelledby="delivery-${delivery.id}">
<h3 id="delivery-${delivery.id}">${t.notificationHeading(delivery.event, delivery.id, delivery.state)}</h3>
<dl class="dash-facts">
${fact(t.sentTo, html`<span class="mono">${delivery.url}</span>`)}
${fact(t.attemptsCount, String(delivery.attemptCount))}
${fact(t.fault, delivery.fault)}
${fact(t.nextAttempt, delivery.nextAttemptAt === null ? null : when(delivery.nextAttemptAt))}
</dl>
${attempts}
<details><summary>${t.signedFields}</summary><pre class="dash-body">${JSON.stringify(delivery.fields, null, 2)}</pre></details>
<form method="post" action="${dashboardUrls.resend(delivery.id)}"><button type="submit">${t.resend}</button></form>
</article>`;
}

export function renderOrder(t: DashboardMessages, order: Order, deliveries: readonly Delivery[], merchantLabel: string): SafeHtml {
  const timeline = orderTimeline(order, deliveries).map((event) => html`<li><span class="mono">${when(event.at)}</span> ${timelineText(t, event)}</li>`);
  const f = t.facts;
  const c = t.columns;
  return html`<h1>${t.orderHeading(order.orderNum)}</h1>
<section class="card" aria-labelledby="facts-heading">
<h2 id="facts-heading"><span class="dash-status dash-status-${order.status.toLowerCase()}">${order.status}</span> ${formatRupiah(order.payMoney)}</h2>
<dl class="dash-facts">
${fact(c.merchant, merchantLabel)}
${fact(f.platOrderNum, html`<span class="mono">${order.platOrderNum}</span>`)}
${fact(f.kind, order.kind === 'va' ? f.kindVa : f.kindLink)}
${fact(c.method, order.method)}
${fact(c.vaNumber, order.vaNumber === null ? null : html`<span class="mono">${order.vaNumber}</span>`)}
${fact(f.fee, order.payFee === null ? null : formatRupiah(order.payFee))}
${fact(f.product, order.productDetail)}
${fact(f.customer, `${order.name} <${order.email}>`)}
${fact(c.created, when(order.createdAt))}
${fact(f.expires, when(order.expiresAt))}
${fact(f.notifyUrl, html`<span class="mono">${order.notifyUrl}</span>`)}
</dl>
<p><a href="${dashboardUrls.hostedPage(order.platOrderNum)}">${t.openHostedPage}</a></p>
</section>
<section class="card sandbox" aria-labelledby="simulate-heading">
<h2 id="simulate-heading">${t.simulateHeading}</h2>
${actions(t, order)}
</section>
<section aria-labelledby="timeline-heading">
<h2 id="timeline-heading">${t.timelineHeading}</h2>
<ol class="dash-timeline">${timeline}</ol>
</section>
<section aria-labelledby="deliveries-heading">
<h2 id="deliveries-heading">${t.notificationsHeading(deliveries.length)}</h2>
${deliveries.length === 0 ? html`<p>${t.noNotifications}</p>` : deliveries.map((delivery) => deliverySection(t, delivery))}
</section>`;
}
