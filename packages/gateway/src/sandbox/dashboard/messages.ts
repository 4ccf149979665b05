/**
 * The dashboard's words in the hosted page's two languages (`page/i18n.ts` chooses one per
 * request: `?lang=`, the `pb_lang` cookie, Accept-Language). Plain text: the templates escape
 * them. Refusals keep the gateway's field rules (`number: must be ...`), in English as in the
 * sandbox API.
 */
import type { Locale } from '../../page/i18n.ts';
import { FIGURES_EN, FIGURES_ID, type FiguresMessages } from './figures-messages.ts';

export interface DashboardMessages {
  readonly dashboard: string;
  readonly banner: string;
  readonly languageSwitchLabel: string;
  readonly notices: {
    readonly paid: string;
    readonly expired: string;
    readonly failed: string;
    readonly resent: string;
    readonly 'clock-advanced': string;
    readonly saved: string;
  };
  readonly refusedHeading: string;
  readonly back: string;
  readonly crossSite: string;
  readonly noSuchPage: string;
  // Home
  readonly ordersTitle: string;
  readonly findHeading: string;
  readonly findLabel: string;
  readonly find: string;
  readonly payNumberHeading: string;
  readonly payNumberLabel: string;
  readonly pay: string;
  readonly clockHeading: string;
  readonly gatewayTime: (time: string) => string;
  readonly realTime: string;
  readonly minutesAhead: (minutes: number) => string;
  readonly advanceLabel: string;
  readonly advance: string;
  readonly ordersHeading: string;
  readonly newestOrders: (count: number) => string;
  readonly matchingOrders: (number: string, count: number) => string;
  readonly noOrdersYet: string;
  readonly noMatch: string;
  readonly merchantsHeading: string;
  readonly noMerchants: string;
  readonly figures: FiguresMessages;
  readonly columns: {
    readonly orderNumber: string;
    readonly merchant: string;
    readonly status: string;
    readonly method: string;
    readonly vaNumber: string;
    readonly amount: string;
    readonly created: string;
  };
  // Order
  readonly orderHeading: (orderNum: string) => string;
  readonly facts: {
    readonly platOrderNum: string;
    readonly kind: string;
    readonly kindVa: string;
    readonly kindLink: string;
    readonly fee: string;
    readonly product: string;
    readonly customer: string;
    readonly expires: string;
    readonly notifyUrl: string;
  };
  readonly openHostedPage: string;
  readonly simulateHeading: string;
  readonly nothingToSimulate: (status: string) => string;
  readonly methodToPay: string;
  readonly simulatePay: string;
  readonly expireNow: string;
  readonly fail: string;
  readonly timelineHeading: string;
  readonly timeline: {
    readonly created: (amount: string) => string;
    readonly closed: (status: string) => string;
    readonly queued: (id: string, event: string) => string;
    readonly attempt: (number: number, id: string, answer: string, acknowledged: boolean, latencyMs: number) => string;
    readonly noAnswer: (errorClass: string) => string;
    readonly delivered: (id: string) => string;
  };
  readonly notificationsHeading: (count: number) => string;
  readonly noNotifications: string;
  readonly notificationHeading: (event: string, id: string, state: string) => string;
  readonly sentTo: string;
  readonly attemptsCount: string;
  readonly fault: string;
  readonly nextAttempt: string;
  readonly noAttemptYet: string;
  readonly nextAt: (time: string) => string;
  readonly attemptsOf: (id: string) => string;
  readonly attemptColumns: {
    readonly at: string;
    readonly httpStatus: string;
    readonly acknowledged: string;
    readonly latency: string;
    readonly error: string;
    readonly body: string;
  };
  readonly yes: string;
  readonly no: string;
  readonly emptyBody: string;
  readonly signedFields: string;
  readonly resend: string;
  // Merchant
  readonly merchantHeading: (code: string) => string;
  readonly previewHeading: string;
  readonly logoAlt: (name: string) => string;
  readonly accentAlt: (color: string) => string;
  readonly accentAdjusted: (used: string, chosen: string) => string;
  readonly brandingHeading: string;
  readonly displayName: string;
  readonly logo: string;
  readonly accentColor: string;
  readonly supportContact: string;
  readonly emptyUnsets: string;
  readonly save: string;
  readonly notifyHeading: string;
  readonly saveNotify: string;
  readonly notifyHelp: string;
  readonly notifyKinds: { readonly paid: string; readonly failed: string; readonly expired: string };
}

