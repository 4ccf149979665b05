/**
 * `gatewayUrl` is the channel whose answers decide which orders are paid: `https:`, or plain
 * `http:` to this machine only, unless the merchant opts in (`allowInsecureGatewayUrl`), which is
 * then said at start-up (a `warning` event and a Node process warning).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { gatewayChannel, type GatewayChannel } from '../src/gateway/channel.ts';
import { PayButtonError, payButton, type PayButtonOptions } from '../src/adapters/express.ts';
import { resolveOptions } from '../src/options.ts';
import { validOptions } from './support/options.ts';

const dir = mkdtempSync(join(tmpdir(), 'pb-channel-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const valid = (gatewayUrl: string, extra: Partial<PayButtonOptions> = {}): PayButtonOptions => validOptions(dir, { gatewayUrl, ...extra });

describe('gatewayChannel', () => {
  const table: Array<[string, GatewayChannel]> = [
    ['https://openapi.bdpay.co.id', 'https'],
    ['https://10.0.0.5:8443', 'https'],
    ['http://127.0.0.1:4010', 'loopback'],
    ['http://127.9.8.7', 'loopback'],
    ['http://127.1:4010', 'loopback'], // the URL parser writes it 127.0.0.1
    ['http://0x7f000001', 'loopback'],
    ['http://localhost:4010', 'loopback'],
    ['http://LOCALHOST', 'loopback'],
    ['http://[::1]:4010', 'loopback'],
    ['http://[0:0:0:0:0:0:0:1]', 'loopback'],
    ['http://openapi.bdpay.co.id', 'insecure'],
    ['http://10.0.0.5:4010', 'insecure'],
    ['http://128.0.0.1', 'insecure'],
    ['http://gateway.localhost', 'insecure'], // resolved by DNS, not by the configuration
    ['http://localhost.', 'insecure'],
    ['http://127.0.0.1.example.com', 'insecure'],
    ['http://[::ffff:127.0.0.1]', 'insecure'],
  ];
  for (const [url, channel] of table) test(`${url}: ${channel}`, () => assert.equal(gatewayChannel(new URL(url)), channel));
});

describe('payButton() and an insecure gatewayUrl', () => {
  test('plain http to another host is refused, naming gatewayUrl and the way out', () => {
    let error: unknown;
    try {
      resolveOptions(valid('http://openapi.bdpay.co.id'));
    } catch (caught) {
      error = caught;
    }
    assert.ok(error instanceof PayButtonError);
    assert.equal(error.code, 'config_invalid');
    assert.deepEqual(error.issues?.map((issue) => issue.field), ['gatewayUrl']);
    assert.match(error.message, /gatewayUrl: uses plain http to a host that is not this machine/);
    assert.match(error.message, /allowInsecureGatewayUrl: true/);
  });

  test('listed beside the other mistakes', () => {
    assert.throws(() => resolveOptions({ ...valid('http://gateway.example'), expiryPeriod: 1 }), (error: PayButtonError) => {
      assert.deepEqual(error.issues?.map((issue) => issue.field).sort(), ['expiryPeriod', 'gatewayUrl']);
      return true;
    });
  });

  test('https and plain http to loopback need no opt-in', () => {
    for (const url of ['https://gateway.example', 'http://127.0.0.1:4010', 'http://localhost:4010', 'http://[::1]:4010']) {
      assert.equal(resolveOptions(valid(url)).insecureGatewayUrl, false, url);
    }
  });

  test('allowInsecureGatewayUrl must be a boolean', () => {
    assert.throws(() => resolveOptions(valid('https://gateway.example', { allowInsecureGatewayUrl: 'yes' as never })), /allowInsecureGatewayUrl: must be true or false/);
  });

  test('the opt-in is accepted and said at start-up: a warning event and a process warning', async () => {
    const processWarnings: Array<{ code?: string; message: string }> = [];
    const onWarning = (warning: Error & { code?: string }) => processWarnings.push({ code: warning.code, message: warning.message });
    process.on('warning', onWarning);
    try {
      const router = payButton(valid('http://gateway.internal:4010', { allowInsecureGatewayUrl: true }));
      const warnings: Array<{ code: string; message: string }> = [];
      router.on('warning', (warning) => warnings.push(warning));
      await router.ready();
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(warnings.map((warning) => warning.code), ['insecure_gateway_url']);
      assert.match(warnings[0]!.message, /http:\/\/gateway\.internal:4010 is plain http/);
      await new Promise((resolve) => setImmediate(resolve));
      assert.ok(processWarnings.some((warning) => warning.code === 'TOMBOLBAYAR_INSECURE_GATEWAY_URL'), JSON.stringify(processWarnings));
      await router.close();
    } finally {
      process.off('warning', onWarning);
    }
  });

  test('without the opt-in, a loopback gateway says nothing', async () => {
    const router = payButton(valid('http://127.0.0.1:9'));
    const warnings: string[] = [];
    router.on('warning', (warning) => warnings.push(warning.code));
    await router.ready();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(warnings, []);
    await router.close();
  });
});
