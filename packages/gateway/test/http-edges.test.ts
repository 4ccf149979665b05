/**
 * The HTTP edges: every refusal before a route runs is a signed JSON `{platRespCode,
 * platRespMessage}` with a meaningful status, never a stack trace; security headers; logs that
 * never contain a key or a signature.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import BetterSqlite3 from 'better-sqlite3';
import { after, before, describe, test } from 'node:test';
import { createGateway } from '../src/index.ts';
import { createLogger } from '../src/logger.ts';
import { freshStore } from './support/engines.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { merchantKeys, platformKeys } from './support/keys.ts';

async function raw(url: string, init: RequestInit) {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as Record<string, string>, headers: response.headers };
}

describe('HTTP edges', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite');
  });
  after(() => h.stop());

  function assertEdge(answer: { status: number; text: string; body: Record<string, string> }, status: number, code: string, message: RegExp) {
    assert.equal(answer.status, status);
    assert.equal(answer.body.platRespCode, code);
    assert.match(answer.body.platRespMessage!, message);
    assert.ok(h.verifies(answer.body), 'edge answers are signed');
    assert.doesNotMatch(answer.text, /at [\w.<>]+ \(|node_modules|\.ts:\d+/, 'no stack trace');
  }

  test('malformed JSON is 400', async () => {
    const answer = await raw(`${h.url}/gateway/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"merchantCode": ' });
    assertEdge(answer, 400, 'FAIL', /^body: must be a valid JSON object$/);
  });

  test('a JSON body that is not an object is refused', async () => {
    const scalar = await raw(`${h.url}/gateway/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '"text"' });
    assertEdge(scalar, 400, 'FAIL', /^body: must be a valid JSON object$/);
    const empty = await raw(`${h.url}/gateway/query`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    assertEdge(empty, 400, 'FAIL', /^body: must be a JSON object$/);
  });

  test('a wrong or missing content type is 415', async () => {
    for (const headers of [{ 'content-type': 'text/plain' }, { 'content-type': 'application/x-www-form-urlencoded' }, {} as Record<string, string>]) {
      const answer = await raw(`${h.url}/gateway/prepaidOrder`, { method: 'POST', headers, body: '{}' });
      assertEdge(answer, 415, 'FAIL', /^Content-Type: must be application\/json$/);
    }
    const latin1 = await raw(`${h.url}/gateway/pay`, { method: 'POST', headers: { 'content-type': 'application/json; charset=latin1' }, body: '{}' });
    assertEdge(latin1, 415, 'FAIL', /charset must be utf-8/);
  });

  test('a body over 64 KB is 413', async () => {
    const body = JSON.stringify({ merchantCode: 'M-TEST-001', padding: 'x'.repeat(64 * 1024) });
    const answer = await raw(`${h.url}/gateway/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assertEdge(answer, 413, 'FAIL', /^body: must be at most 64 KB$/);
  });

  test('an unknown route is 404 and a wrong method 405', async () => {
    assertEdge(await raw(`${h.url}/gateway/refund`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }), 404, 'NOTEXIST', /^path: no such route$/);
    assertEdge(await raw(`${h.url}/nothing/here`, { method: 'GET' }), 404, 'NOTEXIST', /^path: no such route$/);
    const wrongMethod = await raw(`${h.url}/gateway/pay`, { method: 'GET' });
    assertEdge(wrongMethod, 405, 'FAIL', /^method: is not allowed here; see the Allow header$/);
    assert.equal(wrongMethod.headers.get('allow'), 'POST');
  });

  test('security headers are set and nothing advertises the stack', async () => {
    const answer = await raw(`${h.url}/gateway/pay`, { method: 'GET' });
    assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
    assert.match(answer.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    assert.equal(answer.headers.get('x-powered-by'), null);
    assert.equal(answer.headers.get('cache-control'), 'no-store');
  });
});

test('a gateway whose database is unreachable keeps trying, and answers ERROR 503 with Retry-After and no details', async () => {
  const store = freshStore('sqlite');
  const gateway = createGateway({
    // Nothing listens on port 1: every connection is refused, and the start keeps trying (issue 25).
    database: { kind: 'postgres', url: 'postgres://postgres@127.0.0.1:1/none' },
    dataDir: store.dataDir,
    platformPrivateKey: platformKeys().privateKey,
    logger: false,
  });
  const { url } = await gateway.listen();
  try {
    const answer = await raw(`${url}/gateway/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(answer.status, 503);
    assert.ok(Number(answer.headers.get('retry-after')) > 0);
    assert.equal(answer.body.platRespCode, 'ERROR');
    assert.doesNotMatch(answer.text, /ECONNREFUSED|127\.0\.0\.1:1|postgres/);
    assert.equal((await raw(`${url}/readyz`, {})).status, 503);
  } finally {
    await gateway.close();
    await assert.rejects(gateway.ready);
    await store.cleanup();
  }
});

test('logs never contain keys or signatures', async () => {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const h = await startHarness('sqlite', { logger: createLogger({ level: 'debug', destination }) });
  try {
    const created = await h.client.createVa();
    await h.gateway.pay(created.body.platOrderNum!);
    await h.client.query({ orderNum: created.body.orderNum! });
    // Anything that logs a signature or a key by its field name is redacted too.
    h.gateway.logger.warn({ sign: 'SECRET-1', response: { platSign: 'SECRET-2' }, platformPrivateKey: 'SECRET-3' }, 'probe');
    const text = lines.join('');
    assert.match(text, /order created/);
    assert.match(text, /"path":"\/gateway\/pay"/);
    assert.match(text, /\[redacted\]/);
    assert.doesNotMatch(text, /SECRET-/);
    assert.ok(!text.includes(created.body.platSign!), 'no response signature in the logs');
    for (const pem of [platformKeys().privateKey, merchantKeys().privateKey]) {
      assert.ok(!text.includes(pem.split('\n')[1]!), 'no private key in the logs');
    }
  } finally {
    await h.stop();
  }
});

/** Break the store under a running gateway (as a lost table would), so reading an order fails. */
function breakOrdersTable(file: string): void {
  const db = new BetterSqlite3(file);
  try {
    db.pragma('busy_timeout = 5000');
    db.exec('ALTER TABLE orders RENAME TO orders_gone');
  } finally {
    db.close();
  }
}

test("the payment page's internal errors go to the gateway's logger, and nowhere with logger: false", async () => {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const printed: unknown[][] = [];
  const consoleError = console.error;
  console.error = (...args: unknown[]) => void printed.push(args);
  try {
    for (const logger of [createLogger({ level: 'debug', destination }), false as const]) {
      const h = await startHarness('sqlite', { logger, notifications: { worker: false } });
      try {
        const created = await h.client.createVa();
        breakOrdersTable((h.store.database as { file: string }).file);
        const page = await fetch(`${h.url}/pay?orderNum=${created.body.platOrderNum}`);
        assert.equal(page.status, 500);
        assert.doesNotMatch(await page.text(), /orders|SQLITE|at \//, 'the customer sees no internals');
      } finally {
        await h.stop();
      }
    }
    const logged = lines.map((line) => JSON.parse(line) as { msg: string; level: number; err?: { message: string } });
    const pageErrors = logged.filter((entry) => entry.msg === 'payment page error');
    assert.equal(pageErrors.length, 1, 'logged once, by the gateway with a logger');
    assert.equal(pageErrors[0]!.level, 50);
    assert.match(pageErrors[0]!.err!.message, /orders/);
    assert.deepEqual(printed, [], 'nothing on the console: not with a logger, not with logger: false');
  } finally {
    console.error = consoleError;
  }
});
