/**
 * The method picker: one real form, one submit button per method, grouped by kind. The methods
 * and their order come from the protocol's table; there is no second list here.
 */
import { METHOD_KINDS, methodsOfKind } from '@tombolbayar/protocol';
import type { PageOrder } from '../deps.ts';
import { html, type SafeHtml } from '../html.ts';
import type { RenderContext } from './context.ts';
import { methodMark } from './marks.ts';

export function renderPicker(order: PageOrder, ctx: RenderContext): SafeHtml {
  const { t } = ctx;
  const groups = METHOD_KINDS.map((kind) => {
    const methods = methodsOfKind(kind);
    if (methods.length === 0) return '';
    const hintId = `kind-${kind}-hint`;
    const buttons = methods.map(
      (method) =>
        html`<li><button type="submit" name="method" value="${method.code}" class="method method-${method.kind}" aria-describedby="${hintId}">${methodMark(method.kind)}<span>${method.displayName}</span></button></li>`,
    );
    return html`<fieldset class="kind">
<legend>${t.kinds[kind].name}</legend>
<p class="muted" id="${hintId}">${t.kinds[kind].hint}</p>
<ul class="methods" role="list">${buttons}</ul>
</fieldset>`;
  });
  return html`<section class="card picker" aria-labelledby="picker-heading">
<h2 id="picker-heading">${t.chooseMethod}</h2>
<form method="post" action="${ctx.urls.chooseMethod}" class="js-once">
<input type="hidden" name="orderNum" value="${order.platOrderNum}">
<input type="hidden" name="lang" value="${ctx.locale}">
${groups}
</form>
</section>`;
}
