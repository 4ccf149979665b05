/**
 * `POST {endpoint}/va` (operation 1), the part of the contract only `<pay-va>` uses, kept here so
 * that it loads with `<pay-va>` and not with the script-tag file.
 */
import { endpointUrl, request, strings, type Json, type VaOrder } from '../../internal/api.ts';
import { isFeeAmount, isRupiahAmount } from './formats.ts';

/** The contract's VA order; amounts are the protocol's (`payFee` may be zero), as strings or numbers. */
export const isVaOrder = (b: Json): boolean =>
  strings(b, 'orderNum method vaNumber expiresAt statusToken') && isRupiahAmount(b.payMoney as string) && isFeeAmount(b.payFee as string);

/** `POST {endpoint}/va`: a virtual-account (or QRIS, Alfamart, e-wallet) order to show inline. */
export async function createVa(endpoint: string, body: Json, signal: AbortSignal): Promise<VaOrder> {
  return request(`${endpointUrl(endpoint)}/va`, isVaOrder, signal, body);
}
