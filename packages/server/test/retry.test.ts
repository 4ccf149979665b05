/** The create loop's pure decisions, table-tested (stripe-node tests its `_shouldRetry` the same way). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { backoffDelay, decideAfterCreate, decideAfterQuery, parseRetryAfter, type AttemptOutcome, type Decision } from '../src/gateway/retry.ts';

describe('decideAfterCreate', () => {
  const table: Array<[string, AttemptOutcome, Decision]> = [
    ['a verified SUCCESS is done', { kind: 'success' }, { action: 'done' }],
    ['FAIL is a refusal: never re-sent', { kind: 'result', code: 'FAIL' }, { action: 'give_up' }],
    ['NOTEXIST (unknown merchant) is final', { kind: 'result', code: 'NOTEXIST' }, { action: 'give_up' }],
    ['UNKNOWN: ask before re-sending', { kind: 'result', code: 'UNKNOWN' }, { action: 'retry', queryFirst: true }],
    ['ERROR: ask before re-sending', { kind: 'result', code: 'ERROR' }, { action: 'retry', queryFirst: true }],
    ['429: not processed, re-send', { kind: 'http', status: 429 }, { action: 'retry', queryFirst: false }],
    ['500: may have been processed', { kind: 'http', status: 500 }, { action: 'retry', queryFirst: true }],
    ['502 from a proxy: may have been processed', { kind: 'http', status: 502 }, { action: 'retry', queryFirst: true }],
    ['503: may have been processed', { kind: 'http', status: 503 }, { action: 'retry', queryFirst: true }],
    ['400: the request is wrong, do not repeat it', { kind: 'http', status: 400 }, { action: 'give_up' }],
    ['413: too large, do not repeat it', { kind: 'http', status: 413 }, { action: 'give_up' }],
    ['404: wrong gatewayUrl, do not repeat it', { kind: 'http', status: 404 }, { action: 'give_up' }],
    ['timeout after connecting: ask first', { kind: 'timeout', maybeReceived: true }, { action: 'retry', queryFirst: true }],
    ['timeout while connecting: just re-send', { kind: 'timeout', maybeReceived: false }, { action: 'retry', queryFirst: false }],
    ['connection refused: just re-send', { kind: 'network', maybeReceived: false }, { action: 'retry', queryFirst: false }],
    ['connection reset mid-request: ask first', { kind: 'network', maybeReceived: true }, { action: 'retry', queryFirst: true }],
    ['an answer that does not verify: ask first', { kind: 'invalid_response' }, { action: 'retry', queryFirst: true }],
  ];
  for (const [name, outcome, expected] of table) {
    test(name, () => assert.deepEqual(decideAfterCreate(outcome), expected));
  }
});

describe('decideAfterQuery', () => {
  test('found: adopt the order the gateway has', () => assert.deepEqual(decideAfterQuery({ kind: 'found' }), { action: 'adopt' }));
  test('NOTEXIST: the create never registered, send it', () => assert.deepEqual(decideAfterQuery({ kind: 'not_found' }), { action: 'send_create' }));
  test('the query failed too: wait and ask again', () => assert.deepEqual(decideAfterQuery({ kind: 'undetermined' }), { action: 'wait_and_query' }));
  test('a verified answer about another amount or order: abandon (never adopt, never re-send)', () => assert.deepEqual(decideAfterQuery({ kind: 'mismatch' }), { action: 'abandon' }));
});

describe('backoffDelay (full jitter)', () => {
  const policy = { baseDelayMs: 100, maxDelayMs: 1_000 };
  test('the ceiling doubles per retry and stops at maxDelayMs', () => {
    const almostOne = () => 0.999_999;
    assert.deepEqual([0, 1, 2, 3, 4, 5].map((retry) => backoffDelay(retry, policy, almostOne)), [99, 199, 399, 799, 999, 999]);
  });
  test('the wait is uniform from zero: random 0 waits nothing, 0.5 half the ceiling', () => {
    assert.equal(backoffDelay(3, policy, () => 0), 0);
    assert.equal(backoffDelay(3, policy, () => 0.5), 400);
  });
  test('Retry-After is a floor', () => {
    assert.equal(backoffDelay(0, policy, () => 0.5, 2_000), 2_000);
    assert.equal(backoffDelay(4, policy, () => 0.9, 10), 900);
  });
  test('a huge retry count does not overflow', () => {
    assert.equal(backoffDelay(10_000, policy, () => 0.5), 500);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  test('delta-seconds', () => assert.equal(parseRetryAfter('3', now), 3_000));
  test('an HTTP date', () => assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now), 5_000));
  test('a date in the past means now', () => assert.equal(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now), 0));
  test('absent or garbage', () => {
    assert.equal(parseRetryAfter(undefined, now), undefined);
    assert.equal(parseRetryAfter('soon', now), undefined);
  });
  test('the first of repeated headers', () => assert.equal(parseRetryAfter(['2', '9'], now), 2_000));
});
