/**
 * A merchant's page: the branding form (display name, logo, accent colour, support contact) with a
 * preview, and which final states it is notified of.
 */
import { NOTIFICATION_KINDS } from '../../domain/notify-kinds.ts';
import type { Merchant } from '../../domain/types.ts';
import { parseHexColor, readableAccent, toHex } from '../../page/brand.ts';
import { html, type SafeHtml } from '../../page/html.ts';
import type { MerchantBranding } from '../../store/branding.ts';
import { MAX_DISPLAY_NAME, MAX_SUPPORT_CONTACT } from '../branding.ts';
import { dashboardUrls, swatch } from './document.ts';
import type { DashboardMessages } from './messages.ts';

/** What the form shows: saved values, or what was typed when it was refused. */
export interface BrandingFormValues {
  readonly displayName: string;
  readonly logo: string;
  readonly accentColor: string;
  readonly supportContact: string;
}

export const formValuesOf = (branding: MerchantBranding): BrandingFormValues => ({
  displayName: branding.displayName ?? '',
  logo: branding.logo ?? '',
  accentColor: branding.accentColor ?? '',
  supportContact: branding.supportContact ?? '',
});

/**
 * When the hosted page cannot use the colour as chosen for text (links, buttons, focus rings), the
 * shade it uses instead (`readableAccent`), so the merchant is not surprised by it.
 */
function adjusted(t: DashboardMessages, color: string | null): SafeHtml | '' {
  const rgb = color ? parseHexColor(color) : undefined;
  if (!rgb) return '';
  const used = toHex(readableAccent(rgb));
  if (used === toHex(rgb)) return '';
  return html`<p class="muted" id="accent-adjusted">${swatch(used, t.accentAlt(used))} ${t.accentAdjusted(used, toHex(rgb))}</p>`;
}

export function renderMerchant(t: DashboardMessages, merchant: Merchant, saved: MerchantBranding, values: BrandingFormValues): SafeHtml {
  const name = saved.displayName ?? merchant.name ?? merchant.merchantCode;
  const preview = html`<div class="dash-brand">
${saved.logo ? html`<img class="dash-logo" src="${saved.logo}" alt="${t.logoAlt(name)}" width="48" height="48">` : ''}
<strong>${name}</strong>
${saved.accentColor ? html`${swatch(saved.accentColor, t.accentAlt(saved.accentColor))} <span class="mono">${saved.accentColor}</span>` : ''}
${saved.supportContact ? html`<span>${saved.supportContact}</span>` : ''}
</div>
${adjusted(t, saved.accentColor)}`;
  return html`<h1>${t.merchantHeading(merchant.merchantCode)}</h1>
<section class="card" aria-labelledby="preview-heading">
<h2 id="preview-heading">${t.previewHeading}</h2>
${preview}
</section>
<section class="card" aria-labelledby="brand-heading">
<h2 id="brand-heading">${t.brandingHeading}</h2>
<form method="post" action="${dashboardUrls.merchant(merchant.merchantCode)}" class="dash-form">
<label for="brand-name">${t.displayName}</label>
<input id="brand-name" name="displayName" type="text" maxlength="${MAX_DISPLAY_NAME}" autocomplete="organization" value="${values.displayName}">
<label for="brand-logo">${t.logo}</label>
<textarea id="brand-logo" name="logo" rows="3" spellcheck="false">${values.logo}</textarea>
<label for="brand-color">${t.accentColor}</label>
<input id="brand-color" name="accentColor" type="text" pattern="#[0-9a-fA-F]{6}" maxlength="7" spellcheck="false" autocomplete="off" value="${values.accentColor}">
<label for="brand-support">${t.supportContact}</label>
<input id="brand-support" name="supportContact" type="text" maxlength="${MAX_SUPPORT_CONTACT}" spellcheck="false" autocomplete="off" value="${values.supportContact}">
<p class="muted">${t.emptyUnsets}</p>
<button type="submit">${t.save}</button>
</form>
</section>
${notifyForm(t, merchant)}`;
}

/** Paid is always sent (a checked, disabled box, and a hidden field so the form says so too). */
function notifyForm(t: DashboardMessages, merchant: Merchant): SafeHtml {
  const boxes = NOTIFICATION_KINDS.map((kind) => {
    const always = kind === 'paid';
    return html`<label class="dash-check"><input type="checkbox" name="notify" value="${kind}"${merchant.notify.includes(kind) ? html` checked` : ''}${always ? html` disabled` : ''}> ${t.notifyKinds[kind]}</label>`;
  });
  return html`<section class="card" aria-labelledby="notify-heading">
<h2 id="notify-heading">${t.notifyHeading}</h2>
<form method="post" action="${dashboardUrls.merchantNotify(merchant.merchantCode)}" class="dash-form">
<input type="hidden" name="notify" value="paid">
<fieldset><legend class="muted">${t.notifyHelp}</legend>
${boxes}
</fieldset>
<button type="submit">${t.saveNotify}</button>
</form>
</section>`;
}
