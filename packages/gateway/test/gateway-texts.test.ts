/**
 * Issue 14, item 2: no text the gateway produces contains `"`. A published Java client of the
 * family strips every `"` from the string it rebuilds before comparing, so any `platSign` over a
 * message with a quote fails there (our `...e.g. "150000"` did, and later `notifyUrl: must not be
 * a ".local" host name`). Enumerated here, not sampled:
 *
 * - every fixed refusal (`REFUSALS`), signed as the gateway signs it and verified by that client's
 *   rule (strip `"`, then compare);
 * - every DomainError message (`DOMAIN_MESSAGES`, each with every argument it can take: every
 *   status, method and limit, and every callback-URL reason of both modes), signed the same way;
 * - every callback-URL refusal, production mode too, and every connect-time refusal detail;
 * - the request field rules a merchant meets after authentication, under hostile values;
 * - the sandbox API's refusals, through HTTP, each naming its field.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createPaymentLinkRequestSchema,
  createVaRequestSchema,
  METHOD_CODES,
  ORDER_STATUSES,
  parseWith,
  queryRequestSchema,
  sign,
} from '@tombolbayar/protocol/node';
import { DOMAIN_MESSAGES } from '../src/domain/errors.ts';
import { DEFAULT_LIMITS, overallRange } from '../src/domain/pricing.ts';
import { REFUSALS, refusalBody, type RefusalName } from '../src/http/refusals.ts';
import { signedBody } from '../src/http/respond.ts';
import { classifyAddress, describeRefusal, type ForbiddenRange } from '../src/notify/delivery/address-policy.ts';
import { checkCallbackUrl } from '../src/notify/delivery/callback-url.ts';
import { FORBIDDEN_SUFFIXES, forbiddenHostName } from '../src/notify/delivery/host-policy.ts';
import { nulInPath, SANDBOX_REFUSALS } from '../src/sandbox/routes.ts';
import { familyVerify, keyConstant, VERIFY_RULES } from './support/family-client.ts';
import { startHarness, MERCHANT_CODE, type Harness } from './support/harness.ts';
import { platformKeys } from './support/keys.ts';

const platformSign = (fields: Readonly<Record<string, string>>) => sign(fields, platformKeys().privateKey);
const platformKey = () => keyConstant(platformKeys().publicKey, VERIFY_RULES.key.rule);

function assertNoQuote(text: string, where: string): void {
  assert.ok(!text.includes('"'), `${where}: ${text}`);
}

/** No quote, and the family's verifier accepts the platSign of a FAIL answer carrying it. */
function assertSignsForTheFamily(message: string, where: string): void {
  assertNoQuote(message, where);
  assert.ok(familyVerify(signedBody(platformSign, 'FAIL', message), platformKey()), `${where}: their verifier refuses ${message}`);
}

/** One address per forbidden range: the type makes this table complete. */
const RANGE_SAMPLES: Record<ForbiddenRange, string> = {
  invalid: 'not-an-address',
  unspecified: '::',
  'this-network': '0.1.2.3',
  loopback: '127.0.0.1',
  private: '10.0.0.1',
  'shared-cgnat': '100.64.0.1',
  'link-local': '169.254.169.254',
  'ietf-protocol': '192.0.0.8',
  documentation: '192.0.2.1',
  benchmarking: '198.18.0.1',
  multicast: '224.0.0.1',
  reserved: '240.0.0.1',
  broadcast: '255.255.255.255',
  'unique-local': 'fd00::1',
  'site-local': 'fec0::1',
  'ipv4-compatible': '::7f00:1',
  'nat64-local': '64:ff9b:1::1',
  '6to4': '2002:c000:201::1',
  teredo: '2001::1',
  discard: '100::1',
};

