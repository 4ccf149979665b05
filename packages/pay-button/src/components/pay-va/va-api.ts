/**
 * `POST {endpoint}/va` (operation 1), the part of the contract only `<pay-va>` uses, kept here so
 * that it loads with `<pay-va>` and not with the script-tag file.
 */
import { AMOUNT, endpointUrl, request, strings, type Json, type VaOrder } from '../../internal/api.ts';

export const isVaOrder = (b: Json): boolean =>
  strings(b, 'orderNum method vaNumber expiresAt statusToken') && AMOUNT.test(b.payMoney as string) && AMOUNT.test(b.payFee as string);

/** `POST {endpoint}/va`: a virtual-account (or QRIS, Alfamart, e-wallet) order to show inline. */
export async function createVa(endpoint: string, body: Json, signal: AbortSignal): Promise<VaOrder> {
  return request(`${endpointUrl(endpoint)}/va`, isVaOrder, signal, body);
}
