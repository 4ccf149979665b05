/**
 * The page's words in its two languages. Messages are plain text: the templates escape them like
 * any other value. Payment steps live in `steps.ts`; which language a request gets, in
 * `locale.ts` (re-exported here, where the rest of the page imports it from).
 */
import type { MethodKind } from '@tombolbayar/protocol';
import type { PageNotice } from './deps.ts';
import type { Locale } from './locale.ts';

export { LOCALES, LOCALE_COOKIE, formatJakartaTime, isLocale, localeFromAcceptLanguage, localeOfTag, negotiateLocale, type Locale, type LocaleSources } from './locale.ts';

export interface Messages {
  readonly languageName: string;
  readonly languageSwitchLabel: string;
  readonly title: (merchant: string) => string;
  readonly sandboxBanner: string;
  readonly summaryHeading: string;
  readonly product: string;
  readonly billedTo: string;
  readonly orderNumber: string;
  readonly amount: string;
  readonly fee: string;
  readonly feeUnknown: string;
  readonly total: string;
  readonly payWithin: string;
  readonly expiresAt: (date: string) => string;
  readonly day: string;
  readonly days: string;
  readonly chooseMethod: string;
  readonly kinds: Readonly<Record<MethodKind, { readonly name: string; readonly hint: string }>>;
  readonly payWith: (method: string) => string;
  readonly waiting: string;
  readonly autoUpdate: string;
  readonly refreshStatus: string;
  readonly vaNumber: string;
  readonly paymentCode: string;
  readonly paymentReference: string;
  readonly transferExactly: (total: string) => string;
  readonly copy: string;
  readonly copyLabel: (what: string) => string;
  readonly copied: string;
  readonly copyFailed: string;
  readonly howToPay: string;
  readonly qrAlt: (total: string) => string;
  readonly qrDownload: string;
  readonly paidHeading: string;
  readonly paidBody: (total: string, merchant: string) => string;
  readonly paidAt: (date: string) => string;
  readonly returningBefore: (merchant: string) => string;
  readonly returningAfter: string;
  readonly returnNow: (merchant: string) => string;
  readonly stay: string;
  readonly canClose: string;
  readonly expiredHeading: string;
  readonly expiredBody: (merchant: string) => string;
  readonly failedHeading: string;
  readonly failedBody: (merchant: string) => string;
  readonly notices: Readonly<Record<PageNotice, string>>;
  readonly sandboxHeading: string;
  readonly sandboxHint: string;
  readonly sandboxChooseFirst: string;
  readonly simulatePay: string;
  readonly simulateExpire: string;
  readonly simulateFail: string;
  readonly reference: string;
  readonly changeMethod: string;
  readonly changeMethodHint: (what: string) => string;
  readonly qrCode: string;
  readonly backToShop: (merchant: string) => string;
  readonly leaveHint: string;
  readonly supportWith: (merchant: string) => string;
  readonly supportGeneric: (merchant: string) => string;
  readonly supportDetails: string;
  readonly notFoundHeading: string;
  readonly notFoundBody: string;
  readonly badRequestHeading: string;
  readonly badRequestBody: string;
  readonly forbiddenHeading: string;
  readonly forbiddenBody: string;
  readonly errorHeading: string;
  readonly errorBody: string;
}