/** Every reason the callback-URL policy can give, in either mode: each branch, each range, each name. */
function callbackReasons(): string[] {
  const urls = [
    'notify',
    'ftp://shop.example.com/notify',
    'https://user:pass@shop.example.com/notify',
    'http://shop.example.com/notify',
    'https://metadata/',
    ...Object.values(RANGE_SAMPLES)
      .filter((address) => address !== 'not-an-address')
      .map((address) => `https://${address.includes(':') ? `[${address}]` : address}/notify`),
    ...FORBIDDEN_SUFFIXES.flatMap((suffix) => [`https://${suffix}/notify`, `https://host.${suffix}/notify`]),
  ];
  const reasons = new Set<string>();
  for (const url of urls) {
    for (const production of [true, false]) {
      const verdict = checkCallbackUrl(url, { production });
      if (!verdict.ok) reasons.add(verdict.reason);
    }
  }
  for (const name of ['', 'metadata', ...FORBIDDEN_SUFFIXES]) {
    const problem = forbiddenHostName(name);
    if (problem) reasons.add(problem);
  }
  return [...reasons];
}

describe('no text of the gateway contains a double quote', () => {
  test('every fixed refusal, as signed and served, verifies with the family\'s quote-stripping rule', () => {
    for (const name of Object.keys(REFUSALS) as RefusalName[]) {
      const body = refusalBody(platformSign, name);
      assertNoQuote(body.platRespMessage!, name);
      assert.ok(familyVerify(body, platformKey()), name);
    }
  });

  test('every DomainError message, with every argument it can take', () => {
    const statuses = ORDER_STATUSES;
    const limits = METHOD_CODES.map((method) => [method, DEFAULT_LIMITS[method]] as const);
    // One entry per message: a new message without samples here does not compile.
    const samples: { [K in keyof typeof DOMAIN_MESSAGES]: () => string[] } = {
      orderNotFound: () => [DOMAIN_MESSAGES.orderNotFound()],
      orderNotPending: () => statuses.map((status) => DOMAIN_MESSAGES.orderNotPending(status)),
      orderChanged: () => [DOMAIN_MESSAGES.orderChanged()],
      methodRequired: () => [DOMAIN_MESSAGES.methodRequired()],
      methodAlreadyChosen: () => METHOD_CODES.map((method) => DOMAIN_MESSAGES.methodAlreadyChosen(method)),
      methodDisagrees: () => METHOD_CODES.flatMap((chosen) => METHOD_CODES.map((asked) => DOMAIN_MESSAGES.methodDisagrees(chosen, asked))),
      amountOutsideMethodLimit: () => limits.map(([method, limit]) => DOMAIN_MESSAGES.amountOutsideMethodLimit(method, limit)),
      amountOutsideEveryLimit: () => [DOMAIN_MESSAGES.amountOutsideEveryLimit(overallRange(DEFAULT_LIMITS))],
      orderNumTaken: () => [DOMAIN_MESSAGES.orderNumTaken()],
      callbackUrlRefused: () => callbackReasons().flatMap((reason) => (['notifyUrl', 'redirectUrl'] as const).map((field) => DOMAIN_MESSAGES.callbackUrlRefused(field, reason))),
    };
    let count = 0;
    for (const [name, make] of Object.entries(samples)) {
      for (const message of make()) {
        assertSignsForTheFamily(message, name);
        count += 1;
      }
    }
    assert.ok(count > 250, `${count} messages`);
  });

  test('every callback-URL refusal (both modes) names the rule, and every connect-time detail is quote-free', () => {
    const reasons = callbackReasons();
    assert.ok(reasons.includes('must not be a host name in the special-use domain local'), reasons.join(' | '));
    assert.ok(reasons.includes('must use https in production mode'));
    for (const reason of reasons) assertNoQuote(reason, 'callback URL');
    for (const [range, address] of Object.entries(RANGE_SAMPLES)) {
      const verdict = classifyAddress(address);
      assert.equal(verdict.allowed ? 'allowed' : verdict.range, range, address);
      assertNoQuote(describeRefusal(verdict), range);
    }
  });

  test('the field rules an authenticated merchant meets, under hostile values', () => {
    const hostile: unknown[] = [undefined, null, true, 0, -1, 1.5, Number.NaN, '', ' ', '"', '"quoted"', 'x'.repeat(5000), [], ['a'], {}, { a: '"' }, '\u0000'];
    for (const schema of [createVaRequestSchema, createPaymentLinkRequestSchema, queryRequestSchema]) {
      const fields = Object.keys((schema as unknown as { shape: Record<string, unknown> }).shape);
      assert.ok(fields.length > 4);
      for (const field of fields) {
        for (const value of hostile) {
          const parsed = parseWith(schema, { [field]: value, orderType: '"0"', '"weird"': 1 });
          assert.equal(parsed.ok, false);
          if (!parsed.ok) assertNoQuote(parsed.message, `${field}=${JSON.stringify(value)}`);
        }
      }
      const notObject = parseWith(schema, '"text"');
      if (!notObject.ok) assertNoQuote(notObject.message, 'a string body');
    }
  });

  test('the sandbox\'s fixed refusals', () => {
    for (const [name, refusal] of Object.entries(SANDBOX_REFUSALS)) assertNoQuote(refusal.message, name);
    for (const name of ['platOrderNum', 'id', 'merchantCode', 'orderNum']) assertNoQuote(nulInPath(name).message, name);
  });
});

