/**
 * What a customer does to pay, per method, in both languages. Menu names are the ones the banks'
 * own ATMs and apps show (mostly Indonesian, as customers see them) and may drift as the banks
 * update their apps; they are kept short on purpose. Every step is plain text: the page escapes it.
 */
import { METHODS, type MethodCode } from '@tombolbayar/protocol';
import type { Locale } from './i18n.ts';

export interface StepGroup {
  readonly title: string;
  readonly steps: readonly string[];
}

export interface StepContext {
  /** VA number, payment code or e-wallet reference. */
  readonly code: string;
  /** Total to pay, formatted (`Rp 154.000`). */
  readonly total: string;
  readonly merchant: string;
}

interface Channel {
  /** Name of the ATM, app or site. */
  readonly name: string;
  /** Menu path to the virtual-account payment. */
  readonly menu: string;
}

interface Bank {
  /** Short bank name customers know. */
  readonly short: string;
  /** Interbank transfer code. */
  readonly code: string;
  readonly atm?: Channel;
  readonly mobile?: Channel;
  readonly internet?: Channel;
}

type VaCode = Extract<MethodCode, `VA_${string}`>;

const BANKS: Readonly<Record<VaCode, Bank>> = {
  VA_BCA: {
    short: 'BCA', code: '014',
    atm: { name: 'ATM BCA', menu: 'Transaksi Lainnya > Transfer > ke Rek BCA Virtual Account' },
    mobile: { name: 'BCA mobile', menu: 'm-Transfer > BCA Virtual Account' },
    internet: { name: 'KlikBCA', menu: 'Transfer Dana > Transfer ke BCA Virtual Account' },
  },
  VA_MANDIRI: {
    short: 'Mandiri', code: '008',
    atm: { name: 'ATM Mandiri', menu: 'Bayar/Beli > Multipayment' },
    mobile: { name: "Livin' by Mandiri", menu: 'Bayar > Multipayment' },
  },
  VA_PERMATA: {
    short: 'Permata', code: '013',
    atm: { name: 'ATM Permata', menu: 'Transaksi Lainnya > Pembayaran > Pembayaran Lainnya > Virtual Account' },
    mobile: { name: 'PermataMobile X', menu: 'Bayar Tagihan > Virtual Account' },
    internet: { name: 'PermataNet', menu: 'Pembayaran Tagihan > Virtual Account' },
  },
  VA_CIMB: {
    short: 'CIMB Niaga', code: '022',
    atm: { name: 'ATM CIMB Niaga', menu: 'Pembayaran > Virtual Account' },
    mobile: { name: 'OCTO Mobile', menu: 'Transfer > Virtual Account' },
    internet: { name: 'OCTO Clicks', menu: 'Pembayaran Tagihan > Virtual Account' },
  },
  VA_BNI: {
    short: 'BNI', code: '009',
    atm: { name: 'ATM BNI', menu: 'Menu Lainnya > Transfer > Virtual Account Billing' },
    mobile: { name: 'wondr by BNI', menu: 'Transfer > Virtual Account' },
    internet: { name: 'BNI Internet Banking', menu: 'Transfer > Virtual Account Billing' },
  },
  VA_BRI: {
    short: 'BRI', code: '002',
    atm: { name: 'ATM BRI', menu: 'Transaksi Lain > Pembayaran > Lainnya > BRIVA' },
    mobile: { name: 'BRImo', menu: 'BRIVA' },
    internet: { name: 'Internet Banking BRI', menu: 'Pembayaran > BRIVA' },
  },
  VA_BNC: {
    short: 'Bank Neo Commerce', code: '490',
    mobile: { name: 'neobank', menu: 'Transfer > Virtual Account' },
  },
  VA_SAMPOERNA: { short: 'Bank Sahabat Sampoerna', code: '523' },
  VA_MAYBANK: {
    short: 'Maybank', code: '016',
    atm: { name: 'ATM Maybank', menu: 'Pembayaran > Virtual Account' },
    mobile: { name: 'Maybank2u ID', menu: 'Bayar > Virtual Account' },
  },
  VA_DANAMON: {
    short: 'Danamon', code: '011',
    atm: { name: 'ATM Danamon', menu: 'Pembayaran > Lainnya > Virtual Account' },
    mobile: { name: 'D-Bank PRO', menu: 'Pembayaran > Virtual Account' },
  },
};

