/** Pure decision functions, table-tested: fees, limits, payment codes, QRIS, notifications, faults, errors. */
import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { DEFAULT_NOTIFICATION_KINDS, kindsFromStored, parseNotificationKinds } from '../src/domain/notify-kinds.ts';
import { loggableUrl } from '../src/notify/delivery/loggable-url.ts';
import { MAX_RUPIAH, METHOD_CODES, METHODS, NOTIFICATION_OUTCOMES, type MethodCode } from '@tombolbayar/protocol';
import { sign, verify } from '@tombolbayar/protocol/node';
import { createClock } from '../src/domain/clock.ts';
import { generatePaymentCode, VA_PREFIXES } from '../src/domain/payment-codes.ts';
import {
  anyMethodAccepts,
  buildFeeTable,
  buildLimitTable,
  computeFee,
  DEFAULT_FEES,
  DEFAULT_LIMITS,
  feeRuleSchema,
  overallRange,
} from '../src/domain/pricing.ts';
import { buildQrisPayload, crc16CcittFalse, hasValidCrc, parseTlv } from '../src/domain/qris.ts';
import type { Order } from '../src/domain/types.ts';
import { signedBody } from '../src/http/respond.ts';
import { LEASE_MARGIN_MS, resolveLeaseMs } from '../src/notify/lease.ts';
import { notificationFields } from '../src/notify/notification.ts';
import { resolveOptions } from '../src/options.ts';
import { effectiveFaults } from '../src/sandbox/faults.ts';
import { methodDecision } from '../src/sandbox/simulate.ts';
import { uniqueViolation } from '../src/store/errors.ts';
import { GatewayConfigError, createGateway } from '../src/index.ts';
import { platformKeys } from './support/keys.ts';

describe('fees', () => {
  const cases: [Parameters<typeof computeFee>[0], number, number][] = [
    [{ type: 'flat', amount: 4000 }, 150_000, 4000],
    [{ type: 'flat', amount: 0 }, 150_000, 0],
    [{ type: 'percent', percent: 0.7 }, 100_000, 700],
    [{ type: 'percent', percent: 0.7 }, 10_001, 71], // 70.007 rounds up
    [{ type: 'percent', percent: 1.5 }, 1_000, 15],
    [{ type: 'percent', percent: 1.5, min: 100 }, 1_000, 100],
    [{ type: 'percent', percent: 2.9999 }, 999_999_999_999, 29_999_000_000], // 29 998 999 999.97 rounds up,
  ];
  for (const [rule, amount, fee] of cases) {
    test(`${JSON.stringify(rule)} on ${amount} is ${fee}`, () => assert.equal(computeFee(rule, amount), fee));
  }
  test('defaults by kind, overridable per method', () => {
    assert.deepEqual(DEFAULT_FEES.VA_BCA, { type: 'flat', amount: 4000 });
    assert.deepEqual(DEFAULT_FEES.QRIS, { type: 'percent', percent: 0.7 });
    assert.deepEqual(buildFeeTable({ VA_BCA: { type: 'flat', amount: 2500 } }).VA_BCA, { type: 'flat', amount: 2500 });
    assert.equal(feeRuleSchema.safeParse({ type: 'percent', percent: 0.12345 }).success, false);
    assert.equal(feeRuleSchema.safeParse({ type: 'flat', amount: -1 }).success, false);
    assert.equal(feeRuleSchema.safeParse({ type: 'flat', amount: MAX_RUPIAH }).success, true);
    assert.equal(feeRuleSchema.safeParse({ type: 'flat', amount: MAX_RUPIAH + 1 }).success, false, "above the protocol's largest amount");
  });
});

describe('signed answers', () => {
  test('leave absent fields out, as the signature does, and platSign covers the rest', () => {
    const keys = platformKeys();
    const body = signedBody((fields) => sign(fields, keys.privateKey), 'SUCCESS', 'ok', { orderNum: 'O-1', vaNumber: '', method: null, url: undefined });
    assert.deepEqual(Object.keys(body).sort(), ['orderNum', 'platRespCode', 'platRespMessage', 'platSign']);
    const { platSign, ...rest } = body;
    assert.ok(verify(rest, platSign!, keys.publicKey));
  });
});

