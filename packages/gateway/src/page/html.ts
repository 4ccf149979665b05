/**
 * A tiny tagged-template HTML builder: every interpolated value is escaped unless it is already
 * `SafeHtml` (the result of another `html` template). There is deliberately no way to mark an
 * arbitrary string as safe except `trustedHtml`, which exists for constant markup only.
 *
 * Escaping alone does not make a URL safe in an `href`: use `safeHttpUrl` for any URL that came
 * from outside (it keeps only absolute http(s) URLs, so `javascript:` never reaches a link).
 */

const brand: unique symbol = Symbol('SafeHtml');

/** Markup that is safe to insert as is: built by `html`, so every interpolation was escaped. */
export interface SafeHtml {
  readonly [brand]: true;
  readonly value: string;
  toString(): string;
}

/** What may be interpolated: text (escaped), numbers, nothing, safe markup, or lists of these. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Escapes text for use in element content and in quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (char) => ESCAPES[char] ?? char);
}

function makeSafe(value: string): SafeHtml {
  return { [brand]: true, value, toString: () => value };
}

export function isSafeHtml(value: unknown): value is SafeHtml {
  return typeof value === 'object' && value !== null && (value as Partial<SafeHtml>)[brand] === true;
}

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false || value === true) return '';
  if (typeof value === 'number') return escapeHtml(String(value));
  if (typeof value === 'string') return escapeHtml(value);
  if (isSafeHtml(value)) return value.value;
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join('');
  // Anything else (a lookalike object, a value typed `any` upstream) is text.
  return escapeHtml(String(value));
}

/**
 * `html\`<p class="x">${text}</p>\`` -> SafeHtml with `text` escaped. Booleans and nullish values
 * render as nothing, so `${cond && html\`...\`}` works. Arrays are concatenated.
 */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i += 1) {
    out += render(values[i]) + (strings[i + 1] ?? '');
  }
  return makeSafe(out);
}

/** Constant markup written in this code base (never data). */
export function trustedHtml(markup: string): SafeHtml {
  return makeSafe(markup);
}

/**
 * The URL if it is an absolute http(s) URL, normalised by the URL parser; otherwise undefined.
 * Used for `redirectUrl` before it reaches a link or the client script.
 */
export function safeHttpUrl(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password) return undefined;
  return url.href;
}