interface Templates {
  readonly atmTitle: (atm: string) => string;
  readonly appTitle: (app: string) => string;
  readonly otherBankTitle: string;
  readonly insertCard: string;
  readonly logIn: (app: string) => string;
  readonly choose: (menu: string) => string;
  readonly enterVa: (va: string) => string;
  readonly checkAndConfirm: (merchant: string, total: string) => string;
  readonly keepReceipt: string;
  readonly interbank: string;
  readonly chooseBank: (bank: string, code: string) => string;
  readonly enterAmount: (va: string, total: string) => string;
  readonly interbankFee: string;
  readonly retail: (ctx: StepContext) => StepGroup;
  readonly qris: (ctx: StepContext) => StepGroup;
  readonly ewallet: (app: string, ctx: StepContext) => StepGroup;
}

const EN: Templates = {
  atmTitle: (atm) => atm,
  appTitle: (app) => app,
  otherBankTitle: 'From another bank',
  insertCard: 'Insert your card and enter your PIN.',
  logIn: (app) => `Log in to ${app}.`,
  choose: (menu) => `Choose ${menu}.`,
  enterVa: (va) => `Enter the virtual account number ${va}.`,
  checkAndConfirm: (merchant, total) => `Check that the name shows ${merchant} and the amount is ${total}, then confirm.`,
  keepReceipt: 'Keep the receipt until this page shows the payment as received.',
  interbank: 'In your bank’s app or ATM, choose a transfer to another bank (online transfer).',
  chooseBank: (bank, code) => `Choose ${bank} (bank code ${code}).`,
  enterAmount: (va, total) => `Enter the account number ${va} and exactly ${total}, then confirm.`,
  interbankFee: 'Your bank may charge a transfer fee.',
  retail: (ctx) => ({
    title: 'At Alfamart',
    steps: [
      'Go to any Alfamart, Alfamidi or Dan+Dan store.',
      `Tell the cashier you want to make a payment to ${ctx.merchant}.`,
      `Show the payment code ${ctx.code}.`,
      `Pay ${ctx.total} in cash or by debit card. The store may add a small service fee.`,
      'Keep the receipt as proof of payment.',
    ],
  }),
  qris: (ctx) => ({
    title: 'With any QRIS app',
    steps: [
      'Open a mobile banking or e-wallet app that supports QRIS (for example BCA mobile, BRImo, GoPay, OVO, DANA or ShopeePay).',
      'Choose Scan or Pay, and scan the QR code. On this phone: download the QR code and open it from the gallery in the app.',
      `Check that the merchant is ${ctx.merchant} and the amount is ${ctx.total}.`,
      'Confirm with your PIN.',
    ],
  }),
  ewallet: (app, ctx) => ({
    title: `In the ${app} app`,
    steps: [
      `Open the ${app} app on your phone and log in.`,
      `Open the payment request from ${ctx.merchant} in your notifications, or choose Pay and enter the reference ${ctx.code}.`,
      `Check that the amount is ${ctx.total} and that your balance is enough.`,
      'Confirm with your PIN.',
    ],
  }),
};

