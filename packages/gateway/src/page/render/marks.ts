/**
 * Method marks: one small pictogram per kind of method, drawn for this project (no bank or wallet
 * logos, which belong to their owners and would need their permission). Inline SVG with
 * presentation attributes only, so the page's CSP (no inline style) is untouched; `currentColor`
 * follows the button's text colour. Decorative: the method's name is the button's text.
 */
import type { MethodKind } from '@tombolbayar/protocol';
import { trustedHtml, type SafeHtml } from '../html.ts';

const SHAPES: Readonly<Record<MethodKind, string>> = {
  // A bank building: pediment, four columns, base.
  'virtual-account':
    '<path d="M3 9.5 12 4l9 5.5"/><path d="M5 10v7M9.5 10v7M14.5 10v7M19 10v7"/><path d="M3 20h18"/>',
  // A QR code: three finder squares and a few modules.
  qr:
    '<rect x="3.5" y="3.5" width="6" height="6" rx="1"/><rect x="14.5" y="3.5" width="6" height="6" rx="1"/>' +
    '<rect x="3.5" y="14.5" width="6" height="6" rx="1"/><path d="M14.5 14.5h2v2h-2zM18.5 18.5h2v2h-2zM14.5 19.5h1M19.5 14.5h1"/>',
  // A wallet with its clasp.
  'e-wallet': '<rect x="3" y="6" width="18" height="13" rx="2.5"/><path d="M3 10h14"/><path d="M15 13.5h6v3h-6z"/>',
  // A shop front with an awning.
  retail: '<path d="M4 9h16l-1.5-4.5h-13z"/><path d="M5 9v11h14V9"/><path d="M10 20v-6h4v6"/>',
};

const marks = new Map<MethodKind, SafeHtml>();

/** The mark of a kind of method, as constant markup (built once). */
export function methodMark(kind: MethodKind): SafeHtml {
  let mark = marks.get(kind);
  if (!mark) {
    mark = trustedHtml(
      `<svg class="mark mark-${kind}" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linecap="round" stroke-linejoin="round">${SHAPES[kind]}</svg>`,
    );
    marks.set(kind, mark);
  }
  return mark;
}
