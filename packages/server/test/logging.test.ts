/**
 * What the plug-in's log says, table-tested: the level and words of each event's line, the
 * start-up check's verdict for every answer a gateway can give, and the configuration warnings.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PayButtonError } from '../src/errors.ts';
import { PayButtonEvents } from '../src/events.ts';
import type { CallResult } from '../src/gateway/client.ts';
import { logEvents, logLineFor, type LogLevel } from '../src/logging/event-log.ts';
import type { LoggerLike } from '../src/logging/logger.ts';
import { LogSampler } from '../src/logging/sampler.ts';
import { configurationWarnings, verdictOf } from '../src/self-check.ts';
import type { QuerySuccess } from '@tombolbayar/protocol';

describe('logLineFor', () => {
  const at = new Date('2026-11-25T10:00:00Z');
  const cases: Array<{ line: ReturnType<typeof logLineFor>; level: LogLevel; says: RegExp }> = [
    { line: logLineFor('order.transition', { orderNum: 'PB1', kind: 'link', from: null, to: 'pending', source: 'create', at }), level: 'info', says: /^order PB1: new -> pending \(create\)$/ },
    { line: logLineFor('gateway.call', { operation: 'query', orderNum: 'PB1', attempt: 1, durationMs: 3, outcome: 'success' }), level: 'debug', says: /query for PB1: success in 3 ms/ },
    { line: logLineFor('gateway.call', { operation: 'query', orderNum: 'PB1', attempt: 1, durationMs: 3, outcome: 'not_exist' }), level: 'debug', says: /not_exist/ },
    { line: logLineFor('gateway.call', { operation: 'prepaidOrder', orderNum: 'PB1', attempt: 2, durationMs: 10_000, outcome: 'timeout', message: 'no answer in 10000 ms' }), level: 'warn', says: /prepaidOrder for PB1 failed \(timeout, try 2\): no answer in 10000 ms/ },
    { line: logLineFor('gateway.call', { operation: 'pay', orderNum: 'PB1', attempt: 1, durationMs: 4, outcome: 'not_exist' }), level: 'warn', says: /pay for PB1 failed \(not_exist/ },
    { line: logLineFor('notification.accepted', { orderNum: 'PB1', reported: 'paid', status: 'paid', changed: false }), level: 'info', says: /PB1: paid \(already recorded\)/ },
    { line: logLineFor('notification.rejected', { reason: 'bad_signature', message: 'platSign does not verify', httpStatus: 401 }), level: 'warn', says: /refused with HTTP 401 \(bad_signature\): platSign does not verify/ },
    { line: logLineFor('notification.rejected', { reason: 'fulfilment_failed', orderNum: 'PB1', message: 'onPaid threw', httpStatus: 500 }), level: 'error', says: /for PB1/ },
    { line: logLineFor('fulfilment.succeeded', { orderNum: 'PB1', attempt: 1, durationMs: 12 }), level: 'info', says: /onPaid done for PB1 \(run 1, 12 ms\)/ },
    { line: logLineFor('fulfilment.failed', { orderNum: 'PB1', attempt: 2, durationMs: 12, error: new Error('boom') }), level: 'error', says: /onPaid threw for paid order PB1 \(run 2\)/ },
    { line: logLineFor('fulfilment.lease_lost', { orderNum: 'PB1', attempt: 1, durationMs: 61_000 }), level: 'warn', says: /onPaid for PB1 lost its lease \(run 1, 61000 ms\)/ },
    { line: logLineFor('fulfilment.unrecorded', { orderNum: 'PB1', attempt: 1, durationMs: 61_000, error: new Error('SQLITE_BUSY') }), level: 'error', says: /onPaid returned for PB1 \(run 1\) but the database would not record it: onPaid will run again/ },
    { line: logLineFor('order.duplicate_paid', { orderNum: 'PB2', duplicateOf: 'PB1', reference: 'cart-1', payMoney: '150000' }), level: 'error', says: /PB2 paid Rp 150000 for reference cart-1, already paid by PB1: refund one/ },
    { line: logLineFor('warning', { code: 'quote_failed', message: 'quote() threw' }), level: 'warn', says: /^quote\(\) threw$/ },
    { line: logLineFor('warning', { code: 'self_check_failed', message: 'start-up check: x' }), level: 'error', says: /start-up check/ },
  ];
  for (const { line, level, says } of cases) {
    test(`${line.fields.event as string} at ${level}: ${says}`, () => {
      assert.equal(line.level, level);
      assert.match(line.message, says);
    });
  }

  test('an error travels under err, for pino to print with its stack', () => {
    const error = new Error('boom');
    assert.equal(logLineFor('fulfilment.failed', { orderNum: 'PB1', attempt: 1, durationMs: 1, error }).fields.err, error);
    assert.equal(logLineFor('warning', { code: 'internal', message: 'x', error }).fields.err, error);
  });

  test('logEvents writes one line per event, and stops when asked', () => {
    const lines: Array<[string, object, string]> = [];
    const logger: LoggerLike = {
      debug: (fields, message) => lines.push(['debug', fields, message]),
      info: (fields, message) => lines.push(['info', fields, message]),
      warn: (fields, message) => lines.push(['warn', fields, message]),
      error: (fields, message) => lines.push(['error', fields, message]),
    };
    const events = new PayButtonEvents();
    const stop = logEvents(events, logger);
    events.emit('warning', { code: 'store_unavailable', message: 'the order store could not be opened' });
    events.emit('fulfilment.succeeded', { orderNum: 'PB1', attempt: 1, durationMs: 2 });
    stop();
    events.emit('warning', { code: 'quote_failed', message: 'not logged' });
    assert.deepEqual(lines.map(([level, , message]) => [level, message]), [['error', 'the order store could not be opened'], ['info', 'onPaid done for PB1 (run 1, 2 ms)']]);
  });
});

describe('verdictOf: what one probe answer says about the configuration', () => {
  const config = { gatewayUrl: 'http://127.0.0.1:4010', merchantCode: 'SHOP-001' };
  const failure = (outcome: Extract<CallResult<QuerySuccess>, { ok: false }>['outcome'], message = 'x'): CallResult<QuerySuccess> => ({ ok: false, outcome, error: new PayButtonError('gateway_unavailable', message) });
  const cases: Array<{ name: string; result: CallResult<QuerySuccess>; problem: string | undefined }> = [
    { name: 'NOTEXIST for the order', result: failure({ kind: 'result', code: 'NOTEXIST', message: 'no order with this orderNum/platOrderNum for this merchant' }), problem: undefined },
    { name: 'NOTEXIST for the merchant', result: failure({ kind: 'result', code: 'NOTEXIST', message: 'merchantCode: no merchant is registered with this code' }), problem: 'merchant_unknown' },
    { name: 'FAIL (the signature)', result: failure({ kind: 'result', code: 'FAIL', message: "sign: does not verify with the merchant's public key" }), problem: 'merchant_key_rejected' },
    { name: 'ERROR', result: failure({ kind: 'result', code: 'ERROR', message: 'internal' }), problem: 'gateway_failing' },
    { name: 'refused connection', result: failure({ kind: 'network', maybeReceived: false }, 'connect ECONNREFUSED'), problem: 'gateway_unreachable' },
    { name: 'timeout', result: failure({ kind: 'timeout', maybeReceived: true }), problem: 'gateway_unreachable' },
    { name: 'HTTP 503', result: failure({ kind: 'http', status: 503 }), problem: 'gateway_failing' },
    { name: 'unsigned answer', result: failure({ kind: 'invalid_response', why: 'unsigned' }), problem: 'not_a_gateway' },
    { name: 'a platSign another key made', result: failure({ kind: 'invalid_response', why: 'bad_signature' }), problem: 'platform_key_mismatch' },
    { name: 'malformed answer', result: failure({ kind: 'invalid_response', why: 'malformed' }), problem: 'gateway_failing' },
    { name: 'SUCCESS for an order that cannot exist', result: { ok: true, value: {} as QuerySuccess }, problem: 'gateway_failing' },
  ];
  for (const { name, result, problem } of cases) {
    test(`${name} -> ${problem ?? 'ok'}`, () => {
      const report = verdictOf(result, config);
      assert.equal(report.ok ? undefined : report.problem, problem);
      assert.match(report.message, /\S/);
    });
  }
});

describe('configurationWarnings', () => {
  const cases: Array<{ gatewayUrl: string; publicUrl: string; warns: boolean }> = [
    { gatewayUrl: 'https://openapi.bdpay.co.id', publicUrl: 'http://127.0.0.1:3000', warns: true },
    { gatewayUrl: 'https://openapi.bdpay.co.id', publicUrl: 'http://localhost:3000', warns: true },
    { gatewayUrl: 'https://openapi.bdpay.co.id', publicUrl: 'https://toko-kopi.co.id', warns: false },
    { gatewayUrl: 'http://127.0.0.1:4010', publicUrl: 'http://127.0.0.1:3000', warns: false },
    { gatewayUrl: 'http://localhost:4010', publicUrl: 'https://toko-kopi.co.id', warns: false },
  ];
  for (const { gatewayUrl, publicUrl, warns } of cases) {
    test(`gateway ${gatewayUrl}, publicUrl ${publicUrl}: ${warns ? 'warns' : 'silent'}`, () => {
      const warnings = configurationWarnings({ gatewayUrl: new URL(gatewayUrl), publicUrl: new URL(publicUrl), mountPath: '/pay' });
      assert.equal(warnings.length, warns ? 1 : 0);
      if (warns) assert.match(warnings[0]!.message, /cannot deliver notifications to .*\/pay\/notify/);
    });
  }
});

describe('refusal log lines sampled per client', () => {
  test('LogSampler: a few lines per client per window, then a count of those left out', () => {
    const sampler = new LogSampler({ perWindow: 2, windowMs: 1_000, maxClients: 2 });
    const steps: Array<[string, number, boolean, number]> = [
      ['a', 0, true, 0],
      ['a', 10, true, 0],
      ['a', 20, false, 0],
      ['b', 30, true, 0], // another client has its own allowance
      ['a', 40, false, 0],
      ['a', 1_000, true, 2], // a new window: the two left out are counted once
      ['a', 1_010, true, 0],
      ['c', 1_020, true, 0], // a third client: the oldest remembered (b) is forgotten
      ['b', 1_030, true, 0],
    ];
    for (const [client, at, log, skipped] of steps) assert.deepEqual(sampler.admit(client, at), { log, skipped }, `${client} at ${at}`);
  });

  test('logEvents: one sender\'s junk is sampled, another sender and our own failures are not', () => {
    const events = new PayButtonEvents();
    const lines: Array<{ level: string; message: string }> = [];
    const record = (level: string) => (_fields: object, message: string) => void lines.push({ level, message });
    let clock = 0;
    const stop = logEvents(events, { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') }, () => clock);
    for (let i = 0; i < 1_000; i++) events.emit('notification.rejected', { reason: 'bad_signature', message: 'platSign does not verify', httpStatus: 401, client: '203.0.113.9' });
    events.emit('notification.rejected', { reason: 'bad_signature', message: 'platSign does not verify', httpStatus: 401, client: '198.51.100.7' });
    events.emit('notification.rejected', { reason: 'fulfilment_failed', orderNum: 'PB1', message: 'onPaid threw', httpStatus: 500, client: '203.0.113.9' });
    assert.equal(lines.filter((line) => line.level === 'warn').length, 6, '5 of the flood, 1 of the other sender');
    assert.equal(lines.filter((line) => line.level === 'error').length, 1, 'our own failure is always logged');
    clock = 60_000;
    events.emit('notification.rejected', { reason: 'bad_signature', message: 'platSign does not verify', httpStatus: 401, client: '203.0.113.9' });
    assert.ok(lines.some((line) => line.message === '995 more refused notifications from 203.0.113.9 were not logged'), JSON.stringify(lines.slice(-3)));
    stop();
  });
});