describe('limits', () => {
  test('defaults and the overall range', () => {
    assert.deepEqual(DEFAULT_LIMITS.VA_MANDIRI, { min: 10_000, max: 50_000_000 });
    assert.deepEqual(DEFAULT_LIMITS.RETAIL_ALFAMART, { min: 10_000, max: 5_000_000 });
    assert.deepEqual(overallRange(DEFAULT_LIMITS), { min: 1_000, max: 50_000_000 });
    assert.equal(anyMethodAccepts(DEFAULT_LIMITS, 999), false);
    assert.equal(anyMethodAccepts(buildLimitTable({ QRIS: { min: 1, max: 10 } }), 5), true);
  });
  test('options are validated when the gateway is created', () => {
    assert.throws(
      () => createGateway({ platformPrivateKey: 'x', limits: { QRIS: { min: 10, max: 1 } }, logger: false }),
      (error: unknown) => error instanceof GatewayConfigError && /limits\.QRIS: min must not exceed max/.test(error.message),
    );
    assert.throws(
      () => createGateway({ platformPrivateKey: '-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----', logger: false }),
      (error: unknown) => error instanceof GatewayConfigError && /platformPrivateKey/.test(error.message) && !/nope/.test(error.message),
    );
  });

  test('maxEventLoopDelayMs: a whole number of milliseconds or false, named when wrong', () => {
    for (const maxEventLoopDelayMs of [1, 250, 600_000, false] as const) assert.doesNotThrow(() => resolveOptions({ platformPrivateKey: 'x', maxEventLoopDelayMs }));
    for (const bad of [0, 2.5, 600_001, true, '250']) {
      assert.throws(
        () => resolveOptions({ platformPrivateKey: 'x', maxEventLoopDelayMs: bad as never }),
        (error: unknown) => error instanceof GatewayConfigError && /maxEventLoopDelayMs: must be false or a whole number of milliseconds from 1 to 600000/.test(error.message),
        String(bad),
      );
    }
  });

  test('a notification lease must outlast its attempt: leaseMs > timeoutMs + margin', () => {
    const refused = (notifications: { leaseMs?: number; timeoutMs?: number }) =>
      assert.throws(
        () => resolveOptions({ platformPrivateKey: 'x', notifications }),
        (error: unknown) => error instanceof GatewayConfigError && /notifications\.leaseMs: must be at least/.test(error.message),
        JSON.stringify(notifications),
      );
    refused({ leaseMs: 5_000, timeoutMs: 10_000 }); // below the timeout
    refused({ leaseMs: 10_000, timeoutMs: 10_000 }); // no margin
    refused({ leaseMs: 15_000 }); // the default timeout is 10 s
    assert.throws(() => createGateway({ platformPrivateKey: 'x', notifications: { leaseMs: 1_000 }, logger: false }), GatewayConfigError);
    for (const notifications of [{ leaseMs: 10_000 + LEASE_MARGIN_MS }, { leaseMs: 30_000, timeoutMs: 20_000 }, { timeoutMs: 120_000 }]) {
      assert.doesNotThrow(() => resolveOptions({ platformPrivateKey: 'x', notifications }), JSON.stringify(notifications));
    }
  });

  test('the lease by default: 60 s, stretched for a long attempt timeout', () => {
    assert.equal(resolveLeaseMs(undefined, undefined), 60_000);
    assert.equal(resolveLeaseMs(undefined, 5_000), 60_000);
    assert.equal(resolveLeaseMs(undefined, 120_000), 120_000 + LEASE_MARGIN_MS);
    assert.equal(resolveLeaseMs(25_000, 5_000), 25_000);
  });
});

describe('QRIS payloads', () => {
  test('CRC-16/CCITT-FALSE check value', () => {
    assert.equal(crc16CcittFalse('123456789'), '29B1');
    assert.equal(crc16CcittFalse(''), 'FFFF');
  });
  test('a dynamic payload with amount, merchant, reference and a valid CRC', () => {
    const payload = buildQrisPayload({ merchantName: 'Toko <Kopi> & Teh "Enak" Sekali Banget', merchantId: 'SHOP-001', amount: 150700, reference: 'ABC123', nmid: '1234567890123' });
    assert.ok(hasValidCrc(payload));
    const tlv = parseTlv(payload);
    assert.equal(tlv.get('01'), '12');
    assert.equal(tlv.get('54'), '150700');
    assert.equal(tlv.get('59'), 'Toko Kopi & Teh Enak Seka');
    assert.equal(parseTlv(tlv.get('62')!).get('01'), 'ABC123');
    assert.equal(parseTlv(tlv.get('51')!).get('00'), 'ID.CO.QRIS.WWW');
    assert.equal(hasValidCrc(payload.replace('150700', '150701')), false, 'a changed amount breaks the CRC');
  });
});

