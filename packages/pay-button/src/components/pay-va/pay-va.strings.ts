import type { MessageKey, Strings } from '../../internal/i18n.ts';

/**
 * `<pay-va>`'s own strings. `{total}`, `{code}` and `{method}` are filled in; a `steps*` string is
 * the payment steps for one kind of method, separated by `|`, as the hosted page lists them.
 */
const en = {
  getNumber: 'Get payment number',
  newNumber: 'Get a new payment number',
  vaNumber: 'Virtual account number',
  payCode: 'Payment code',
  reference: 'Payment reference',
  qr: 'QRIS code',
  qrAlt: 'QRIS code to pay {total}',
  transferExactly: 'Transfer exactly',
  payExactly: 'Pay exactly',
  amount: 'Amount',
  fee: 'Fee',
  payWithin: 'Pay within',
  day: 'day',
  days: 'days',
  howToPay: 'How to pay',
  stepsVa: 'Open your bank’s app, internet banking or ATM.|Choose a payment to a {method} number.|Enter {code}.|Check that the amount is {total}, then confirm.',
  stepsQr: 'Open a banking or e-wallet app that supports QRIS.|Choose Scan or Pay, and scan the QR code.|Check that the amount is {total}, then confirm with your PIN.',
  stepsRetail: 'Go to any Alfamart, Alfamidi or Dan+Dan store.|Show the cashier the payment code {code}.|Pay {total} in cash or by debit card. The store may add a small service fee.|Keep the receipt as proof of payment.',
  stepsEwallet: 'Open the {method} app on your phone and log in.|Open the payment request in your notifications, or choose Pay and enter the reference {code}.|Check that the amount is {total}, then confirm with your PIN.',
  paidTitle: 'Payment received',
  paidBody: '{total} received. Thank you!',
  expiredTitle: 'This payment number has expired',
  expiredBody: 'Do not transfer to it any more. Get a new number to pay.',
  failedTitle: 'The payment failed',
  failedBody: 'Nothing was charged by this order. Get a new number to try again.',
  closed: 'Already paid with another order. Do not pay this number.',
  closedTitle: 'This is already paid',
  closedBody: 'It was paid with order {order}. Do not pay this number.',
  paidTwiceBody: 'This was also paid with order {order}: the shop will refund one payment.',
  copy: 'Copy',
  saveQr: 'Save QR image',
  copied: 'Copied.',
};

const id: Record<keyof typeof en, string> = {
  getNumber: 'Dapatkan nomor pembayaran',
  newNumber: 'Dapatkan nomor pembayaran baru',
  vaNumber: 'Nomor virtual account',
  payCode: 'Kode pembayaran',
  reference: 'Referensi pembayaran',
  qr: 'Kode QRIS',
  qrAlt: 'Kode QRIS untuk membayar {total}',
  transferExactly: 'Jumlah yang harus ditransfer',
  payExactly: 'Jumlah yang harus dibayar',
  amount: 'Jumlah',
  fee: 'Biaya',
  payWithin: 'Bayar dalam',
  day: 'hari',
  days: 'hari',
  howToPay: 'Cara membayar',
  stepsVa: 'Buka aplikasi bank, internet banking atau ATM Anda.|Pilih pembayaran ke nomor {method}.|Masukkan {code}.|Pastikan jumlahnya {total}, lalu konfirmasi.',
  stepsQr: 'Buka aplikasi bank atau e-wallet yang mendukung QRIS.|Pilih Scan atau Bayar, lalu pindai kode QR.|Pastikan jumlahnya {total}, lalu konfirmasi dengan PIN Anda.',
  stepsRetail: 'Datang ke gerai Alfamart, Alfamidi atau Dan+Dan mana pun.|Tunjukkan kode pembayaran {code} kepada kasir.|Bayar {total} tunai atau dengan kartu debit. Gerai mungkin menambahkan biaya layanan kecil.|Simpan struk sebagai bukti pembayaran.',
  stepsEwallet: 'Buka aplikasi {method} di ponsel Anda dan masuk.|Buka permintaan pembayaran di notifikasi, atau pilih Bayar dan masukkan referensi {code}.|Pastikan jumlahnya {total}, lalu konfirmasi dengan PIN Anda.',
  paidTitle: 'Pembayaran diterima',
  paidBody: '{total} diterima. Terima kasih!',
  expiredTitle: 'Nomor pembayaran ini sudah kedaluwarsa',
  expiredBody: 'Jangan transfer ke nomor ini lagi. Dapatkan nomor baru untuk membayar.',
  failedTitle: 'Pembayaran gagal',
  failedBody: 'Tidak ada dana yang ditarik untuk pesanan ini. Dapatkan nomor baru untuk mencoba lagi.',
  closed: 'Sudah dibayar dengan pesanan lain. Jangan bayar ke nomor ini.',
  closedTitle: 'Ini sudah dibayar',
  closedBody: 'Sudah dibayar dengan pesanan {order}. Jangan bayar ke nomor ini.',
  paidTwiceBody: 'Ini juga sudah dibayar dengan pesanan {order}: toko akan mengembalikan salah satu pembayaran.',
  copy: 'Salin',
  saveQr: 'Simpan gambar QR',
  copied: 'Tersalin.',
};

export type VaMessageKey = keyof typeof en | MessageKey;

/** `<pay-va>`'s own strings; the shared outcome messages come from `PayElement` (see `PayVa.text`). */
export const vaStrings: Strings<keyof typeof en> = { en, id };

/** `text` with `{name}` replaced by `values[name]`. */
export function fill(text: string, values: Record<string, string>): string {
  return text.replace(/\{(\w+)\}/g, (all, name: string) => values[name] ?? all);
}
