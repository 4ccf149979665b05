/**
 * Issue 25 on the gateway alone: starting while the database is down (it keeps trying, says so,
 * answers 503 meanwhile and is ready once the database is), the health routes, load shedding past
 * `maxInFlight`, and the pure decisions behind them.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { pino } from 'pino';
import { createGateway, type Gateway } from '../src/index.ts';
import { readiness } from '../src/http/health.ts';
import { startupRetryDelayMs } from '../src/store/startup.ts';
import { DATABASE_URL, dropSchema, freshStore } from './support/engines.ts';
import { platformKeys } from './support/keys.ts';
import { eventually } from './support/receiver.ts';
import { freePort } from '@tombolbayar/test-support/network';

/** A TCP forwarder to PostgreSQL on a given port: "the database comes up" when it starts. */
async function forwarderOn(port: number, target: URL): Promise<net.Server> {
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

/** The suite's one wait on a state (`support/receiver.ts`), with this file's argument order. */
const waitFor = <T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> => eventually(check, timeoutMs, what);

describe('startupRetryDelayMs and readiness (pure)', () => {
  it('waits 250 ms, doubling, at most 10 s', () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8, 50].map(startupRetryDelayMs), [250, 500, 1_000, 2_000, 4_000, 8_000, 10_000, 10_000, 10_000]);
    assert.equal(startupRetryDelayMs(0), 250);
  });

  const table: Array<[Parameters<typeof readiness>[0], ReturnType<typeof readiness>]> = [
    [{ startup: 'ready', databaseAnswered: true, worker: { lastRoundAt: 0, stalled: false } }, { ready: true, database: 'ok', worker: 'ok', load: 'ok' }],
    [{ startup: 'ready', databaseAnswered: true, worker: undefined }, { ready: true, database: 'ok', worker: 'off', load: 'ok' }],
    [{ startup: 'ready', databaseAnswered: false, worker: { lastRoundAt: 0, stalled: false } }, { ready: false, database: 'unavailable', worker: 'ok', load: 'ok' }],
    [{ startup: 'ready', databaseAnswered: true, worker: { lastRoundAt: 0, stalled: true } }, { ready: false, database: 'ok', worker: 'stalled', load: 'ok' }],
    [{ startup: 'starting', databaseAnswered: false, worker: undefined }, { ready: false, database: 'starting', worker: 'off', load: 'ok' }],
    [{ startup: 'waiting_for_database', databaseAnswered: false, worker: undefined }, { ready: false, database: 'unavailable', worker: 'off', load: 'ok' }],
    [{ startup: 'failed', databaseAnswered: false, worker: undefined }, { ready: false, database: 'unavailable', worker: 'off', load: 'ok' }],
    [{ startup: 'ready', databaseAnswered: true, worker: undefined, saturated: true }, { ready: false, database: 'ok', worker: 'off', load: 'saturated' }],
  ];
  for (const [input, expected] of table) {
    const { startup, databaseAnswered, worker, saturated } = input;
    it(`${startup}, database ${databaseAnswered ? 'answers' : 'silent'}, worker ${worker ? (worker.stalled ? 'stalled' : 'ok') : 'off'}${saturated ? ', saturated' : ''}`, () => {
      assert.deepEqual(readiness(input), expected);
    });
  }
});

describe('health routes and load shedding (SQLite)', () => {
  let gateway: Gateway | undefined;
  const store = freshStore('sqlite');
  after(async () => {
    await gateway?.close();
    await store.cleanup();
  });

  it('/healthz and /readyz answer; past maxInFlight a request is refused at once with 503 and Retry-After', async () => {
    gateway = createGateway({ database: store.database, platformPrivateKey: platformKeys().privateKey, logger: false, sandbox: true, maxInFlight: 1 });
    const { url } = await gateway.listen();
    assert.deepEqual(await (await fetch(`${url}/healthz`)).json(), { status: 'ok' });
    const ready = await fetch(`${url}/readyz`);
    assert.equal(ready.status, 200);
    const readiness = (await ready.json()) as { load: { eventLoopDelayMs: number } };
    assert.ok(readiness.load.eventLoopDelayMs >= 0);
    assert.deepEqual({ ...readiness, load: { ...readiness.load, eventLoopDelayMs: 0 } }, { status: 'ready', database: 'ok', worker: 'ok', load: { state: 'ok', inFlight: 0, reading: 0, shed: 0, eventLoopDelayMs: 0 } });

    // One request held open (its body never ends) is all this client may have open (its cap is
    // maxInFlight); other clients are not held back by it (test/slow-clients.test.ts).
    const held = net.connect(Number(new URL(url).port), '127.0.0.1');
    held.write('POST /gateway/prepaidOrder HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
    const shed = await waitFor(async () => {
      const response = await fetch(`${url}/gateway/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      return response.status === 503 ? response : undefined;
    }, 'a request of the same client refused while its slow one is open');
    assert.equal(shed.headers.get('retry-after'), '1');
    assert.equal((await shed.json()).platRespCode, 'ERROR');
    // Probes are never shed.
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    held.destroy();
    // The client may send again once the held request's connection ends.
    await waitFor(async () => ((await fetch(`${url}/gateway/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status === 200 ? true : undefined), 'the slot freed');
  });
});

describe('starting while PostgreSQL is down', { skip: DATABASE_URL ? false : 'DATABASE_URL is not set' }, () => {
  const schema = `gw_down_${randomBytes(6).toString('hex')}`;
  let gateway: Gateway | undefined;
  let forwarder: net.Server | undefined;
  after(async () => {
    await gateway?.close();
    await new Promise<void>((resolve) => (forwarder ? forwarder.close(() => resolve()) : resolve()));
    await dropSchema(schema);
  });

  it('keeps trying with a log line, answers 503 meanwhile, and is ready once the database is', async () => {
    const target = new URL(DATABASE_URL!);
    const port = await freePort();
    const url = new URL(DATABASE_URL!);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    const lines: Array<{ msg: string; attempt?: number }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    gateway = createGateway({
      database: { kind: 'postgres', url: url.toString(), schema, connectTimeoutMs: 500 },
      platformPrivateKey: platformKeys().privateKey,
      logger,
      sandbox: true,
    });
    let started = false;
    void gateway.ready.then(() => (started = true));
    // listen() binds once the start is waiting for the database, so /readyz can say so.
    const { url: base } = await gateway.listen();
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
    const notReady = await fetch(`${base}/readyz`);
    assert.equal(notReady.status, 503);
    assert.deepEqual({ ...(await notReady.json()), load: undefined }, { status: 'unavailable', database: 'unavailable', worker: 'off', load: undefined });
    const refused = await fetch(`${base}/gateway/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(refused.status, 503);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    await waitFor(async () => (lines.filter((line) => /database not reachable at start/.test(line.msg)).length >= 2 ? true : undefined), 'two start attempts logged');
    assert.equal(started, false);

    forwarder = await forwarderOn(port, target); // the database comes up
    await gateway.ready;
    const ready = await waitFor(async () => ((await fetch(`${base}/readyz`)).status === 200 ? true : undefined), '/readyz 200');
    assert.equal(ready, true);
    assert.equal((await fetch(`${base}/gateway/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 200);
  });
});
