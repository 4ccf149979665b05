/**
 * The parts of the contract only `<pay-va>` uses, kept here so that they load with `<pay-va>` and
 * not with the script-tag file: `POST {endpoint}/va` (operation 1) and
 * `GET {endpoint}/orders/:orderNum/qr` (the QRIS code, drawn by the plug-in).
 */
import { getOrder, request, strings, type Json, type VaOrder } from '../../internal/api.ts';
import { isFeeAmount, isRupiahAmount } from './formats.ts';

/** The contract's VA order; amounts are the protocol's (`payFee` may be zero), as strings or numbers. */
export const isVaOrder = (b: Json): boolean =>
  strings(b, 'orderNum method vaNumber expiresAt statusToken') && isRupiahAmount(b.payMoney as string) && isFeeAmount(b.payFee as string);

/** `POST {endpoint}/va`: a virtual-account (or QRIS, Alfamart, e-wallet) order to show inline. */
export async function createVa(endpoint: string, body: Json, signal: AbortSignal): Promise<VaOrder> {
  return request(endpoint, '/va', isVaOrder, signal, body);
}

/** A QR code as the plug-in draws it: SVG path data of the dark modules on a `size` x `size` grid. */
export interface QrCode {
  orderNum: string;
  size: number;
  path: string;
}

/** Versions 1 to 40 with the quiet zone: 29 to 185 modules. The path is nothing but moves and lines. */
export const isQrCode = (b: Json): boolean =>
  Number.isInteger(b.size) && (b.size as number) >= 29 && (b.size as number) <= 185 && typeof b.path === 'string' && /^[Mhvz0-9 -]+$/.test(b.path);

/** `GET {endpoint}/orders/:orderNum/qr`, the status token in its header. */
export async function getQr(endpoint: string, orderNum: string, token: string, signal: AbortSignal): Promise<QrCode> {
  return getOrder<QrCode>(endpoint, orderNum, token, signal, isQrCode, '/qr');
}
