import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { z } from 'zod';
import {
  createPaymentLinkRequestSchema, createPaymentLinkResponseSchema, createVaRequestSchema, createVaResponseSchema,
  notificationIsPaid, notificationSchema, parseWith, queryRequestSchema, queryResponseSchema,
} from '../src/index.ts';
import { loadVectors } from './vectors.ts';

const vectors = loadVectors().vectors;
const byId = (id: string) => vectors.find((vector) => vector.id === id)!;

const SIGN = byId('pay-va-bca').sign!;
const vaRequest = { ...byId('pay-va-bca').fields, sign: SIGN };
const linkRequest = { ...byId('prepaid-null-method').fields, sign: SIGN };

type Case = readonly [value: unknown, rule: RegExp | null];
/** [field, value, null for "accepted" or the rule its message must state]. */
const RULES: Record<string, Case[]> = {
  merchantCode: [['M0001', null], ['M'.repeat(50), null], ['M001', /5 to 50/], ['M'.repeat(51), /5 to 50/], [12345, /must be a string/], [undefined, /is required/]],
  orderNum: [['ORD-1', null], ['x'.repeat(64), null], ['', /is required/], ['x'.repeat(65), /at most 64/], ['ORD 1', /printable ASCII/], ['ORD\u00e9', /printable ASCII/]],
  payMoney: [['1', null], ['150000', null], ['999999999999', null], ['0', /positive whole number/], ['-5', /positive whole number/], ['150000.50', /positive whole number/], ['0150', /positive whole number/], ['1e5', /positive whole number/], [' 150', /positive whole number/], ['9999999999999', /positive whole number/], [150000, /must be a string/]],
  productDetail: [['x', null], ['x'.repeat(32), null], ['☕'.repeat(32), null], ['x'.repeat(33), /at most 32/], ['', /is required/]],
  name: [['Budi', null], ['n'.repeat(32), null], ['n'.repeat(33), /at most 32/], [null, /must be a string/]],
  email: [['budi@example.com', null], ['a.b+c@sub.example.co.id', null], ['budi', /e-mail/], ['budi@', /e-mail/], ['@example.com', /e-mail/], ['budi@exa mple.com', /e-mail/], [undefined, /is required/]],
  phone: [['081234567890', null], ['0812', null], ['081234567890x', /08 followed by digits/], ['6281234567890', /08 followed by digits/], ['+6281234567', /08 followed by digits/], ['08', /08 followed by digits/], ['08' + '1'.repeat(19), /at most 20/]],
  notifyUrl: [['https://shop.example/pay/notify', null], ['http://127.0.0.1:3000/pay/notify', null], ['shop.example/notify', /absolute http or https URL/], ['ftp://shop.example/x', /absolute http or https URL/], ['javascript:alert(1)', /absolute http or https URL/], ['https://' + 'a'.repeat(2050), /at most 2048/]],
  expiryPeriod: [['30', null], ['7200', null], ['120', null], ['29', /30 to 7200/], ['7201', /30 to 7200/], ['0', /30 to 7200/], ['60.5', /30 to 7200/], ['abc', /30 to 7200/], [120, /must be a string/]],
  dateTime: [['20261122143000', null], ['20240229235959', null], ['20250229120000', /real date/], ['20261301120000', /real date/], ['20261122240000', /real date/], ['20261122126000', /real date/], ['2026-11-22T14:30:00Z', /real date/], ['2026112214300', /real date/]],
  sign: [[SIGN, null], ['a'.repeat(512), null], ['a'.repeat(513), /at most 512/], ['not base64!', /base64/], ['', /is required/]],
};

function check(schema: z.ZodType, base: Record<string, unknown>, field: string, [value, rule]: Case) {
  const input = { ...base, [field]: value };
  if (value === undefined) delete input[field];
  const result = parseWith(schema, input);
  if (rule === null) {
    assert.equal(result.ok, true, `${field}=${JSON.stringify(value)} should pass: ${result.ok ? '' : result.message}`);
    return;
  }
  assert.equal(result.ok, false, `${field}=${JSON.stringify(value)} should fail`);
  if (result.ok) return;
  const issue = result.issues.find((candidate) => candidate.field === field);
  assert.ok(issue, `an issue must name ${field}, got ${result.message}`);
  assert.match(issue.message, rule);
  assert.match(result.message, new RegExp(`^${field}: `));
}

