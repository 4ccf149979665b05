/** A merchant as a test drives it: signed JSON requests over real HTTP, and valid request bodies. */
import { formatDateTime, sign, type SignableFields } from '@tombolbayar/protocol/node';

export interface MerchantIdentity {
  readonly merchantCode: string;
  readonly privateKey: string;
}

export interface HttpAnswer {
  readonly status: number;
  readonly body: Record<string, string>;
  readonly headers: Headers;
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as Record<string, string>, headers: response.headers };
}

/** The fields with the merchant's `sign` added. */
export function signed(fields: SignableFields, privateKey: string): Record<string, unknown> {
  return { ...fields, sign: sign(fields, privateKey) };
}

let sequence = 0;
export function uniqueOrderNum(prefix = 'ORD'): string {
  sequence += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${sequence}`;
}

/** A valid Create VA request body without `sign`. */
export function vaRequest(merchantCode: string, overrides: Record<string, string | null | undefined> = {}): Record<string, string | null | undefined> {
  return {
    merchantCode,
    method: 'VA_BCA',
    orderNum: uniqueOrderNum(),
    payMoney: '150000',
    productDetail: 'Kopi Gayo 250g',
    name: 'Budi Santoso',
    email: 'budi@example.com',
    phone: '081234567890',
    notifyUrl: 'http://127.0.0.1:9/notify',
    expiryPeriod: '60',
    dateTime: formatDateTime(),
    ...overrides,
  };
}

/** A valid Create Payment Link request body without `sign` (no method unless given). */
export function linkRequest(merchantCode: string, overrides: Record<string, string | null | undefined> = {}): Record<string, string | null | undefined> {
  const { method: _method, ...base } = vaRequest(merchantCode);
  return { ...base, redirectUrl: 'http://127.0.0.1:9/return', ...overrides };
}

export function merchantClient(baseUrl: string, merchant: MerchantIdentity) {
  return {
    /** POST the fields, signed with the merchant's key. */
    call(path: string, fields: SignableFields) {
      return postJson(`${baseUrl}${path}`, signed(fields, merchant.privateKey));
    },
    createVa(overrides: Record<string, string | null | undefined> = {}) {
      return this.call('/gateway/pay', vaRequest(merchant.merchantCode, overrides));
    },
    createLink(overrides: Record<string, string | null | undefined> = {}) {
      return this.call('/gateway/prepaidOrder', linkRequest(merchant.merchantCode, overrides));
    },
    query(fields: { orderNum?: string; platOrderNum?: string }) {
      return this.call('/gateway/query', {
        merchantCode: merchant.merchantCode,
        queryType: 'ORDER_QUERY',
        dateTime: formatDateTime(),
        ...fields,
      });
    },
  };
}