describe('payment codes', () => {
  const context = { merchantCode: 'SHOP-001', merchantName: 'Toko', platOrderNum: 'P1', amount: 10_000 };
  for (const method of METHOD_CODES) {
    test(`${method}`, () => {
      const code = generatePaymentCode(method, context);
      const kind = METHODS[method].kind;
      if (kind === 'virtual-account') assert.match(code, new RegExp(`^${VA_PREFIXES[method]}\\d+$`));
      if (kind === 'virtual-account') assert.equal(code.length, 16);
      if (kind === 'qr') assert.ok(hasValidCrc(code));
      assert.notEqual(generatePaymentCode(method, context), code, 'random, not sequential');
    });
  }
  test('every bank has a distinct prefix', () => {
    const prefixes = Object.values(VA_PREFIXES);
    assert.equal(new Set(prefixes).size, prefixes.length);
    for (const a of prefixes) for (const b of prefixes) if (a !== b) assert.ok(!a.startsWith(b), `${a} / ${b} are not ambiguous`);
  });
});

describe('notification fields', () => {
  const order: Order = {
    platOrderNum: 'P1', merchantCode: 'SHOP-001', orderNum: 'O1', kind: 'link', status: 'PAID', method: 'VA_BCA',
    vaNumber: '3901012345678901', payMoney: 150000, payFee: 4000, productDetail: 'x', name: 'Budi', email: 'b@e.com',
    phone: '0812', notifyUrl: 'https://m/n', redirectUrl: null, expiryPeriod: 60, requestDateTime: '20260101000000',
    createdAt: 0, expiresAt: 1, paidAt: 1, closedAt: 1,
  };
  test('per final state', () => {
    for (const state of ['PAID', 'FAILED', 'EXPIRED'] as const) {
      const fields = notificationFields(order, state);
      assert.equal(fields.code, NOTIFICATION_OUTCOMES[state].code);
      assert.equal(fields.status, NOTIFICATION_OUTCOMES[state].status);
      assert.equal(fields.vaNumber, '3901012345678901');
      assert.equal(fields.payFee, '4000');
    }
    const noMethod = notificationFields({ ...order, method: null, vaNumber: null, payFee: null }, 'EXPIRED');
    assert.deepEqual(Object.keys(noMethod).sort(), ['code', 'email', 'msg', 'name', 'orderNum', 'payMoney', 'platOrderNum', 'status']);
    assert.equal(notificationFields({ ...order, method: 'QRIS', vaNumber: '000201...' }, 'PAID').vaNumber, undefined);
  });
});

describe('fault rules', () => {
  test("the order's rule wins per section; unreadable rules are ignored", () => {
    const merchant = { notifications: { drop: true }, create: { respond: 'UNKNOWN' } };
    assert.deepEqual(effectiveFaults({ merchant }), merchant);
    assert.deepEqual(effectiveFaults({ merchant, order: { notifications: { duplicate: true } } }), {
      notifications: { duplicate: true },
      create: { respond: 'UNKNOWN' },
    });
    assert.deepEqual(effectiveFaults({ merchant: { future: 1 } }), {});
    assert.deepEqual(effectiveFaults({}), {});
  });
});

describe('unique violations', () => {
  const cases: [unknown, string | undefined][] = [
    [{ code: '23505', constraint: 'orders_merchant_order_unique' }, 'order_num'],
    [{ code: '23505', constraint: 'orders_va_number_unique' }, 'va_number'],
    [{ code: '23505', constraint: 'orders_pkey' }, 'other'],
    [{ code: 'SQLITE_CONSTRAINT_UNIQUE', message: 'UNIQUE constraint failed: orders.merchant_code, orders.order_num' }, 'order_num'],
    [{ code: 'SQLITE_CONSTRAINT_UNIQUE', message: 'UNIQUE constraint failed: orders.va_number' }, 'va_number'],
    [{ code: 'SQLITE_CONSTRAINT_PRIMARYKEY', message: 'UNIQUE constraint failed: orders.plat_order_num' }, 'other'],
    [{ code: '23503' }, undefined],
    [new Error('x'), undefined],
    [null, undefined],
  ];
  for (const [error, expected] of cases) test(`${JSON.stringify(error)} -> ${expected}`, () => assert.equal(uniqueViolation(error), expected));
});

describe('clock', () => {
  test('offset on top of the source, forward only', () => {
    let source = 1000;
    const clock = createClock(() => source);
    assert.equal(clock.now(), 1000);
    clock.advance(500);
    source = 2000;
    assert.equal(clock.now(), 2500);
    assert.equal(clock.offsetMs, 500);
    assert.throws(() => clock.advance(Number.NaN), RangeError);
  });
});