const en: DashboardMessages = {
  dashboard: 'Sandbox dashboard',
  banner: 'SANDBOX: nothing here moves real money',
  languageSwitchLabel: 'Language',
  notices: {
    paid: 'Payment simulated: the order is PAID and its notification is queued.',
    expired: 'The order is EXPIRED and its notification is queued.',
    failed: 'The order is FAILED and its notification is queued.',
    resent: 'The notification is queued again; refresh to see the new attempt.',
    'clock-advanced': 'The clock moved forward; overdue orders expired.',
    saved: 'Saved.',
  },
  refusedHeading: 'Refused',
  back: 'Back to the dashboard',
  crossSite: 'This dashboard answers only its own pages and addresses typed in the address bar, at the gateway’s own address: a link from another site is refused. Open it from the link below.',
  noSuchPage: 'There is no such page in the sandbox dashboard.',
  ordersTitle: 'Orders',
  findHeading: 'Find an order',
  findLabel: 'Order number, platform number or VA number',
  find: 'Find',
  payNumberHeading: 'Pay a VA or payment code',
  payNumberLabel: 'VA number or payment code',
  pay: 'Pay',
  clockHeading: 'Clock',
  gatewayTime: (time) => `Gateway time: ${time}`,
  realTime: 'real time',
  minutesAhead: (minutes) => `${minutes} minutes ahead`,
  advanceLabel: 'Advance by minutes',
  advance: 'Advance',
  ordersHeading: 'Orders',
  newestOrders: (count) => `Newest orders (${count})`,
  matchingOrders: (number, count) => `Orders matching ${number} (${count})`,
  noOrdersYet: 'No orders yet: create one from your shop.',
  noMatch: 'No order has this number.',
  merchantsHeading: 'Merchants',
  noMerchants: 'No merchants yet.',
  figures: FIGURES_EN,
  columns: { orderNumber: 'Order number', merchant: 'Merchant', status: 'Status', method: 'Method', vaNumber: 'VA number / code', amount: 'Amount', created: 'Created' },
  orderHeading: (orderNum) => `Order ${orderNum}`,
  facts: {
    platOrderNum: 'Platform number',
    kind: 'Kind',
    kindVa: 'VA order (/gateway/pay)',
    kindLink: 'payment link (/gateway/prepaidOrder)',
    fee: 'Fee',
    product: 'Product',
    customer: 'Customer',
    expires: 'Expires',
    notifyUrl: 'Notify URL',
  },
  openHostedPage: 'Open the hosted payment page',
  simulateHeading: 'Simulate',
  nothingToSimulate: (status) => `The order is ${status}: nothing left to simulate.`,
  methodToPay: 'Method to pay with (the order has none yet)',
  simulatePay: 'Simulate payment',
  expireNow: 'Expire now',
  fail: 'Fail',
  timelineHeading: 'Timeline',
  timeline: {
    created: (amount) => `Created for ${amount}`,
    closed: (status) => `Became ${status}`,
    queued: (id, event) => `Notification ${id} (${event}) queued`,
    attempt: (number, id, answer, acknowledged, latencyMs) =>
      `Attempt ${number} of ${id}: ${answer}, ${acknowledged ? 'acknowledged' : 'not acknowledged'}, ${latencyMs} ms`,
    noAnswer: (errorClass) => `no answer (${errorClass})`,
    delivered: (id) => `Notification ${id} delivered`,
  },
  notificationsHeading: (count) => `Notifications (${count})`,
  noNotifications: 'None yet: the order is notified when it leaves PENDING.',
  notificationHeading: (event, id, state) => `${event} notification ${id}: ${state}`,
  sentTo: 'Sent to',
  attemptsCount: 'Attempts',
  fault: 'Fault',
  nextAttempt: 'Next attempt',
  noAttemptYet: 'No attempt yet.',
  nextAt: (time) => `Next attempt at ${time}.`,
  attemptsOf: (id) => `Attempts of ${id}`,
  attemptColumns: { at: 'At', httpStatus: 'HTTP status', acknowledged: 'Acknowledged', latency: 'Latency', error: 'Error', body: 'Answer body' },
  yes: 'yes',
  no: 'no',
  emptyBody: '(empty)',
  signedFields: 'Signed fields sent',
  resend: 'Resend',
  merchantHeading: (code) => `Merchant ${code}`,
  previewHeading: 'How it looks',
  logoAlt: (name) => `Logo of ${name}`,
  accentAlt: (color) => `Accent colour ${color}`,
  accentAdjusted: (used, chosen) =>
    `Links, buttons and focus rings on the payment page use ${used}, a darker shade of ${chosen}, so they read at 4.5:1 or more on white and on the page's background. The stripe above the header keeps ${chosen}.`,
  brandingHeading: 'Name, logo and colour',
  displayName: 'Display name',
  logo: 'Logo: an https URL, or a data:image/png;base64,… URL (PNG, JPEG, GIF or WebP, at most 64 KiB)',
  accentColor: 'Accent colour (#rrggbb)',
  supportContact: 'Support contact shown to customers (email, phone or URL)',
  emptyUnsets: 'Leave a field empty to unset it.',
  save: 'Save',
  notifyHeading: 'Notifications sent',
  saveNotify: 'Save notifications',
  notifyHelp: 'Paid orders are always notified, as the family does; handlers written for it acknowledge nothing else. Failed and expired orders are notified only when asked for here. The change applies to orders that close from now on.',
  notifyKinds: { paid: 'Paid (always)', failed: 'Failed', expired: 'Expired' },
};