for (const [name, schema, base] of [
  ['Create VA request (spec 2.1)', createVaRequestSchema, vaRequest],
  ['Create Payment Link request (spec 2.3)', createPaymentLinkRequestSchema, linkRequest],
] as const) {
  describe(name, () => {
    it('accepts the shared vector request', () => {
      assert.equal(parseWith(schema, base).ok, true);
    });
    for (const [field, cases] of Object.entries(RULES)) {
      for (const testCase of cases) {
        it(`${field} = ${JSON.stringify(testCase[0])?.slice(0, 40)} ${testCase[1] ? 'fails: ' + testCase[1].source : 'passes'}`, () =>
          check(schema, base, field, testCase));
      }
    }
    it('refuses a body that is not an object, naming the body', () => {
      for (const body of [null, 'x', 42, [1, 2]]) {
        const result = parseWith(schema, body);
        assert.equal(result.ok, false);
        if (!result.ok) assert.equal(result.issues[0]!.field, 'body');
      }
    });
    it('names every failing field at once', () => {
      const result = parseWith(schema, { ...base, payMoney: '0', email: 'x', phone: '1' });
      assert.equal(result.ok, false);
      if (!result.ok) assert.deepEqual(result.issues.map((issue) => issue.field).sort(), ['email', 'payMoney', 'phone']);
    });
    it('ignores __proto__ and constructor keys without polluting anything', () => {
      const result = parseWith(schema, JSON.parse(JSON.stringify(base).replace('{', '{"__proto__":{"polluted":1},"constructor":{"x":1},')));
      assert.equal(result.ok, true);
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });
  });
}

describe('method', () => {
  it('Create VA takes the 14 codes and their aliases (BDPay\'s create-VA example sends BCA), normalised to the code', () => {
    assert.equal(parseWith(createVaRequestSchema, { ...vaRequest, method: 'EWALLET_OVO' }).ok, true);
    for (const [alias, code] of [['BCA', 'VA_BCA'], ['OVO', 'EWALLET_OVO'], ['QRIS', 'QRIS']] as const) {
      const result = parseWith(createVaRequestSchema, { ...vaRequest, method: alias });
      assert.equal(result.ok && result.value.method, code, alias);
    }
    for (const bad of ['bca', 'va_bca', 'EWALLET_OVOOVO_PLACEHOLDER', '', null]) {
      const result = parseWith(createVaRequestSchema, { ...vaRequest, method: bad });
      assert.equal(result.ok, false, String(bad));
      if (!result.ok) assert.match(result.message, /^method: /);
    }
  });
  it('Create Payment Link takes null, "", absent, a code or an alias, and normalises', () => {
    const cases: [unknown, string | null][] = [[null, null], ['', null], [undefined, null], ['VA_BCA', 'VA_BCA'], ['BCA', 'VA_BCA'], ['DANA', 'EWALLET_DANA'], ['ALFAMART', 'RETAIL_ALFAMART'], ['QRIS', 'QRIS']];
    for (const [method, expected] of cases) {
      const result = parseWith(createPaymentLinkRequestSchema, { ...linkRequest, method });
      assert.equal(result.ok, true, String(method));
      if (result.ok) assert.equal(result.value.method, expected);
    }
    for (const bad of ['bca', 'GOPAY', 42]) {
      const result = parseWith(createPaymentLinkRequestSchema, { ...linkRequest, method: bad });
      assert.equal(result.ok, false, String(bad));
      if (!result.ok) assert.match(result.message, /^method: must be null or one of VA_BCA/);
    }
  });
  it('method and redirectUrl may be left out of a payment link altogether', () => {
    const without: Record<string, unknown> = { ...linkRequest };
    delete without.method;
    delete without.redirectUrl;
    const result = parseWith(createPaymentLinkRequestSchema, without);
    assert.equal(result.ok, true, result.ok ? '' : result.message);
    if (result.ok) {
      assert.equal(result.value.method, null);
      assert.equal(result.value.redirectUrl, undefined);
    }
  });
  it('redirectUrl is optional on payment links and must be a URL when given', () => {
    assert.equal(parseWith(createPaymentLinkRequestSchema, { ...linkRequest, redirectUrl: undefined }).ok, true);
    assert.equal(parseWith(createPaymentLinkRequestSchema, { ...linkRequest, redirectUrl: '' }).ok, true);
    const bad = parseWith(createPaymentLinkRequestSchema, { ...linkRequest, redirectUrl: 'javascript:alert(1)' });
    assert.equal(bad.ok, false);
    if (!bad.ok) assert.match(bad.message, /^redirectUrl: must be an absolute http or https URL/);
  });
});

