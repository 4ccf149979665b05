/** A merchant as a test drives it: signed JSON requests over real HTTP, and valid request bodies. */
import http from 'node:http';
import { formatDateTime, sign, type SignableFields } from '@tombolbayar/protocol/node';
import { send } from '@tombolbayar/test-support/hostile';

export interface MerchantIdentity {
  readonly merchantCode: string;
  readonly privateKey: string;
}

export interface HttpAnswer {
  readonly status: number;
  readonly body: Record<string, string>;
  readonly headers: Headers;
}

/**
 * Keep-alive sockets without a cap: a test's concurrent requests are all in flight at once. Over
 * node:http rather than fetch, so that a request sent on a kept-alive socket the server had just
 * closed for idleness (the race every HTTP/1.1 client has, wider when a loaded machine delays
 * timers) is known never to have reached it, and is sent again on a fresh socket (test-support's
 * `send`): fetch reports it as a bare `fetch failed`.
 */
const agent = new http.Agent({ keepAlive: true });

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  const target = new URL(url);
  const answer = await send(target.origin, `${target.pathname}${target.search}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    agent,
  });
  const received = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) received.append(name, one);
  }
  return { status: answer.status, body: JSON.parse(answer.text) as Record<string, string>, headers: received };
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
