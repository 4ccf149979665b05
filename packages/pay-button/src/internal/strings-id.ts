/**
 * The Indonesian strings of `<pay-button>` (and the outcome messages both elements say): a chunk of
 * the script-tag file of its own, loaded by `loadStrings` when an element speaks Indonesian.
 */
import type { MessageKey } from './i18n.ts';

export const id: Record<MessageKey, string> = {
  pay: 'Bayar',
  instructions: 'Lihat petunjuk pembayaran',
  transferTo: 'Transfer {total} ke virtual account {bank} {code} sebelum {time}.',
  payBy: 'Bayar {total} sebelum {time}.',
  opening: 'Membuka halaman pembayaran…',
  slow: 'Masih menghubungkan ke layanan pembayaran…',
  open: 'Silakan bayar di jendela baru.',
  blocked: 'Pop-up diblokir. Membuka halaman pembayaran di sini…',
  checking: 'Memeriksa pembayaran…',
  paid: 'Pembayaran berhasil. Terima kasih!',
  pending: 'Menunggu pembayaran Anda. Halaman ini diperbarui setelah pembayaran masuk.',
  unconfirmed: 'Pembayaran belum terkonfirmasi. Halaman ini diperbarui setelah terkonfirmasi.',
  expired: 'Batas waktu pembayaran sudah lewat. Tidak ada dana yang ditarik.',
  failed: 'Pembayaran tidak berhasil. Tidak ada dana yang ditarik.',
  cancelled: 'Pembayaran belum dimulai. Tidak ada dana yang ditarik.',
  error: 'Terjadi kendala. Tidak ada dana yang ditarik. Silakan coba lagi.',
  unreachable: 'Layanan pembayaran tidak dapat dihubungi. Tidak ada dana yang ditarik. Silakan coba lagi.',
  busy: 'Layanan pembayaran sedang sibuk. Tidak ada dana yang ditarik. Silakan coba lagi dalam satu menit.',
  origin: 'Pembayaran tidak diizinkan di halaman ini. Tidak ada dana yang ditarik.',
  paidWith: 'Sudah dibayar dengan pesanan {order}. Jangan bayar yang ini.',
  paidTwice: 'Pembayaran berhasil. Ini juga sudah dibayar dengan pesanan {order}: toko akan mengembalikan salah satu pembayaran.',
};