describe('query request', () => {
  const query = { merchantCode: 'M0001DEMO', orderNum: 'ORD-1', queryType: 'ORDER_QUERY', dateTime: '20261122143000', sign: SIGN };
  it('takes orderNum, platOrderNum or both', () => {
    assert.equal(parseWith(queryRequestSchema, query).ok, true);
    assert.equal(parseWith(queryRequestSchema, { ...query, orderNum: undefined, platOrderNum: 'P1' }).ok, true);
  });
  it('needs one of them, and ORDER_QUERY', () => {
    const none = parseWith(queryRequestSchema, { ...query, orderNum: undefined });
    assert.equal(none.ok, false);
    if (!none.ok) assert.match(none.message, /orderNum: orderNum or platOrderNum is required/);
    const type = parseWith(queryRequestSchema, { ...query, queryType: 'CASH_QUERY' });
    assert.equal(type.ok, false);
    if (!type.ok) assert.match(type.message, /^queryType: must be ORDER_QUERY/);
  });
});

describe('responses and notification', () => {
  it('the shared VA response vector parses as a success', () => {
    const vector = byId('response-va');
    const result = parseWith(createVaResponseSchema, { ...vector.fields, platSign: vector.platSign });
    assert.equal(result.ok, true);
  });
  it('a failure needs only its code and message', () => {
    for (const code of ['FAIL', 'UNKNOWN', 'NOTEXIST', 'ERROR']) {
      assert.equal(parseWith(createPaymentLinkResponseSchema, { platRespCode: code, platRespMessage: 'x' }).ok, true);
      assert.equal(parseWith(queryResponseSchema, { platRespCode: code, platRespMessage: 'x' }).ok, true);
    }
    assert.equal(parseWith(createVaResponseSchema, { platRespCode: 'MAYBE', platRespMessage: 'x' }).ok, false);
  });
  it('a success without its fields is refused, naming them', () => {
    const result = parseWith(createPaymentLinkResponseSchema, { platRespCode: 'SUCCESS', platRespMessage: 'ok', platSign: SIGN });
    assert.equal(result.ok, false);
    if (!result.ok) assert.deepEqual(result.issues.map((issue) => issue.field).sort(), ['email', 'name', 'orderNum', 'payMoney', 'platOrderNum', 'url']);
  });
  it('the shared notification vector parses and reads as paid', () => {
    const vector = byId('notify-paid');
    const result = parseWith(notificationSchema, { ...vector.fields, platSign: vector.platSign });
    assert.equal(result.ok, true);
    if (result.ok) assert.equal(notificationIsPaid(result.value), true);
    assert.equal(notificationIsPaid({ code: '00', status: 'FAILED' }), false);
    assert.equal(notificationIsPaid({ code: '01', status: 'SUCCESS' }), false);
  });
  it('a tampered notification amount is refused by the schema when not a rupiah amount', () => {
    const vector = byId('notify-paid');
    const result = parseWith(notificationSchema, { ...vector.fields, payMoney: '150000.00', platSign: vector.platSign });
    assert.equal(result.ok, false);
    if (!result.ok) assert.match(result.message, /^payMoney: /);
  });
});

describe('rule identifiers: what a program keys on instead of the words', () => {
  it('each kind of failure has its RuleId, and describeIssues writes field: rule; field: rule', async () => {
    const { amountField, describeIssues, emailField, expiryPeriodField, methodField, orderNumField, parseWith: parse } = await import('../src/index.ts');
    const cases = [
      [orderNumField, undefined, 'required'],
      [orderNumField, '', 'required'],
      [orderNumField, 42, 'type'],
      [orderNumField, 'x'.repeat(65), 'too_long'],
      [orderNumField, 'has space', 'format'],
      [amountField, '15.5', 'format'],
      [emailField, 'nope', 'format'],
      [methodField, 'CASH', 'value'],
      [expiryPeriodField, '10', 'rule'],
    ] as const;
    for (const [schema, input, rule] of cases) {
      const result = parse(schema as never, input);
      assert.equal(result.ok, false);
      if (!result.ok) assert.equal(result.issues[0]!.rule, rule, `${JSON.stringify(input)}: ${result.message}`);
    }
    assert.equal(describeIssues([{ field: 'a', message: 'is required' }, { field: 'b.c', message: 'must be x' }]), 'a: is required; b.c: must be x');
  });
});
