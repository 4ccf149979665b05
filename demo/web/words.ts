/**
 * The demo shop's words in English and Indonesian. The page's language is `?lang=`, else the one
 * chosen last (localStorage), else the browser's (the first of `navigator.languages` that is
 * English or Indonesian), else English; it is set on `<html lang>`, which the elements follow
 * too, so the shop, `<pay-button>`, `<pay-va>`, the hosted page and the return page all speak it.
 */
export type Lang = 'en' | 'id';

const en = {
  title: 'Toko Kopi Nusantara · tombolbayar demo',
  tagline: 'A demo shop paying through the sandbox gateway. No real money moves.',
  sandbox: 'Sandbox',
  language: 'Language',
  products: 'Products',
  cart: 'Your cart',
  cartEmpty: 'Your cart is empty. Add a product to pay.',
  total: 'Total',
  howOpens: 'How the payment page opens',
  modeAuto: 'Automatic (popup, page when blocked)',
  modePopup: 'Popup',
  modeRedirect: 'Full page',
  payNow: 'Pay now',
  vaSummary: 'Or get a payment number right here',
  vaIntro: 'A virtual account number, QRIS code, Alfamart code or e-wallet request, without leaving the page.',
  method: 'Payment method',
  orders: 'Orders',
  ordersIntro: 'Updates live as the gateway’s notifications arrive.',
  addToCart: 'Add to cart',
  removeOne: 'Remove one',
  addOne: 'Add one',
  colOrder: 'Order',
  colItems: 'Items',
  colAmount: 'Amount',
  feeIncluded: 'incl. fee {fee}',
  colMethod: 'Method',
  colStatus: 'Status',
  pending: 'Awaiting payment',
  paid: 'Paid',
  paidTwice: 'Paid twice (also {order}): refund this one',
  expired: 'Expired',
  failed: 'Failed',
  paidMsg: 'Paid: order {order}. We are packing it.',
  paidEarlierMsg: 'Paid: order {order}, your earlier cart. We are packing it.',
  paidOtherTab: 'Paid: order {order}, in another tab. We are packing it.',
  awaits: 'Order {order} awaits your payment.',
  expiredMsg: 'The time to pay order {order} has run out. Nothing was charged.',
  failedMsg: 'The payment for order {order} did not go through. Nothing was charged.',
  cancelledMsg: 'Payment not started. Nothing was charged; your cart is still here.',
  paidElsewhereMsg: 'This cart is paid already, with order {order}. Do not pay this one.',
  unreachableMsg: 'The payment service cannot be reached. Nothing was charged. Try again.',
  errorMsg: 'Something went wrong. Nothing was charged. Try again.',
  stillOpen: 'Order {order}, for your cart as it was, is still open: if you pay it, this page updates when it arrives. Pay now pays for your cart as it is now.',
  vaStillOpen: 'The number above is for order {order}, your cart as it was. It stays open: if you pay it, this page updates when it arrives. ',
  vaAgain: 'Get a number for this cart',
};