describe('the sandbox API names the field, in its own words', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite');
  });
  after(async () => {
    await h.stop();
  });

  async function call(method: string, path: string, body?: string): Promise<{ status: number; message: string }> {
    const response = await fetch(`${h.url}/sandbox${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body }),
    });
    const json = (await response.json()) as { platRespMessage: string };
    return { status: response.status, message: json.platRespMessage };
  }

  test('unknown fields, wrong types and bad numbers: 400 naming the field, no quote, no zod wording', async () => {
    const va = await h.client.createVa({ notifyUrl: 'http://127.0.0.1:9/notify' });
    const link = await h.client.createLink();
    const cases: Array<[string, string, string | undefined, string]> = [
      ['POST', '/clock/advance', '{"minutes":1,"x":1}', 'x: is not a field of this request'],
      ['POST', '/clock/advance', '{"minutes":"5"}', 'minutes: must be a number of minutes, more than 0 and at most 5256000 (ten years)'],
      ['POST', '/clock/advance', '{"minutes":-1}', 'minutes: must be a number of minutes, more than 0 and at most 5256000 (ten years)'],
      ['POST', '/clock/advance', '{}', 'minutes: is required'],
      ['POST', '/clock/advance', '{"minutes":1,"a\\"b":1}', 'a field whose name is not shown: is not a field of this request'],
      ['PUT', `/faults/${MERCHANT_CODE}`, '{"notifications":{"drop":true,"later":1},"extra":{}}', 'notifications.later: is not a field of this request; extra: is not a field of this request'],
      ['PUT', `/faults/${MERCHANT_CODE}`, '{"notifications":{"delayMs":"soon"}}', 'notifications.delayMs: must be a whole number of milliseconds from 0 to 604800000'],
      ['PUT', `/faults/${MERCHANT_CODE}`, '{"notifications":[]}', 'notifications: must be a JSON object'],
      ['PUT', `/faults/${MERCHANT_CODE}`, '{"create":{"respond":"ERROR","orderCreated":"no"}}', 'create.respond: must be UNKNOWN; create.orderCreated: must be true or false'],
      ['GET', '/deliveries?limit=abc', undefined, 'limit: must be a whole number from 1 to 500'],
      ['GET', '/deliveries?limit=0', undefined, 'limit: must be a whole number from 1 to 500'],
      ['GET', '/deliveries?limit=501', undefined, 'limit: must be a whole number from 1 to 500'],
      ['GET', '/deliveries?limit=1&limit=2', undefined, 'limit: must be a whole number from 1 to 500'],
      ['POST', `/orders/${link.body.platOrderNum!}/pay`, '{"method":"VA_BCA","x":1}', 'x: is not a field of this request'],
      ['POST', `/orders/${link.body.platOrderNum!}/pay`, '{"method":"CASH"}', `method: must be null or one of ${METHOD_CODES.join(', ')} (or the code without its prefix, e.g. BCA)`],
    ];
    for (const [method, path, body, expected] of cases) {
      const answer = await call(method, path, body);
      assert.deepEqual(answer, { status: 400, message: expected }, `${method} ${path} ${body ?? ''}`);
    }
    assert.equal((await h.gateway.findOrder(link.body.platOrderNum!))?.status, 'PENDING', 'nothing was paid');
    assert.equal((await call('GET', '/deliveries?limit=5')).status, 200);
    assert.equal((await h.gateway.findOrder(va.body.platOrderNum!))?.method, 'VA_BCA');
  });

  test('paying with a method other than the order\'s own is refused naming method; the same method, or none, pays', async () => {
    const va = await h.client.createVa({ method: 'VA_BCA', notifyUrl: 'http://127.0.0.1:9/notify' });
    const platOrderNum = va.body.platOrderNum!;
    for (const method of ['OVO', 'EWALLET_OVO', 'MANDIRI']) {
      const refused = await call('POST', `/orders/${platOrderNum}/pay`, JSON.stringify({ method }));
      assert.equal(refused.status, 409, method);
      assert.match(refused.message, /^method: the order is to be paid with VA_BCA, not (EWALLET_OVO|VA_MANDIRI); send VA_BCA or leave method out$/, method);
      assertNoQuote(refused.message, method);
    }
    assert.equal((await h.gateway.findOrder(platOrderNum))?.status, 'PENDING', 'not paid by a refused call');
    await assert.rejects(h.gateway.pay(platOrderNum, { method: 'EWALLET_OVO' }), /method: the order is to be paid with VA_BCA/);
    const paid = await call('POST', `/orders/${platOrderNum}/pay`, JSON.stringify({ method: 'BCA' }));
    assert.deepEqual(paid, { status: 200, message: 'paid' });
    assert.equal((await h.gateway.findOrder(platOrderNum))?.method, 'VA_BCA');

    const link = await h.client.createLink();
    assert.equal((await call('POST', `/orders/${link.body.platOrderNum!}/pay`, '{"method":"OVO"}')).status, 200, 'a link without a method takes the one named');
    assert.equal((await h.gateway.findOrder(link.body.platOrderNum!))?.method, 'EWALLET_OVO');
  });

  test('the hosted page\'s JSON status refusals name the field, without a quote', async () => {
    for (const query of ['', '?orderNum=', '?orderNum=a%22b', '?orderNum=a&orderNum=b', `?orderNum=${'x'.repeat(100)}`, '?orderNum=NO-SUCH-ORDER']) {
      const response = await fetch(`${h.url}/pay/status${query}`);
      const { error } = (await response.json()) as { error: string };
      assert.ok(response.status === 400 || response.status === 404, `${query}: ${response.status}`);
      assert.match(error, /^orderNum: /, query);
      assertNoQuote(error, query);
    }
  });

  test('missing orders, notifications and rules: 404 with a fixed text that names no value', async () => {
    const cases: Array<[string, string, string]> = [
      ['POST', '/orders/NO-SUCH-ORDER"/pay', 'platOrderNum: no such order'],
      ['POST', '/orders/NO-SUCH-ORDER/expire', 'platOrderNum: no such order'],
      ['GET', '/orders/NO-SUCH-ORDER', 'platOrderNum: no such order'],
      ['POST', '/deliveries/no-such-id/resend', 'id: no such notification'],
      ['DELETE', '/faults/NOBODY-01', 'no such fault rule'],
    ];
    for (const [method, path, expected] of cases) {
      const answer = await call(method, path, method === 'GET' ? undefined : '{}');
      assert.deepEqual(answer, { status: 404, message: expected }, `${method} ${path}`);
    }
  });
});
