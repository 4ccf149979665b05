/**
 * The merchant's accent colour on a page whose CSP allows no inline style: the colour is served as
 * a tiny stylesheet from the page's own origin (`/pay/assets/brand.css?accent=rrggbb`), so
 * `style-src 'self'` stays as it is. A colour is only ever a validated `#rrggbb`.
 *
 * Merchants pick colours for their brand, not for contrast: a light yellow would make unreadable
 * links and buttons. So the page uses the brand colour as given only where it is decoration (the
 * stripe above the header), and a darker shade of it, with at least 4.5:1 against every
 * background it is used on (white and the page's `#f3f5f8`; WCAG AA for text), for links, buttons,
 * method marks and focus rings. Pure functions, table-tested.
 */

export type Rgb = readonly [number, number, number];

const HEX = /^#?([0-9a-fA-F]{6})$/;

/** `#rrggbb` or `rrggbb` (any case) as RGB, or undefined for anything else. */
export function parseHexColor(value: unknown): Rgb | undefined {
  if (typeof value !== 'string') return undefined;
  const match = HEX.exec(value);
  if (!match) return undefined;
  const n = Number.parseInt(match[1]!, 16);
  return [(n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
}

export function toHex(rgb: Rgb): string {
  return `#${rgb.map((channel) => channel.toString(16).padStart(2, '0')).join('')}`;
}

/** WCAG 2 relative luminance. */
export function relativeLuminance(rgb: Rgb): number {
  const [r, g, b] = rgb.map((channel) => {
    const c = channel / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio of two colours (1 to 21). */
export function contrastRatio(a: Rgb, b: Rgb): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

const WHITE: Rgb = [255, 255, 255];
/** `--page` of page.css: the page's own background, behind links, method marks and focus rings. */
const PAGE: Rgb = [0xf3, 0xf5, 0xf8];
/**
 * Every background the accent is drawn on (as text, a mark or a focus ring) or under (white text
 * on an accent button): `--surface` (white) and `--page`. The accent must read on each of them.
 */
export const ACCENT_BACKGROUNDS: readonly Rgb[] = [WHITE, PAGE];
/** A little above 4.5, so rounding in a checker never puts it under. */
export const TEXT_CONTRAST = 4.6;

/**
 * The colour itself when it reads on every one of `backgrounds`, else the lightest darker shade
 * of it (every channel scaled by one factor: the same hue) that does.
 */
export function readableAccent(rgb: Rgb, backgrounds: readonly Rgb[] = ACCENT_BACKGROUNDS): Rgb {
  for (let step = 0; step <= 100; step += 1) {
    const scale = 1 - step / 100;
    const shade = rgb.map((channel) => Math.round(channel * scale)) as unknown as Rgb;
    if (backgrounds.every((background) => contrastRatio(shade, background) >= TEXT_CONTRAST)) return shade;
  }
  return [0, 0, 0];
}

/**
 * The stylesheet for one accent colour. `--accent` (links, buttons, focus) reads on white and on
 * the page's background, and carries white text; `--brand` is the colour as the merchant chose it, for decoration only.
 */
export function brandStylesheet(rgb: Rgb): string {
  const accent = toHex(readableAccent(rgb));
  return `:root{--brand:${toHex(rgb)};--accent:${accent};--accent-ink:#ffffff;--focus:${accent}}\n`;
}

/** The query value the stylesheet route takes: `rrggbb` in lower case (cache-friendly, no `#` to encode). */
export function accentParam(color: string): string | undefined {
  const rgb = parseHexColor(color);
  return rgb ? toHex(rgb).slice(1) : undefined;
}

/**
 * The origin a logo URL is fetched from, for the page's `img-src`; undefined for a data URL (the
 * policy allows those already) or anything that could not be a CSP source expression.
 */
export function logoOrigin(logo: string): string | undefined {
  if (logo.startsWith('data:')) return undefined;
  try {
    const url = new URL(logo);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
    return /^[a-z0-9.:[\]/-]+$/i.test(url.origin) ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
