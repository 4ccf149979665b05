import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { z } from 'zod';
import {
  canonicalFields, createPaymentLinkRequestSchema, createPaymentLinkResponseSchema, createVaRequestSchema, createVaResponseSchema, notificationSchema, parseMessage, parseWith,
  queryRequestSchema, queryResponseSchema,
} from '../src/index.ts';
import { quickParseAnswers } from '../src/quick-parse.ts';

const SIGN = 'A'.repeat(170) + '==';
const create = {
  merchantCode: 'BENCHSHOP01', orderNum: 'ORD-0001', payMoney: '150000', productDetail: 'Kopi Gayo 250 g x2', name: 'Budi Santoso',
  email: 'budi.santoso@example.co.id', phone: '081234567890', notifyUrl: 'https://toko-kopi.co.id/pay/notify', expiryPeriod: '60',
  dateTime: '20261122143000', sign: SIGN,
};
const query = { merchantCode: 'BENCHSHOP01', orderNum: 'ORD-0001', platOrderNum: 'P'.repeat(24), queryType: 'ORDER_QUERY', dateTime: '20261122143000', sign: SIGN };

/** Values tried in every field: valid and not, at the edges of every rule. */
const TRIED: unknown[] = [
  undefined, null, '', ' ', 0, 1, 150000, 1.5, true, [], {}, '\u0000', 'x', 'x'.repeat(4), 'x'.repeat(5), 'x'.repeat(32), 'x'.repeat(33), 'x'.repeat(50), 'x'.repeat(51),
  'x'.repeat(64), 'x'.repeat(65), 'ORD 1', 'ORD\u00e9', '☕'.repeat(32), '150000', '0', '0150', '150000.00', '999999999999', '9999999999999', '29', '30', '7200', '7201', '60.5',
  '081234567890', '08', '08' + '1'.repeat(19), '+6281234567', 'budi@example.com', 'budi@', 'a.b+c@sub.example.co.id', 'https://shop.example/notify', ' https://shop.example/notify ',
  'PAID', 'PENDING', 'EXPIRED', 'FAILED', 'SUCCESS', 'FAIL', 'NOTEXIST', '00', '01', '1', '000', 'x'.repeat(256), 'x'.repeat(257), '1234567890123',
  'https://shop.example/a b', 'http://127.0.0.1:3000/x', 'ftp://shop.example/x', 'https:/shop.example', 'https://' + 'a'.repeat(2050), 'javascript:alert(1)', 'https://exa_mple.com/',
  '20261122143000', '20250229120000', '2026-11-22T14:30:00Z', 'VA_BCA', 'BCA', 'va_bca', 'QRIS', 'NOPE', 'ORDER_QUERY', 'order_query', SIGN, 'a'.repeat(513), 'not base64!', 'ab==', 'ab===',
];

/**
 * The parsed value with keys holding undefined left out: zod keeps an optional key the input
 * carried as `undefined`, the quick check may not; every consumer reads properties, never keys.
 */
function defined(result: { ok: boolean; value?: unknown; message?: string }) {
  if (!result.ok) return result;
  return { ok: true, value: Object.fromEntries(Object.entries(result.value as object).filter(([, value]) => value !== undefined)) };
}

/** `canonical`: the input as a receiver that maps liberal forms sees it (the gateway's requests, the plug-in's notifications). */
function agree(schema: z.ZodType, base: Record<string, unknown>, fields: readonly string[], canonical = true): number {
  let quick = 0;
  for (const field of fields) {
    for (const value of TRIED) {
      const raw = { ...base, [field]: value };
      const input = canonical ? (canonicalFields(raw as never) as Record<string, unknown>) : raw;
      if (quickParseAnswers(schema, input)) quick++;
      assert.deepStrictEqual(defined(parseMessage(schema, input)), defined(parseWith(schema, input)), `${field} = ${JSON.stringify(value)}`);
    }
  }
  return quick;
}

describe('parseMessage: the quick check answers as zod does', () => {
  it('create VA, every field through every tried value', () => {
    assert.ok(quickParseAnswers(createVaRequestSchema, { ...create, method: 'VA_BCA' }));
    assert.ok(agree(createVaRequestSchema, { ...create, method: 'VA_BCA' }, [...Object.keys(create), 'method', 'extra']) > 20);
  });
  it('create payment link, with and without a method and a redirectUrl', () => {
    assert.ok(quickParseAnswers(createPaymentLinkRequestSchema, create));
    for (const base of [create, { ...create, method: 'BCA', redirectUrl: 'https://toko-kopi.co.id/done' }]) {
      assert.ok(agree(createPaymentLinkRequestSchema, base, [...Object.keys(create), 'method', 'redirectUrl', 'extra']) > 20);
    }
  });
  it('query, by orderNum, by platOrderNum, or both', () => {
    const { platOrderNum: _p, ...byOrderNum } = query;
    const { orderNum: _o, ...byPlat } = query;
    for (const base of [query, byOrderNum, byPlat]) assert.ok(agree(queryRequestSchema, base, [...Object.keys(query), 'extra']) > 5);
  });
  it('anything but an object goes to zod', () => {
    for (const input of [null, [], 'x', 1]) assert.deepStrictEqual(parseMessage(createVaRequestSchema, input), parseWith(createVaRequestSchema, input));
  });
  it('the answers: a created link, a created VA, a query (every optional field present, or none), and a failure', () => {
    const common = { platRespCode: 'SUCCESS', platRespMessage: 'Request Transaction Success', platSign: SIGN, platOrderNum: 'P'.repeat(24), orderNum: 'ORD-0001', name: 'Budi Santoso', email: 'budi@example.com', payMoney: '150000' };
    const link = { ...common, url: 'https://pay.example.id/pay/P1' };
    const va = { ...common, method: 'VA_BCA', vaNumber: '1234567890123', payFee: '4000', productDetail: 'Kopi Gayo 250 g x2' };
    const bare = { ...common, status: 'PENDING', productDetail: 'Kopi Gayo 250 g x2', createTime: '20261122143000', expireTime: '20261122153000' };
    const full = { ...bare, status: 'PAID', method: 'QRIS', payFee: '0', vaNumber: '00020101', url: 'https://pay.example.id/pay/P1', paidTime: '20261122144500' };
    const extra = ['platRespCode', 'platRespMessage', 'platSign', 'extra'];
    assert.ok(agree(createPaymentLinkResponseSchema, link, [...Object.keys(link), 'extra'], false) > 20);
    assert.ok(agree(createVaResponseSchema, va, [...Object.keys(va), 'extra'], false) > 20);
    for (const base of [bare, full]) assert.ok(agree(queryResponseSchema, base, [...Object.keys(full), ...extra], false) > 20);
    for (const schema of [createPaymentLinkResponseSchema, createVaResponseSchema, queryResponseSchema]) {
      assert.equal(agree(schema, { platRespCode: 'NOTEXIST', platRespMessage: 'no such order', platSign: SIGN }, extra, false), 0, 'a failure is zod\'s');
    }
  });
  it('the notification, with and without its optional fields', () => {
    const paid = { code: '00', msg: 'SUCCESS', status: 'SUCCESS', name: 'Budi Santoso', email: 'budi@example.com', orderNum: 'ORD-0001', platOrderNum: 'P'.repeat(24), payMoney: '150000', platSign: SIGN };
    const full = { ...paid, method: 'VA_BCA', payFee: '4000', vaNumber: '1234567890123' };
    for (const base of [paid, full]) assert.ok(agree(notificationSchema, base, [...Object.keys(full), 'extra']) > 20);
  });
});
