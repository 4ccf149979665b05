/**
 * The words and look of the return pages (`GET /return`): what the customer reads for a moment
 * in the popup, or on the way back to the shop in the full-page flow. It says the order's real
 * outcome as the plug-in knows it (never "finished" for an expired order), in the customer's
 * language, styled by one small sheet the CSP allows by its hash (the page still runs no inline
 * script and loads nothing else).
 */
import { createHash } from 'node:crypto';
import { formatRupiah } from '@tombolbayar/protocol/formats';
import Negotiator from 'negotiator';
import type { CoreRequest } from '../http/context.ts';

/** The languages the return page speaks; the element's `lang` in the create request is one of them. */
export const RETURN_LOCALES = ['en', 'id'] as const;
export type ReturnLocale = (typeof RETURN_LOCALES)[number];
/**
 * `pending`: a method was chosen (or the gateway could not say whether one was): the payment may
 * still arrive. `not_started`: the gateway confirmed no method was chosen ("back to the shop
 * without paying"): nothing can be paid without the payment page.
 */
export type ReturnOutcome = 'paid' | 'pending' | 'not_started' | 'expired' | 'failed' | 'not_found';

interface Words {
  readonly title: string;
  readonly body: string;
}

/** Every text of the page, per locale: native Indonesian, not a word-for-word translation. */
const WORDS: Record<ReturnLocale, Record<ReturnOutcome, Words> & { back: string; amount: string; fee: string; total: string; order: string }> = {
  en: {
    paid: { title: 'Payment received', body: 'Thank you! You can go back to the shop.' },
    pending: { title: 'Payment not confirmed yet', body: 'If you have paid, there is nothing more to do: the shop shows it once the payment arrives.' },
    not_started: { title: 'Payment not started', body: 'Nothing was charged. You can pay from the shop whenever you are ready.' },
    expired: { title: 'The time to pay has run out', body: 'Nothing was charged. You can start again from the shop.' },
    failed: { title: 'The payment did not go through', body: 'Nothing was charged. You can try again from the shop.' },
    not_found: { title: 'Payment not found', body: 'This return link does not belong to a payment of this shop.' },
    back: 'Back to the shop',
    amount: 'Amount',
    fee: 'Fee',
    total: 'Total to pay',
    order: 'Order number',
  },
  id: {
    paid: { title: 'Pembayaran diterima', body: 'Terima kasih! Silakan kembali ke toko.' },
    pending: { title: 'Pembayaran belum terkonfirmasi', body: 'Jika Anda sudah membayar, tidak perlu melakukan apa pun lagi: toko akan menampilkannya setelah pembayaran masuk.' },
    not_started: { title: 'Pembayaran belum dimulai', body: 'Tidak ada dana yang ditarik. Anda dapat membayar dari toko kapan saja.' },
    expired: { title: 'Batas waktu pembayaran sudah lewat', body: 'Tidak ada dana yang ditarik. Anda dapat memulai lagi dari toko.' },
    failed: { title: 'Pembayaran tidak berhasil', body: 'Tidak ada dana yang ditarik. Anda dapat mencoba lagi dari toko.' },
    not_found: { title: 'Pembayaran tidak ditemukan', body: 'Tautan ini bukan milik pembayaran di toko ini.' },
    back: 'Kembali ke toko',
    amount: 'Jumlah',
    fee: 'Biaya',
    total: 'Total yang dibayar',
    order: 'Nomor pesanan',
  },
};

/**
 * The page's language: `?lang=` (the element's locale, carried in the order's `redirectUrl` from
 * its create request), else the browser's `Accept-Language`, else English.
 */
export function returnLocale(request: CoreRequest, url: URL): ReturnLocale {
  const asked = url.searchParams.getAll('lang').length === 1 ? url.searchParams.get('lang')! : '';
  if (/^(id|in)\b/i.test(asked)) return 'id';
  if (/^en\b/i.test(asked)) return 'en';
  // What Express's req.acceptsLanguages('en', 'id') decides (the same negotiator).
  const acceptLanguage = request.headers.get('accept-language');
  if (acceptLanguage === null) return 'en';
  return new Negotiator({ headers: { 'accept-language': acceptLanguage } }).language(['en', 'id']) === 'id' ? 'id' : 'en';
}

