/**
 * The words of the front page's "Figures" card (`figures-card.ts`) in the dashboard's two
 * languages: each figure's plain label, how a count and an age read, and what the card says when
 * the gateway runs with `metrics: false`. Part of `DashboardMessages` (`messages.ts`).
 */

export interface FiguresMessages {
  readonly heading: string;
  readonly intro: string;
  readonly ordersCreated: string;
  readonly paid: string;
  readonly expired: string;
  readonly failed: string;
  readonly queued: string;
  readonly oldestUndelivered: string;
  readonly attemptsDelivered: string;
  readonly attemptsFailed: string;
  readonly givenUp: string;
  readonly shed: string;
  readonly count: (value: number) => string;
  /** The oldest undelivered notification's age (the card says `none` when nothing waits). */
  readonly age: (seconds: number) => string;
  readonly none: string;
  readonly allMetrics: string;
  readonly whoMayRead: string;
  readonly off: string;
}

/** Whole seconds, minutes or hours: the age is a hint, not a stopwatch. */
function roughAge(seconds: number, units: { readonly s: string; readonly min: string; readonly h: string }): string {
  const whole = Math.round(seconds);
  if (whole < 120) return `${whole} ${units.s}`;
  if (whole < 7200) return `${Math.floor(whole / 60)} ${units.min}`;
  return `${Math.floor(whole / 3600)} ${units.h}`;
}

export const FIGURES_EN: FiguresMessages = {
  heading: 'Figures',
  intro: 'Counted by this gateway since it started; the queue is read from the store now.',
  ordersCreated: 'Orders created',
  paid: 'Paid',
  expired: 'Expired',
  failed: 'Failed',
  queued: 'Notifications waiting to be delivered',
  oldestUndelivered: 'Oldest undelivered notification',
  attemptsDelivered: 'Delivery attempts delivered',
  attemptsFailed: 'Delivery attempts failed',
  givenUp: 'Notifications given up',
  shed: 'Requests shed (too busy)',
  count: (value) => value.toLocaleString('en-US'),
  age: (seconds) => roughAge(seconds, { s: 's', min: 'min', h: 'h' }),
  none: 'none',
  allMetrics: 'Every metric, in Prometheus format:',
  whoMayRead: '(from this machine, or with the metrics token)',
  off: 'Metrics are off for this gateway (metrics: false): there are no figures to show.',
};

export const FIGURES_ID: FiguresMessages = {
  heading: 'Angka utama',
  intro: 'Dihitung oleh gateway ini sejak dijalankan; antrean dibaca dari penyimpanan saat ini.',
  ordersCreated: 'Pesanan dibuat',
  paid: 'Dibayar',
  expired: 'Kedaluwarsa',
  failed: 'Gagal',
  queued: 'Notifikasi menunggu dikirim',
  oldestUndelivered: 'Notifikasi tertua yang belum terkirim',
  attemptsDelivered: 'Percobaan kirim berhasil',
  attemptsFailed: 'Percobaan kirim gagal',
  givenUp: 'Notifikasi yang tidak dicoba lagi',
  shed: 'Permintaan ditolak (terlalu sibuk)',
  count: (value) => value.toLocaleString('id-ID'),
  age: (seconds) => roughAge(seconds, { s: 'detik', min: 'menit', h: 'jam' }),
  none: 'tidak ada',
  allMetrics: 'Semua metrik, dalam format Prometheus:',
  whoMayRead: '(dari mesin ini, atau dengan token metrik)',
  off: 'Metrik gateway ini dimatikan (metrics: false): tidak ada angka untuk ditampilkan.',
};
