/**
 * Idle and slow clients cost nothing others need (issue 31): 200 connections that send nothing
 * and 50 requests whose body never finishes leave the signed API answering within a second, and
 * the slow ones are answered 408 and closed at the server's request deadline. Past a client's cap
 * a request is refused at once (503, Retry-After), logged once, and /readyz says the process is
 * saturated.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, describe, test } from 'node:test';
import pino from 'pino';
import { openSlowClients, timed, type SlowClients } from '@tombolbayar/test-support/slow-clients';
import { eventually } from '@tombolbayar/test-support/eventually';
import { startHarness, type Harness } from './support/harness.ts';

/**
 * How long a customer's request may take while the idle and slow connections are open: they answer
 * in tens of milliseconds on a quiet machine (the bench measures it); the bound leaves room for a
 * busy 2-core CI running four suites at once. What it guards against is minutes of `503`s.
 */
const ANSWER_BOUND_MS = 3_000;

const waitFor = <T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> => eventually(check, timeoutMs, what);

/** A POST from a loopback address of our choosing (fetch cannot pick one). */
function postFrom(localAddress: string, url: string, body: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', localAddress, agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } });
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

describe('slow and idle clients (SQLite)', () => {
  let h: Harness | undefined;
  let clients: SlowClients | undefined;
  after(async () => {
    clients?.close();
    await h?.stop();
  });

  test('200 idle and 50 slow-body connections: queries still answer (within seconds, not minutes of 503s); the slow ones get 408 and are closed', async () => {
    // 50 slow bodies are more than maxInFlight: before issue 31 they held every slot.
    h = await startHarness('sqlite', { requestTimeoutMs: 2_000, maxInFlight: 32 });
    const created = await h.client.createVa({ method: 'VA_BCA' });
    const { orderNum } = created.body as { orderNum: string };
    const port = Number(new URL(h.url).port);
    clients = await openSlowClients({ port, idle: 200, slow: 50, slowRequest: 'POST /gateway/pay HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' });
    for (let round = 0; round < 5; round++) {
      const { ms, value } = await timed(() => h!.client.query({ orderNum }));
      assert.equal(value.body.platRespCode, 'SUCCESS', JSON.stringify(value.body));
      assert.ok(ms < ANSWER_BOUND_MS, `query ${round} took ${Math.round(ms)} ms`);
    }
    await clients.untilSlowClosed(10_000);
    for (const client of clients.slow) assert.match(client.received(), /^HTTP\/1\.1 408 /, client.received().slice(0, 80));
    const after = await h.client.query({ orderNum });
    assert.equal(after.body.platRespCode, 'SUCCESS');
  });
});

describe('one client past its cap (SQLite)', () => {
  let h: Harness | undefined;
  let clients: SlowClients | undefined;
  after(async () => {
    clients?.close();
    await h?.stop();
  });

  test('is refused at once with 503 and Retry-After, logged once, and /readyz says saturated; other clients are served', async () => {
    const lines: Array<{ msg: string; reason?: string; shedSinceLastReport?: number }> = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    h = await startHarness('sqlite', { maxInFlight: 2, logger });
    const port = Number(new URL(h.url).port);
    // Two slow bodies from 127.0.0.2 (its cap is maxInFlight, 2): they take no work slot.
    clients = await openSlowClients({ port, idle: 0, slow: 2, addresses: 1, slowRequest: 'POST /gateway/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' });
    const refused = await waitFor(async () => {
      const answer = await postFrom('127.0.0.2', `${h!.url}/gateway/query`, '{}');
      return answer.status === 503 ? answer : undefined;
    }, 'the third request of 127.0.0.2 refused');
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal(JSON.parse(refused.text).platRespCode, 'ERROR');
    // Another client is worked on: the slow bodies hold no slot.
    const other = await postFrom('127.0.0.1', `${h.url}/gateway/query`, '{}');
    assert.notEqual(other.status, 503, other.text);
    const ready = await fetch(`${h.url}/readyz`);
    assert.equal(ready.status, 503);
    const readiness = (await ready.json()) as { status: string; load: { state: string; reading: number; shed: number } };
    assert.deepEqual([readiness.status, readiness.load.state, readiness.load.reading], ['saturated', 'saturated', 2]);
    assert.ok(readiness.load.shed >= 1);
    await postFrom('127.0.0.2', `${h.url}/gateway/query`, '{}');
    const reports = lines.filter((line) => /shedding load/.test(line.msg));
    assert.deepEqual(reports.map((line) => line.reason), ['per_client'], 'the first refusal is logged, the next ones counted');
    // Once the slow bodies are gone, the client is served again.
    clients.close();
    await waitFor(async () => ((await postFrom('127.0.0.2', `${h!.url}/gateway/query`, '{}')).status !== 503 ? true : undefined), '127.0.0.2 served again');
  });
});
