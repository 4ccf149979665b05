import { strings, type MessageKey, type Strings } from '../../internal/i18n.ts';

const en = {
  getNumber: 'Get payment number',
  vaNumber: 'Virtual account number',
  payCode: 'Payment code',
  qr: 'QRIS code',
  qrNote: 'Scan the QRIS code with any banking or e-wallet app.',
  amount: 'Amount',
  fee: 'Fee',
  payWithin: 'Pay within',
  copy: 'Copy',
  copied: 'Copied.',
};

const id: Record<keyof typeof en, string> = {
  getNumber: 'Dapatkan nomor pembayaran',
  vaNumber: 'Nomor virtual account',
  payCode: 'Kode pembayaran',
  qr: 'Kode QRIS',
  qrNote: 'Pindai kode QRIS dengan aplikasi bank atau e-wallet apa pun.',
  amount: 'Jumlah',
  fee: 'Biaya',
  payWithin: 'Bayar dalam',
  copy: 'Salin',
  copied: 'Tersalin.',
};

export type VaMessageKey = keyof typeof en | MessageKey;

/** Strings of `<pay-va>`: its own, plus the shared outcome messages. */
export const vaStrings: Strings<VaMessageKey> = {
  en: { ...strings.en, ...en },
  id: { ...strings.id, ...id },
};