/** The one style sheet, allowed by its hash: no `unsafe-inline`, nothing fetched. */
const STYLE = `body{margin:0;font:1rem/1.5 system-ui,sans-serif;color:#1a1a1a;background:#f5f6f8}main{box-sizing:border-box;max-width:28rem;margin:12vh auto;padding:1.5rem;background:#fff;border-radius:.75rem;box-shadow:0 1px 4px #0002}h1{font-size:1.4rem;margin:0 0 .5rem}dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:1rem 0}dt{color:#555}dd{margin:0;font-variant-numeric:tabular-nums}a{display:inline-flex;align-items:center;min-height:44px;padding:0 1.25rem;border-radius:.5rem;background:#0b5fff;color:#fff;font-weight:600;text-decoration:none}a:focus-visible{outline:3px solid #0b5fff;outline-offset:2px}[data-outcome=paid] h1{color:#0a7a32}[data-outcome=expired] h1,[data-outcome=failed] h1{color:#b3261e}@media (max-width:30rem){main{margin:0;min-height:100vh;border-radius:0;box-shadow:none}}`;

/** No inline script, only the sheet above, no framing, no forms, no base-URL tricks. */
export const RETURN_CSP = `default-src 'none'; script-src 'self'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/** For text and double-quoted attribute values: the five characters that could end either. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

export interface ReturnPageInput {
  readonly locale: ReturnLocale;
  readonly outcome: ReturnOutcome;
  readonly orderNum?: string;
  readonly payMoney?: string;
  /** The chosen method's fee (digits), once known: the page then shows it apart and the total. */
  readonly payFee?: string | null;
  /** The "Back to the shop" link (`/return/continue`), absent on the not-found page. */
  readonly continueUrl?: string;
  /** `data-*` attributes for the return script. */
  readonly data?: Record<string, string>;
  readonly scriptSrc?: string;
}

/**
 * The amount lines: with the method's fee known, the amount, the fee apart and the total the
 * gateway accepts (`payMoney + payFee`, what a VA transfer must be exactly); without, the amount.
 */
function amountFacts(words: { amount: string; fee: string; total: string }, payMoney: string, payFee: string | null | undefined): string {
  const line = (term: string, value: number | string, id = '') => `<dt>${term}</dt><dd${id}>${escapeHtml(formatRupiah(value))}</dd>`;
  if (!payFee) return line(words.amount, payMoney, ' id="tombolbayar-total"');
  return `${line(words.amount, payMoney)}${line(words.fee, payFee)}${line(words.total, Number(payMoney) + Number(payFee), ' id="tombolbayar-total"')}`;
}

/** The whole page; every value written into it goes through `escapeHtml`. */
export function returnPage(input: ReturnPageInput): string {
  const words = WORDS[input.locale];
  const { title, body } = words[input.outcome];
  const attributes = Object.entries({ outcome: input.outcome, ...input.data })
    .map(([key, value]) => ` data-${key}="${escapeHtml(value)}"`)
    .join('');
  const facts = input.orderNum
    ? `<dl>
<dt>${words.order}</dt><dd>${escapeHtml(input.orderNum)}</dd>
${input.payMoney ? amountFacts(words, input.payMoney, input.payFee) : ''}
</dl>`
    : '';
  const back = input.continueUrl ? `<p><a id="tombolbayar-continue" href="${escapeHtml(input.continueUrl)}">${words.back}</a></p>` : '';
  return `<!doctype html>
<html lang="${input.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main id="tombolbayar-return"${attributes}>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(body)}</p>
${facts}
${back}
</main>
${input.scriptSrc ? `<script src="${escapeHtml(input.scriptSrc)}"></script>` : ''}
</body>
</html>
`;
}