const id: Record<keyof typeof en, string> = {
  title: 'Toko Kopi Nusantara · demo tombolbayar',
  tagline: 'Toko demo yang membayar lewat gateway sandbox. Tidak ada uang sungguhan yang berpindah.',
  sandbox: 'Sandbox',
  language: 'Bahasa',
  products: 'Produk',
  cart: 'Keranjang Anda',
  cartEmpty: 'Keranjang Anda masih kosong. Tambahkan produk untuk membayar.',
  total: 'Total',
  howOpens: 'Cara membuka halaman pembayaran',
  modeAuto: 'Otomatis (pop-up, atau halaman penuh jika diblokir)',
  modePopup: 'Pop-up',
  modeRedirect: 'Halaman penuh',
  payNow: 'Bayar sekarang',
  vaSummary: 'Atau dapatkan nomor pembayaran di sini',
  vaIntro: 'Nomor virtual account, kode QRIS, kode Alfamart atau permintaan e-wallet, tanpa meninggalkan halaman ini.',
  method: 'Metode pembayaran',
  orders: 'Pesanan',
  ordersIntro: 'Diperbarui langsung saat notifikasi dari gateway masuk.',
  addToCart: 'Tambah ke keranjang',
  removeOne: 'Kurangi satu',
  addOne: 'Tambah satu',
  colOrder: 'Pesanan',
  colItems: 'Barang',
  colAmount: 'Jumlah',
  feeIncluded: 'termasuk biaya {fee}',
  colMethod: 'Metode',
  colStatus: 'Status',
  pending: 'Menunggu pembayaran',
  paid: 'Lunas',
  paidTwice: 'Dibayar dua kali (juga {order}): kembalikan yang ini',
  expired: 'Kedaluwarsa',
  failed: 'Gagal',
  paidMsg: 'Pesanan {order} sudah dibayar. Pesanan Anda sedang kami siapkan.',
  paidEarlierMsg: 'Pesanan {order} (keranjang Anda sebelumnya) sudah dibayar. Pesanan Anda sedang kami siapkan.',
  paidOtherTab: 'Pesanan {order} sudah dibayar di tab lain. Pesanan Anda sedang kami siapkan.',
  awaits: 'Pesanan {order} menunggu pembayaran Anda.',
  expiredMsg: 'Batas waktu pembayaran pesanan {order} sudah lewat. Tidak ada dana yang ditarik.',
  failedMsg: 'Pembayaran pesanan {order} tidak berhasil. Tidak ada dana yang ditarik.',
  cancelledMsg: 'Pembayaran belum dimulai. Tidak ada dana yang ditarik; keranjang Anda masih tersimpan.',
  paidElsewhereMsg: 'Keranjang ini sudah dibayar dengan pesanan {order}. Jangan bayar yang ini.',
  unreachableMsg: 'Layanan pembayaran tidak dapat dihubungi. Tidak ada dana yang ditarik. Silakan coba lagi.',
  errorMsg: 'Terjadi kendala. Tidak ada dana yang ditarik. Silakan coba lagi.',
  stillOpen: 'Pesanan {order}, untuk isi keranjang Anda sebelumnya, masih terbuka: jika Anda membayarnya, halaman ini diperbarui setelah pembayaran masuk. Bayar sekarang membayar isi keranjang Anda saat ini.',
  vaStillOpen: 'Nomor di atas untuk pesanan {order}, isi keranjang Anda sebelumnya. Nomor itu tetap terbuka: jika Anda membayarnya, halaman ini diperbarui setelah pembayaran masuk. ',
  vaAgain: 'Dapatkan nomor untuk keranjang ini',
};

export type WordKey = keyof typeof en;
const WORDS: Record<Lang, Record<WordKey, string>> = { en, id };

const STORED = 'demo-lang';

/** The page's language (see the module comment). */
export function pageLang(): Lang {
  const browser = navigator.languages.find((tag) => /^(en|id|in)\b/i.test(tag));
  const asked = new URL(location.href).searchParams.get('lang') ?? localStorage.getItem(STORED) ?? browser ?? 'en';
  return /^(id|in)\b/i.test(asked) ? 'id' : 'en';
}

/** The word for `key` in the page's language, `{name}` filled from `values`. */
export function t(key: WordKey, values: Record<string, string> = {}): string {
  const lang = /^id\b/.test(document.documentElement.lang) ? 'id' : 'en';
  return WORDS[lang][key].replace(/\{(\w+)\}/g, (all, name: string) => values[name] ?? all);
}

/** Sets the page's language and writes every `[data-t]` element's words. */
export function applyLang(lang: Lang): void {
  localStorage.setItem(STORED, lang);
  document.documentElement.lang = lang;
  document.title = t('title');
  for (const el of document.querySelectorAll<HTMLElement>('[data-t]')) el.textContent = t(el.dataset.t as WordKey);
}