const en: Messages = {
  languageName: 'English',
  languageSwitchLabel: 'Language',
  title: (merchant) => `Pay ${merchant}`,
  sandboxBanner: 'SANDBOX: test mode, no real money moves',
  summaryHeading: 'Order summary',
  product: 'Item',
  billedTo: 'Name',
  orderNumber: 'Order number',
  amount: 'Amount',
  fee: 'Fee',
  feeUnknown: 'after you choose a method',
  total: 'Total to pay',
  payWithin: 'Pay within',
  expiresAt: (date) => `Expires ${date}`,
  day: 'day',
  days: 'days',
  chooseMethod: 'Choose how to pay',
  kinds: {
    'virtual-account': { name: 'Bank transfer (virtual account)', hint: 'From an ATM, mobile or internet banking.' },
    qr: { name: 'QRIS', hint: 'Scan with any banking or e-wallet app.' },
    'e-wallet': { name: 'E-wallet', hint: 'Pay in your e-wallet app.' },
    retail: { name: 'Convenience store', hint: 'Pay in cash at the cashier.' },
  },
  payWith: (method) => `Pay with ${method}`,
  waiting: 'Waiting for your payment',
  autoUpdate: 'This page updates by itself when your payment arrives.',
  refreshStatus: 'Check payment status',
  vaNumber: 'Virtual account number',
  paymentCode: 'Payment code',
  paymentReference: 'Payment reference',
  transferExactly: (total) => `Pay exactly ${total}.`,
  copy: 'Copy',
  copyLabel: (what) => `Copy ${what.charAt(0).toLowerCase()}${what.slice(1)}`,
  copied: 'Copied',
  copyFailed: 'Could not copy. Select the number and copy it.',
  howToPay: 'How to pay',
  qrAlt: (total) => `QRIS code to pay ${total}`,
  qrDownload: 'Download the QR code',
  paidHeading: 'Payment received',
  paidBody: (total, merchant) => `Thank you. Your payment of ${total} to ${merchant} has been received.`,
  paidAt: (date) => `Paid ${date}`,
  returningBefore: (merchant) => `Returning to ${merchant} in`,
  returningAfter: 'seconds.',
  returnNow: (merchant) => `Return to ${merchant}`,
  stay: 'Stay on this page',
  canClose: 'You can close this page.',
  expiredHeading: 'This payment has expired',
  expiredBody: (merchant) =>
    `The time to pay ran out, and no payment was taken. If you still want to buy, ask ${merchant} for a new payment link.`,
  failedHeading: 'Payment failed',
  failedBody: (merchant) =>
    `The payment could not be completed. If money left your account, your bank or e-wallet returns it. Contact ${merchant} to try again.`,
  notices: {
    'not-found': 'This payment no longer exists.',
    'not-pending': 'This payment can no longer be changed.',
    'method-already-chosen': 'A payment method was already chosen for this order.',
    'method-not-allowed': 'That method cannot be used for this amount. Please choose another one.',
    'method-locked': 'The shop set the payment method for this order, so it cannot be changed here.',
    'method-changed': 'The payment method was changed in another window. This is how the order stands now.',
    'shop-unreachable': 'The shop cannot be reached right now. This page keeps your order and its number: try the link below again in a moment.',
  },
  sandboxHeading: 'Sandbox controls',
  sandboxHint: 'Only in sandbox mode: change this order as if the customer or the bank had acted.',
  sandboxChooseFirst: 'Choose a method above to simulate a payment.',
  simulatePay: 'Simulate payment',
  simulateExpire: 'Simulate expiry',
  simulateFail: 'Simulate failure',
  reference: 'Payment reference',
  changeMethod: 'Choose another method',
  changeMethodHint: (what) => `Nothing has been paid yet. If you choose another method, this ${what} stops working.`,
  qrCode: 'QR code',
  backToShop: (merchant) => `Back to ${merchant} without paying`,
  leaveHint: 'Your order stays open until the time above runs out.',
  supportWith: (merchant) => `Questions about this order? Contact ${merchant}:`,
  supportGeneric: (merchant) => `Questions about this order? Contact ${merchant}, the shop you are buying from.`,
  supportDetails: 'Details for support',
  notFoundHeading: 'Payment not found',
  notFoundBody: 'There is no payment at this address. Check that the link is complete, or ask the shop for a new one.',
  badRequestHeading: 'This link is not valid',
  badRequestBody: 'The request could not be understood:',
  forbiddenHeading: 'Request refused',
  forbiddenBody: 'This action can only be sent from the payment page itself.',
  errorHeading: 'Something went wrong',
  errorBody: 'Please try again in a moment. Nothing has been charged because of this error.',
};

