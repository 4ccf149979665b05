/**
 * The sandbox controls: one form, three buttons, only rendered in sandbox mode and while the order
 * is pending. "Simulate payment" appears once a method is fixed: a customer cannot pay before
 * choosing how, and the gateway refuses a payment without a method.
 */
import type { PageOrder } from '../deps.ts';
import { html, type SafeHtml } from '../html.ts';
import type { RenderContext } from './context.ts';

export function renderSandboxControls(order: PageOrder, ctx: RenderContext): SafeHtml {
  if (!ctx.sandbox || order.status !== 'PENDING') return html``;
  const { t } = ctx;
  return html`<section class="card sandbox" aria-labelledby="sandbox-heading">
<h2 id="sandbox-heading">${t.sandboxHeading}</h2>
<p class="muted">${t.sandboxHint}</p>
${order.method === null ? html`<p class="muted">${t.sandboxChooseFirst}</p>` : ''}
<form method="post" action="${ctx.urls.sandbox}" class="sandbox-actions js-once">
<input type="hidden" name="orderNum" value="${order.platOrderNum}">
<input type="hidden" name="lang" value="${ctx.locale}">
${order.method === null ? '' : html`<button type="submit" name="action" value="pay">${t.simulatePay}</button>`}
<button type="submit" name="action" value="expire">${t.simulateExpire}</button>
<button type="submit" name="action" value="fail">${t.simulateFail}</button>
</form>
</section>`;
}