describe('the sandbox payment\'s method rule (methodDecision)', () => {
  test('a method is chosen for an order without one, refused when it disagrees, ignored when absent', () => {
    const pending = (method: MethodCode | null) => ({ status: 'PENDING' as const, method });
    const table: Array<[Parameters<typeof methodDecision>[0], MethodCode | null | undefined, string]> = [
      [pending(null), 'EWALLET_OVO', 'choose EWALLET_OVO'],
      [pending(null), undefined, 'pay'],
      [pending(null), null, 'pay'],
      [pending('VA_BCA'), 'VA_BCA', 'pay'],
      [pending('VA_BCA'), undefined, 'pay'],
      [pending('VA_BCA'), 'EWALLET_OVO', 'refuse method: the order is to be paid with VA_BCA, not EWALLET_OVO; send VA_BCA or leave method out'],
      // Past PENDING or missing: the transition reports the state, whatever the method.
      [{ status: 'PAID', method: 'VA_BCA' }, 'EWALLET_OVO', 'pay'],
      [{ status: 'EXPIRED', method: null }, 'QRIS', 'pay'],
      [undefined, 'QRIS', 'pay'],
    ];
    for (const [order, asked, expected] of table) {
      const decision = methodDecision(order, asked);
      const text = decision.action === 'choose' ? `choose ${decision.method}` : decision.action === 'refuse' ? `refuse ${decision.message}` : 'pay';
      assert.equal(text, expected, `${JSON.stringify(order)} with ${asked}`);
    }
  });
});