const id: Messages = {
  languageName: 'Bahasa Indonesia',
  languageSwitchLabel: 'Bahasa',
  title: (merchant) => `Bayar ke ${merchant}`,
  sandboxBanner: 'SANDBOX: mode uji, tidak ada uang sungguhan',
  summaryHeading: 'Ringkasan pesanan',
  product: 'Produk',
  billedTo: 'Nama',
  orderNumber: 'Nomor pesanan',
  amount: 'Jumlah',
  fee: 'Biaya layanan',
  feeUnknown: 'muncul setelah Anda memilih metode',
  total: 'Total pembayaran',
  payWithin: 'Sisa waktu pembayaran',
  expiresAt: (date) => `Bayar sebelum ${date}`,
  day: 'hari',
  days: 'hari',
  chooseMethod: 'Pilih metode pembayaran',
  kinds: {
    'virtual-account': { name: 'Transfer bank (virtual account)', hint: 'Lewat ATM, mobile banking atau internet banking.' },
    qr: { name: 'QRIS', hint: 'Pindai dengan aplikasi bank atau e-wallet apa pun.' },
    'e-wallet': { name: 'E-wallet', hint: 'Bayar di aplikasi e-wallet Anda.' },
    retail: { name: 'Minimarket', hint: 'Bayar tunai di kasir.' },
  },
  payWith: (method) => `Bayar dengan ${method}`,
  waiting: 'Menunggu pembayaran Anda',
  autoUpdate: 'Halaman ini akan berubah sendiri begitu pembayaran Anda masuk.',
  refreshStatus: 'Cek status pembayaran',
  vaNumber: 'Nomor virtual account',
  paymentCode: 'Kode pembayaran',
  paymentReference: 'Referensi pembayaran',
  transferExactly: (total) => `Pastikan nominal yang Anda bayar sama persis: ${total}.`,
  copy: 'Salin',
  copyLabel: (what) => `Salin ${what.charAt(0).toLowerCase()}${what.slice(1)}`,
  copied: 'Tersalin',
  copyFailed: 'Gagal menyalin. Tandai nomornya, lalu salin secara manual.',
  howToPay: 'Cara membayar',
  qrAlt: (total) => `Kode QRIS untuk membayar ${total}`,
  qrDownload: 'Unduh kode QR',
  paidHeading: 'Pembayaran diterima',
  paidBody: (total, merchant) => `Terima kasih. Pembayaran Anda sebesar ${total} untuk ${merchant} sudah kami terima.`,
  paidAt: (date) => `Dibayar ${date}`,
  returningBefore: (merchant) => `Kembali ke ${merchant} dalam`,
  returningAfter: 'detik.',
  returnNow: (merchant) => `Kembali ke ${merchant}`,
  stay: 'Tetap di halaman ini',
  canClose: 'Anda dapat menutup halaman ini.',
  expiredHeading: 'Pembayaran ini sudah kedaluwarsa',
  expiredBody: (merchant) =>
    `Batas waktu pembayaran sudah habis dan tidak ada dana yang terpotong. Jika masih ingin membeli, minta tautan pembayaran baru ke ${merchant}.`,
  failedHeading: 'Pembayaran gagal',
  failedBody: (merchant) =>
    `Pembayaran tidak berhasil. Jika saldo Anda sudah terpotong, bank atau e-wallet Anda akan mengembalikannya. Hubungi ${merchant} untuk mencoba lagi.`,
  notices: {
    'not-found': 'Pembayaran ini sudah tidak ada.',
    'not-pending': 'Pembayaran ini tidak dapat diubah lagi.',
    'method-already-chosen': 'Metode pembayaran untuk pesanan ini sudah dipilih.',
    'method-not-allowed': 'Metode itu tidak bisa dipakai untuk nominal ini. Silakan pilih metode lain.',
    'method-locked': 'Metode pembayaran pesanan ini sudah ditentukan oleh toko, jadi tidak bisa diganti di sini.',
    'method-changed': 'Metode pembayaran sudah diganti di jendela lain. Berikut status pesanan saat ini.',
    'shop-unreachable': 'Toko tidak dapat dihubungi saat ini. Halaman ini menyimpan pesanan Anda beserta nomornya: coba lagi tautan di bawah sebentar lagi.',
  },
  sandboxHeading: 'Kontrol sandbox',
  sandboxHint: 'Hanya di mode sandbox: ubah pesanan ini seolah-olah pelanggan atau bank yang bertindak.',
  sandboxChooseFirst: 'Pilih metode di atas untuk menyimulasikan pembayaran.',
  simulatePay: 'Simulasikan pembayaran',
  simulateExpire: 'Simulasikan kedaluwarsa',
  simulateFail: 'Simulasikan kegagalan',
  reference: 'Referensi pembayaran',
  changeMethod: 'Ganti metode pembayaran',
  changeMethodHint: (what) => `Belum ada yang dibayar. Jika Anda mengganti metode, ${what} ini tidak berlaku lagi.`,
  qrCode: 'kode QR',
  backToShop: (merchant) => `Kembali ke ${merchant} tanpa membayar`,
  leaveHint: 'Pesanan Anda tetap terbuka sampai waktu di atas habis.',
  supportWith: (merchant) => `Ada pertanyaan tentang pesanan ini? Hubungi ${merchant}:`,
  supportGeneric: (merchant) => `Ada pertanyaan tentang pesanan ini? Hubungi ${merchant}, toko tempat Anda berbelanja.`,
  supportDetails: 'Detail untuk layanan pelanggan',
  notFoundHeading: 'Pembayaran tidak ditemukan',
  notFoundBody: 'Tidak ada pembayaran di alamat ini. Pastikan tautannya lengkap, atau minta tautan baru kepada toko.',
  badRequestHeading: 'Tautan ini tidak valid',
  badRequestBody: 'Permintaan tidak dapat dipahami:',
  forbiddenHeading: 'Permintaan ditolak',
  forbiddenBody: 'Tindakan ini hanya dapat dikirim dari halaman pembayaran itu sendiri.',
  errorHeading: 'Terjadi kesalahan',
  errorBody: 'Silakan coba beberapa saat lagi. Anda tidak dikenai biaya apa pun karena kesalahan ini.',
};

const MESSAGES: Readonly<Record<Locale, Messages>> = { en, id };

export function messagesFor(locale: Locale): Messages {
  return MESSAGES[locale];
}