const id: DashboardMessages = {
  dashboard: 'Dasbor sandbox',
  banner: 'SANDBOX: tidak ada uang sungguhan di sini',
  languageSwitchLabel: 'Bahasa',
  notices: {
    paid: 'Pembayaran disimulasikan: pesanan PAID dan notifikasinya sudah diantrekan.',
    expired: 'Pesanan EXPIRED dan notifikasinya sudah diantrekan.',
    failed: 'Pesanan FAILED dan notifikasinya sudah diantrekan.',
    resent: 'Notifikasi diantrekan lagi; muat ulang untuk melihat percobaan baru.',
    'clock-advanced': 'Jam dimajukan; pesanan yang lewat waktu sudah kedaluwarsa.',
    saved: 'Tersimpan.',
  },
  refusedHeading: 'Ditolak',
  back: 'Kembali ke dasbor',
  crossSite: 'Dasbor ini hanya melayani halamannya sendiri dan alamat yang diketik di bilah alamat, di alamat gateway sendiri: tautan dari situs lain ditolak. Buka dari tautan di bawah.',
  noSuchPage: 'Halaman ini tidak ada di dasbor sandbox.',
  ordersTitle: 'Pesanan',
  findHeading: 'Cari pesanan',
  findLabel: 'Nomor pesanan, nomor platform atau nomor VA',
  find: 'Cari',
  payNumberHeading: 'Bayar VA atau kode pembayaran',
  payNumberLabel: 'Nomor VA atau kode pembayaran',
  pay: 'Bayar',
  clockHeading: 'Jam',
  gatewayTime: (time) => `Waktu gateway: ${time}`,
  realTime: 'waktu sebenarnya',
  minutesAhead: (minutes) => `${minutes} menit lebih cepat`,
  advanceLabel: 'Majukan (menit)',
  advance: 'Majukan',
  ordersHeading: 'Pesanan',
  newestOrders: (count) => `Pesanan terbaru (${count})`,
  matchingOrders: (number, count) => `Pesanan dengan nomor ${number} (${count})`,
  noOrdersYet: 'Belum ada pesanan: buat satu dari toko Anda.',
  noMatch: 'Tidak ada pesanan dengan nomor ini.',
  merchantsHeading: 'Merchant',
  noMerchants: 'Belum ada merchant.',
  figures: FIGURES_ID,
  columns: { orderNumber: 'Nomor pesanan', merchant: 'Merchant', status: 'Status', method: 'Metode', vaNumber: 'Nomor VA / kode', amount: 'Jumlah', created: 'Dibuat' },
  orderHeading: (orderNum) => `Pesanan ${orderNum}`,
  facts: {
    platOrderNum: 'Nomor platform',
    kind: 'Jenis',
    kindVa: 'pesanan VA (/gateway/pay)',
    kindLink: 'tautan pembayaran (/gateway/prepaidOrder)',
    fee: 'Biaya',
    product: 'Produk',
    customer: 'Pelanggan',
    expires: 'Kedaluwarsa',
    notifyUrl: 'URL notifikasi',
  },
  openHostedPage: 'Buka halaman pembayaran',
  simulateHeading: 'Simulasi',
  nothingToSimulate: (status) => `Pesanan ${status}: tidak ada lagi yang bisa disimulasikan.`,
  methodToPay: 'Metode pembayaran (pesanan belum punya)',
  simulatePay: 'Simulasikan pembayaran',
  expireNow: 'Kedaluwarsakan sekarang',
  fail: 'Gagalkan',
  timelineHeading: 'Linimasa',
  timeline: {
    created: (amount) => `Dibuat senilai ${amount}`,
    closed: (status) => `Menjadi ${status}`,
    queued: (id, event) => `Notifikasi ${id} (${event}) diantrekan`,
    attempt: (number, id, answer, acknowledged, latencyMs) =>
      `Percobaan ${number} dari ${id}: ${answer}, ${acknowledged ? 'diterima' : 'tidak diterima'}, ${latencyMs} ms`,
    noAnswer: (errorClass) => `tidak ada jawaban (${errorClass})`,
    delivered: (id) => `Notifikasi ${id} terkirim`,
  },
  notificationsHeading: (count) => `Notifikasi (${count})`,
  noNotifications: 'Belum ada: pesanan dinotifikasi saat keluar dari PENDING.',
  notificationHeading: (event, id, state) => `Notifikasi ${event} ${id}: ${state}`,
  sentTo: 'Dikirim ke',
  attemptsCount: 'Percobaan',
  fault: 'Gangguan',
  nextAttempt: 'Percobaan berikutnya',
  noAttemptYet: 'Belum ada percobaan.',
  nextAt: (time) => `Percobaan berikutnya pada ${time}.`,
  attemptsOf: (id) => `Percobaan ${id}`,
  attemptColumns: { at: 'Waktu', httpStatus: 'Status HTTP', acknowledged: 'Diterima', latency: 'Latensi', error: 'Galat', body: 'Isi jawaban' },
  yes: 'ya',
  no: 'tidak',
  emptyBody: '(kosong)',
  signedFields: 'Kolom bertanda tangan yang dikirim',
  resend: 'Kirim ulang',
  merchantHeading: (code) => `Merchant ${code}`,
  previewHeading: 'Tampilannya',
  logoAlt: (name) => `Logo ${name}`,
  accentAlt: (color) => `Warna aksen ${color}`,
  accentAdjusted: (used, chosen) =>
    `Tautan, tombol, dan garis fokus di halaman pembayaran memakai ${used}, versi lebih gelap dari ${chosen}, agar kontrasnya minimal 4,5:1 di atas putih dan di atas latar halaman. Garis di atas kepala halaman tetap ${chosen}.`,
  brandingHeading: 'Nama, logo dan warna',
  displayName: 'Nama tampilan',
  logo: 'Logo: URL https, atau URL data:image/png;base64,… (PNG, JPEG, GIF atau WebP, paling besar 64 KiB)',
  accentColor: 'Warna aksen (#rrggbb)',
  supportContact: 'Kontak layanan pelanggan yang ditampilkan (email, telepon atau URL)',
  emptyUnsets: 'Kosongkan kolom untuk menghapusnya.',
  save: 'Simpan',
  notifyHeading: 'Notifikasi yang dikirim',
  saveNotify: 'Simpan notifikasi',
  notifyHelp: 'Pesanan yang dibayar selalu dinotifikasi, seperti keluarga BDPay; handler yang ditulis untuknya tidak mengakui yang lain. Pesanan gagal dan kedaluwarsa hanya dinotifikasi bila diminta di sini. Perubahan berlaku untuk pesanan yang ditutup mulai sekarang.',
  notifyKinds: { paid: 'Dibayar (selalu)', failed: 'Gagal', expired: 'Kedaluwarsa' },
};

export const DASHBOARD_MESSAGES: Readonly<Record<Locale, DashboardMessages>> = { en, id };
