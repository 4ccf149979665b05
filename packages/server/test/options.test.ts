/** Options are checked at start-up, with a message per mistake that says what to fix, never echoing a key. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { z } from 'zod';
import { PayButtonError, payButton, type PayButtonOptions } from '../src/adapters/express.ts';
import { resolveOptions } from '../src/options.ts';
import { merchantKeys, platformKeys } from './support/keys.ts';
import { validOptions } from './support/options.ts';

const dir = mkdtempSync(join(tmpdir(), 'pb-options-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const valid = (): PayButtonOptions => validOptions(dir);

/** The configuration error for these options (fails the test if there is none). */
function configError(options: unknown): PayButtonError {
  try {
    resolveOptions(options);
  } catch (error) {
    assert.ok(error instanceof PayButtonError);
    assert.equal(error.code, 'config_invalid');
    return error;
  }
  assert.fail('expected a config_invalid error');
}

/** The body of a PEM key, the part that must never appear in a message. */
const pemBody = (pem: string) => pem.split('\n').filter((line) => line && !line.startsWith('-----')).join('');

describe('payButton() options', () => {
  test('valid options give a router with the server-side API', async () => {
    const router = payButton(valid());
    assert.equal(typeof router, 'function');
    for (const name of ['createPaymentLink', 'createVaOrder', 'getOrder', 'reconcile', 'ready', 'close'] as const) assert.equal(typeof router[name], 'function');
    await router.ready();
    await router.close();
  });

  test('nothing given: every required option is named with what it should be', () => {
    const error = configError({});
    const fields = error.issues!.map((issue) => issue.field).sort();
    assert.deepEqual(fields, ['gatewayUrl', 'merchantCode', 'onPaid', 'platformPublicKey', 'privateKey', 'publicUrl', 'quote']);
    assert.match(error.message, /quote: is required: a function \(req, body\)/);
    assert.match(error.message, /privateKey: is required/);
  });

  test('the keys swapped: both named, neither echoed', () => {
    const error = configError({ ...valid(), privateKey: platformKeys().publicKey, platformPublicKey: merchantKeys().privateKey });
    assert.match(error.message, /privateKey: is a public key/);
    assert.match(error.message, /platformPublicKey: is a private key/);
    assert.ok(!error.message.includes(pemBody(merchantKeys().privateKey).slice(0, 40)));
    assert.ok(!JSON.stringify(error.toJSON()).includes(pemBody(merchantKeys().privateKey).slice(0, 40)));
  });

  test('a private key that is not PEM is refused without echoing it', () => {
    const secret = 'MIICdgIBADANBgkqhkiG9w0BAQEFAASCAmAwggJcAgEAAoGBAL-not-really-a-key';
    const error = configError({ ...valid(), privateKey: secret });
    assert.match(error.message, /privateKey: is not a usable private key: give the PEM text/);
    assert.ok(!error.message.includes(secret));
  });

  test('a list of platform keys (rotation) is accepted; an empty list or a bad entry is named', () => {
    assert.equal(resolveOptions({ ...valid(), platformPublicKey: [platformKeys().publicKey, merchantKeys().publicKey] }).platformPublicKeys.length, 2);
    assert.match(configError({ ...valid(), platformPublicKey: [] }).message, /platformPublicKey: must list at least one/);
    assert.match(configError({ ...valid(), platformPublicKey: [platformKeys().publicKey, 'nope'] }).message, /platformPublicKey\.1: is not a usable public key/);
  });

  test('a misspelt option is named as unknown', () => {
    const error = configError({ ...valid(), publicURL: 'https://shop.example' });
    assert.deepEqual(error.issues, [{ field: 'publicURL', message: 'is not an option of payButton() (check the spelling)' }]);
  });

  test('URLs must be absolute http(s) without query or credentials', () => {
    assert.match(configError({ ...valid(), gatewayUrl: 'gateway.example' }).message, /gatewayUrl: must be an absolute http\(s\) URL/);
    assert.match(configError({ ...valid(), publicUrl: 'https://shop.example/?x=1' }).message, /publicUrl: must be an absolute http\(s\) URL without query/);
    assert.match(configError({ ...valid(), allowedOrigins: ['https://a.example/path'] }).message, /allowedOrigins\.0: must be an origin/);
  });

  test('ranges and shapes say their rule', () => {
    assert.match(configError({ ...valid(), expiryPeriod: 10 }).message, /expiryPeriod: must be at least 30 minutes/);
    assert.match(configError({ ...valid(), merchantCode: 'abc' }).message, /merchantCode: must be 5 to 50 characters/);
    assert.match(configError({ ...valid(), mountPath: 'pay' }).message, /mountPath: must be the path the router is mounted at/);
    assert.match(configError({ ...valid(), database: { kind: 'postgres', url: 'postgres://x/y', schema: 'drop table;' } }).message, /database/);
    assert.match(configError({ ...valid(), orderNumPrefix: 'pb-' }).message, /orderNumPrefix: must be 0 to 8 upper-case letters or digits/);
    assert.match(configError({ ...valid(), rateLimit: { limit: 0 } }).message, /rateLimit/);
    assert.match(configError({ ...valid(), rateLimit: { key: 'session' } }).message, /rateLimit: must be false or \{ windowMs\?, limit\?, key\? \}/);
    for (const bad of [0, 2.5, true, '250']) {
      assert.match(configError({ ...valid(), maxEventLoopDelayMs: bad as never }).message, /maxEventLoopDelayMs: must be false or a whole number of milliseconds from 1 to 600000/);
    }
  });

  test('timings kept as constants are not options: retry delays', () => {
    for (const name of ['retryBaseDelayMs', 'retryMaxDelayMs']) {
      assert.match(configError({ ...valid(), [name]: 100 }).message, new RegExp(`${name}: is not an option of payButton\\(\\)`));
    }
  });

  test('the fulfilment lease and its heartbeat: defaults, and a heartbeat that must beat before the lease runs out', () => {
    assert.deepEqual([resolveOptions(valid()).fulfilmentLeaseMs, resolveOptions(valid()).fulfilmentHeartbeatMs], [60_000, 20_000]);
    const short = resolveOptions({ ...valid(), fulfilmentLeaseMs: 900 });
    assert.deepEqual([short.fulfilmentLeaseMs, short.fulfilmentHeartbeatMs], [900, 300]);
    assert.equal(resolveOptions({ ...valid(), fulfilmentLeaseMs: 900, fulfilmentHeartbeatMs: 100 }).fulfilmentHeartbeatMs, 100);
    assert.match(configError({ ...valid(), fulfilmentLeaseMs: 900, fulfilmentHeartbeatMs: 900 }).message, /fulfilmentHeartbeatMs: must be less than fulfilmentLeaseMs \(900 ms\)/);
    assert.match(configError({ ...valid(), fulfilmentHeartbeatMs: 60_000 }).message, /fulfilmentHeartbeatMs: must be less than fulfilmentLeaseMs \(60000 ms\)/);
    assert.match(configError({ ...valid(), fulfilmentLeaseMs: 10 }).message, /fulfilmentLeaseMs: must be at least 200 ms/);
    assert.match(configError({ ...valid(), fulfilmentLeaseMs: '60s' }).message, /fulfilmentLeaseMs: must be a whole number of milliseconds/);
    assert.match(configError({ ...valid(), fulfilmentHeartbeatMs: 1.5 }).message, /fulfilmentHeartbeatMs/);
  });

  test('mountPath is /pay unless given; "/" mounts at the root', () => {
    assert.equal(resolveOptions(valid()).mountPath, '/pay');
    assert.equal(resolveOptions({ ...valid(), mountPath: '/' }).mountPath, '/');
    assert.equal(resolveOptions({ ...valid(), mountPath: '/shop/pay' }).mountPath, '/shop/pay');
  });

  test("merchant fields must be zod schemas and cannot redefine the router's own", () => {
    assert.ok(resolveOptions({ ...valid(), fields: { quantity: z.number().int().min(1) } }).fields.quantity);
    assert.match(configError({ ...valid(), fields: { item: z.string() } }).message, /cannot redefine the router's own fields/);
    assert.match(configError({ ...valid(), fields: { quantity: 'number' } }).message, /fields\.quantity: must be a zod 4 schema \(zod 3 schemas are not supported: install zod@4\)/);
  });

  test('defaults are documented values', () => {
    const resolved = resolveOptions({ ...valid(), database: undefined });
    assert.deepEqual(resolved.database, { kind: 'sqlite', file: '.tombolbayar/server.sqlite' });
    assert.equal(resolved.expiryPeriod, 60);
    assert.equal(resolved.timeoutMs, 10_000);
    assert.equal(resolved.totalTimeoutMs, 30_000);
    assert.equal(resolved.maxRetries, 2);
    assert.deepEqual(resolved.rateLimit, { windowMs: 60_000, limit: 300, key: undefined });
    assert.deepEqual(resolved.paymentPageOrigins, ['https://gateway.example']);
    assert.equal(resolved.statusRefreshMs, 10_000);
    assert.equal(resolved.maxEventLoopDelayMs, 250);
    assert.equal(resolveOptions({ ...valid(), maxEventLoopDelayMs: false }).maxEventLoopDelayMs, false);
  });
});

test('a publicUrl too long for the callback URLs the gateway accepts fails at start-up, naming the URL and what to check', () => {
  assert.throws(() => payButton({ ...valid(), publicUrl: `https://shop.example/${'a'.repeat(2_010)}` }), (error: PayButtonError) => {
    assert.equal(error.code, 'config_invalid');
    assert.match(error.message, /redirectUrl: must be at most 2048 characters \(check publicUrl and mountPath\)/);
    return true;
  });
});