const ID: Templates = {
  atmTitle: (atm) => atm,
  appTitle: (app) => app,
  otherBankTitle: 'Dari bank lain',
  insertCard: 'Masukkan kartu dan PIN Anda.',
  logIn: (app) => `Masuk ke ${app}.`,
  choose: (menu) => `Pilih ${menu}.`,
  enterVa: (va) => `Masukkan nomor virtual account ${va}.`,
  checkAndConfirm: (merchant, total) => `Pastikan nama yang muncul adalah ${merchant} dan nominalnya ${total}, lalu konfirmasi.`,
  keepReceipt: 'Simpan bukti transaksi sampai halaman ini menunjukkan pembayaran sudah diterima.',
  interbank: 'Di aplikasi atau ATM bank Anda, pilih transfer ke bank lain (transfer online).',
  chooseBank: (bank, code) => `Pilih ${bank} (kode bank ${code}).`,
  enterAmount: (va, total) => `Masukkan nomor rekening ${va} dan nominal ${total} (harus sama persis), lalu konfirmasi.`,
  interbankFee: 'Bank Anda mungkin mengenakan biaya transfer.',
  retail: (ctx) => ({
    title: 'Di Alfamart',
    steps: [
      'Datang ke gerai Alfamart, Alfamidi atau Dan+Dan mana pun.',
      `Sampaikan kepada kasir bahwa Anda ingin melakukan pembayaran ke ${ctx.merchant}.`,
      `Tunjukkan kode pembayaran ${ctx.code}.`,
      `Bayar ${ctx.total} tunai atau dengan kartu debit. Gerai mungkin menambahkan biaya layanan kecil.`,
      'Simpan struk sebagai bukti pembayaran.',
    ],
  }),
  qris: (ctx) => ({
    title: 'Dengan aplikasi QRIS apa pun',
    steps: [
      'Buka aplikasi mobile banking atau e-wallet yang mendukung QRIS (misalnya BCA mobile, BRImo, GoPay, OVO, DANA atau ShopeePay).',
      'Pilih Scan atau Bayar, lalu pindai kode QR. Di ponsel ini: unduh kode QR lalu buka dari galeri di aplikasi.',
      `Pastikan nama merchant ${ctx.merchant} dan jumlahnya ${ctx.total}.`,
      'Konfirmasi dengan PIN Anda.',
    ],
  }),
  ewallet: (app, ctx) => ({
    title: `Di aplikasi ${app}`,
    steps: [
      `Buka aplikasi ${app} di ponsel Anda dan masuk.`,
      `Buka permintaan pembayaran dari ${ctx.merchant} di notifikasi, atau pilih Bayar dan masukkan referensi ${ctx.code}.`,
      `Pastikan jumlahnya ${ctx.total} dan saldo Anda cukup.`,
      'Konfirmasi dengan PIN Anda.',
    ],
  }),
};

function isVaCode(method: MethodCode): method is VaCode {
  return METHODS[method].kind === 'virtual-account';
}

function bankSteps(bank: Bank, t: Templates, ctx: StepContext): StepGroup[] {
  const groups: StepGroup[] = [];
  const finish = [t.enterVa(ctx.code), t.checkAndConfirm(ctx.merchant, ctx.total), t.keepReceipt];
  if (bank.atm) groups.push({ title: t.atmTitle(bank.atm.name), steps: [t.insertCard, t.choose(bank.atm.menu), ...finish] });
  for (const app of [bank.mobile, bank.internet]) {
    if (app) groups.push({ title: t.appTitle(app.name), steps: [t.logIn(app.name), t.choose(app.menu), ...finish] });
  }
  groups.push({
    title: t.otherBankTitle,
    steps: [t.interbank, t.chooseBank(bank.short, bank.code), t.enterAmount(ctx.code, ctx.total), t.interbankFee],
  });
  return groups;
}

/** The ways to pay with `method`, most common first. Never empty. */
export function paymentSteps(method: MethodCode, locale: Locale, ctx: StepContext): StepGroup[] {
  const t = locale === 'id' ? ID : EN;
  if (isVaCode(method)) return bankSteps(BANKS[method], t, ctx);
  const info = METHODS[method];
  switch (info.kind) {
    case 'retail':
      return [t.retail(ctx)];
    case 'qr':
      return [t.qris(ctx)];
    case 'e-wallet':
      return [t.ewallet(info.displayName, ctx)];
    default:
      throw new Error(`no payment steps for ${method}`);
  }
}
