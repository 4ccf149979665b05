/** A merchant's branding form: display name, logo and accent colour, with a preview. */
import type { Merchant } from '../../domain/types.ts';
import { html, type SafeHtml } from '../../page/html.ts';
import type { MerchantBranding } from '../../store/branding.ts';
import { MAX_DISPLAY_NAME } from '../branding.ts';
import { dashboardUrls, swatch } from './document.ts';

/** What the form shows: saved values, or what was typed when it was refused. */
export interface BrandingFormValues {
  readonly displayName: string;
  readonly logo: string;
  readonly accentColor: string;
}

export const formValuesOf = (branding: MerchantBranding): BrandingFormValues => ({
  displayName: branding.displayName ?? '',
  logo: branding.logo ?? '',
  accentColor: branding.accentColor ?? '',
});

export function renderMerchant(merchant: Merchant, saved: MerchantBranding, values: BrandingFormValues): SafeHtml {
  const name = saved.displayName ?? merchant.name ?? merchant.merchantCode;
  const preview = html`<div class="dash-brand">
${saved.logo ? html`<img class="dash-logo" src="${saved.logo}" alt="Logo of ${name}" width="48" height="48">` : ''}
<strong>${name}</strong>
${saved.accentColor ? html`${swatch(saved.accentColor, `Accent colour ${saved.accentColor}`)} <span class="mono">${saved.accentColor}</span>` : ''}
</div>`;
  return html`<h1>Merchant ${merchant.merchantCode}</h1>
<section class="card" aria-labelledby="preview-heading">
<h2 id="preview-heading">How it looks</h2>
${preview}
</section>
<section class="card" aria-labelledby="brand-heading">
<h2 id="brand-heading">Name, logo and colour</h2>
<form method="post" action="${dashboardUrls.merchant(merchant.merchantCode)}" class="dash-form">
<label for="brand-name">Display name</label>
<input id="brand-name" name="displayName" type="text" maxlength="${MAX_DISPLAY_NAME}" autocomplete="organization" value="${values.displayName}">
<label for="brand-logo">Logo: an https URL, or a data:image/png;base64,… URL (PNG, JPEG, GIF or WebP, at most 64 KiB)</label>
<textarea id="brand-logo" name="logo" rows="3" spellcheck="false">${values.logo}</textarea>
<label for="brand-color">Accent colour (#rrggbb)</label>
<input id="brand-color" name="accentColor" type="text" pattern="#[0-9a-fA-F]{6}" maxlength="7" spellcheck="false" autocomplete="off" value="${values.accentColor}">
<p class="muted">Leave a field empty to unset it.</p>
<button type="submit">Save</button>
</form>
</section>`;
}