describe('merchant keys that cannot sign a create within 512 characters', () => {
  test('a 4096-bit merchant public key is refused at registration, naming the sizes that work', async () => {
    const { normalizeMerchantPublicKey, MerchantRegistrationError } = await import('../src/domain/merchants.ts');
    const { generateKeyPairSync } = await import('node:crypto');
    const large = generateKeyPairSync('rsa', { modulusLength: 4096, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    assert.throws(() => normalizeMerchantPublicKey(large.publicKey), (error: unknown) => {
      assert.ok(error instanceof MerchantRegistrationError);
      assert.equal(error.message, 'publicKey: a 4096-bit RSA key cannot sign a request within the 512-character sign of the BDPay family; use a 1024-, 2048- or 3072-bit key');
      return true;
    });
    const fitting = generateKeyPairSync('rsa', { modulusLength: 3072, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    assert.match(normalizeMerchantPublicKey(fitting.publicKey), /BEGIN PUBLIC KEY/);
  });
});

describe('refusals before authentication, keyed on the protocol rule identifiers', () => {
  test('each broken rule of merchantCode and sign picks its fixed refusal, whose text is the rule', async () => {
    const { merchantCodeField, parseWith, signField } = await import('@tombolbayar/protocol');
    const { REFUSALS, refusalForRule } = await import('../src/http/refusals.ts');
    const cases = [
      ['merchantCode', undefined, 'merchantCodeRequired'],
      ['merchantCode', '', 'merchantCodeRequired'],
      ['merchantCode', 42, 'merchantCodeNotString'],
      ['merchantCode', null, 'merchantCodeNotString'],
      ['merchantCode', 'abc', 'merchantCodeLength'],
      ['merchantCode', 'm'.repeat(51), 'merchantCodeLength'],
      ['sign', undefined, 'signRequired'],
      ['sign', '', 'signRequired'],
      ['sign', ['AAAA'], 'signNotString'],
      ['sign', 'A'.repeat(513), 'signTooLong'],
      ['sign', 'not base64!', 'signMalformed'],
    ] as const;
    for (const [field, input, expected] of cases) {
      const parsed = parseWith(field === 'merchantCode' ? merchantCodeField : signField, input);
      assert.equal(parsed.ok, false);
      if (parsed.ok) continue;
      const name = refusalForRule(field, parsed.issues[0]!.rule);
      assert.equal(name, expected, `${field} = ${JSON.stringify(input)}`);
      assert.equal(REFUSALS[name].message, `${field}: ${parsed.issues[0]!.message}`, 'the fixed text says the rule the protocol reports');
    }
    // A rule reworded in the protocol cannot change the choice: the choice never reads the words.
    assert.equal(refusalForRule('sign', 'format'), 'signMalformed');
    assert.equal(refusalForRule('merchantCode', undefined), 'merchantCodeLength');
  });
});

describe('sandbox faults at the production core\'s seams', () => {
  test('production (PRODUCTION_HOOKS) creates and queues one row due now, without reading the store', async () => {
    const { PRODUCTION_HOOKS } = await import('../src/domain/hooks.ts');
    const untouchable = new Proxy({}, { get: () => assert.fail('production must not read the store') }) as never;
    const key = { merchantCode: 'M-TEST-001', orderNum: 'ORDER-1' };
    const order = { platOrderNum: 'P1' } as never;
    assert.deepEqual(await PRODUCTION_HOOKS.aroundCreate(untouchable, key, () => Promise.resolve(order)), { kind: 'created', order });
    assert.deepEqual(await PRODUCTION_HOOKS.notificationRows(untouchable, key, 1000), [{ state: 'pending', fault: null, nextAttemptAt: 1000 }]);
    assert.ok(Object.isFrozen(PRODUCTION_HOOKS));
  });

  test('the sandbox\'s create plan and notification rows, by table', async () => {
    const { createPlan, notificationRows } = await import('../src/sandbox/fault-hooks.ts');
    const plans = [
      [undefined, { storesOrder: true, answersUnknown: false, delayMs: 0 }],
      [{ delayMs: 300 }, { storesOrder: true, answersUnknown: false, delayMs: 300 }],
      [{ respond: 'UNKNOWN' }, { storesOrder: true, answersUnknown: true, delayMs: 0 }],
      [{ respond: 'UNKNOWN', orderCreated: false }, { storesOrder: false, answersUnknown: true, delayMs: 0 }],
      // Only an UNKNOWN answer can pretend the order was not stored.
      [{ orderCreated: false }, { storesOrder: true, answersUnknown: false, delayMs: 0 }],
    ] as const;
    for (const [faults, plan] of plans) assert.deepEqual(createPlan(faults), plan, JSON.stringify(faults));
    const rows = [
      [undefined, [{ state: 'pending', fault: null, nextAttemptAt: 1000 }]],
      [{}, [{ state: 'pending', fault: null, nextAttemptAt: 1000 }]],
      [{ drop: true, duplicate: true }, [{ state: 'dropped', fault: 'drop', nextAttemptAt: 1000 }]],
      [{ delayMs: 5000 }, [{ state: 'pending', fault: 'delay', nextAttemptAt: 6000 }]],
      [{ delayMs: 5000, duplicate: true }, [{ state: 'pending', fault: 'delay', nextAttemptAt: 6000 }, { state: 'pending', fault: 'duplicate', nextAttemptAt: 6000 }]],
    ] as const;
    for (const [faults, expected] of rows) assert.deepEqual(notificationRows(faults, 1000), expected, JSON.stringify(faults));
  });
});

describe('notification URLs in log lines (loggableUrl)', () => {
  const table: ReadonlyArray<readonly [string, string]> = [
    ['https://shop.example/notify', 'https://shop.example/notify'],
    ['https://shop.example:8443/pay/notify?token=secret&shop=kopi', 'https://shop.example:8443/pay/notify?token=_&shop=_'],
    ['https://shop.example/notify?token=a&token=b', 'https://shop.example/notify?token=_'],
    ['https://user:pass@shop.example/notify#frag', 'https://shop.example/notify'],
    ['http://127.0.0.1:3000/n?k%20ey=v', 'http://127.0.0.1:3000/n?k%20ey=_'],
    ['not a url', '(not an absolute URL)'],
  ];
  for (const [url, shown] of table) it(url, () => assert.equal(loggableUrl(url), shown));
});

describe('notification kinds (parseNotificationKinds)', () => {
  const accepted: ReadonlyArray<readonly [string | readonly unknown[], readonly string[]]> = [
    ['paid', ['paid']],
    ['paid,failed,expired', ['paid', 'failed', 'expired']],
    [' EXPIRED , paid,paid ', ['paid', 'expired']],
    [['failed', 'paid'], ['paid', 'failed']],
  ];
  for (const [input, kinds] of accepted) it(`takes ${JSON.stringify(input)}`, () => assert.deepEqual(parseNotificationKinds(input), { ok: true, value: kinds }));
  for (const input of ['', 'failed,expired', 'paid,refunded', [1], ['paid', null]] as const) {
    it(`refuses ${JSON.stringify(input)}, stating the rule`, () => {
      const parsed = parseNotificationKinds(input as string | readonly unknown[]);
      assert.equal(parsed.ok, false);
      if (!parsed.ok) assert.match(parsed.message, /^must list paid and any of failed, expired/);
    });
  }
  it('a stored set that cannot be read is the default, never more', () => {
    assert.deepEqual(kindsFromStored('not json'), DEFAULT_NOTIFICATION_KINDS);
    assert.deepEqual(kindsFromStored('["failed"]'), DEFAULT_NOTIFICATION_KINDS);
    assert.deepEqual(kindsFromStored('["paid","expired"]'), ['paid', 'expired']);
  });
});
