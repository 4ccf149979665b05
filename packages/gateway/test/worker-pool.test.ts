/**
 * The notification worker's pool and leases: a receiver that hangs holds up one delivery slot,
 * never another merchant's notification; and moving the sandbox clock never frees the lease of
 * an attempt in flight (leases are on real time), so one notification is never delivered twice at
 * the same time.
 */
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, test } from 'node:test';
import { ENGINES } from './support/engines.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { notificationLease } from './support/inspect.ts';
import { eventually, startReceiver, type Receiver } from './support/receiver.ts';

/** A merchant endpoint that takes every notification and answers none until `release()`. */
async function startHangingReceiver() {
  const requests: Record<string, string>[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push(Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
      held.push(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`,
    requests,
    /** Answer every held request with the acknowledgement. */
    release() {
      for (const res of held.splice(0)) res.writeHead(200, { 'content-type': 'text/plain' }).end('SUCCESS');
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

for (const engine of ENGINES) {
  describe(`notification worker pool on ${engine}`, () => {
    let h: Harness;
    let fast: Receiver;
    let slow: Awaited<ReturnType<typeof startHangingReceiver>>;
    before(async () => {
      fast = await startReceiver();
      // A generous attempt timeout, so the hanging receiver is still pending when the test releases it.
      h = await startHarness(engine, { timeScale: 0.001, notifications: { pollIntervalMs: 50, timeoutMs: 30_000 } });
    });
    afterEach(async () => {
      slow?.release();
      await slow?.close();
    });
    after(async () => {
      await h.stop();
      await fast.close();
    });

    const deliveryOf = async (orderNum: string) => (await h.gateway.deliveries.list({ orderNum }))[0];

    test('a receiver that hangs does not hold up another merchant: the fast one is delivered meanwhile', async () => {
      slow = await startHangingReceiver();
      const stuck = await h.client.createVa({ notifyUrl: slow.url });
      await h.gateway.pay(stuck.body.platOrderNum!);
      await eventually(async () => (slow.requests.length === 1 ? true : undefined), 20_000, 'the hanging attempt to start');

      const quick = await h.client.createVa({ notifyUrl: fast.url });
      await h.gateway.pay(quick.body.platOrderNum!);
      const delivered = await eventually(async () => {
        const delivery = await deliveryOf(quick.body.orderNum!);
        return delivery?.state === 'delivered' ? delivery : undefined;
      }, 20_000, 'the fast receiver to be delivered');
      assert.equal(delivered.attempts.length, 1);
      assert.ok(fast.received.some((r) => r.fields.orderNum === quick.body.orderNum && r.fields.code === '00'));

      const pending = await deliveryOf(stuck.body.orderNum!);
      assert.equal(pending?.state, 'pending', 'the slow one is still in flight');
      assert.equal(pending?.attempts.length, 0, 'its attempt has not ended');
      assert.equal(slow.requests.length, 1);

      slow.release();
      const settled = await eventually(async () => {
        const delivery = await deliveryOf(stuck.body.orderNum!);
        return delivery?.state === 'delivered' ? delivery : undefined;
      }, 20_000, 'the slow receiver to be delivered once released');
      assert.equal(settled.attempts.length, 1);
      assert.equal(slow.requests.length, 1);
    });

    test('moving the sandbox clock does not free the lease of an attempt in flight: no second concurrent delivery', async () => {
      slow = await startHangingReceiver();
      const created = await h.client.createVa({ notifyUrl: slow.url });
      await h.gateway.pay(created.body.platOrderNum!);
      await eventually(async () => (slow.requests.length === 1 ? true : undefined), 20_000, 'the attempt to start');

      // Ten hours on the gateway clock: far past the 60 s lease, were it measured on that clock.
      const advanced = await fetch(`${h.url}/sandbox/clock/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ minutes: 600 }),
      });
      assert.equal(advanced.status, 200);
      assert.equal(await h.gateway.deliveries.runOnce(), 0, 'nothing to claim: the lease still holds');
      // A few of the worker's own polling rounds (50 ms) on the moved clock.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(slow.requests.length, 1, 'the notification was not sent a second time');
      const inFlight = await deliveryOf(created.body.orderNum!);
      assert.equal(inFlight?.state, 'pending');
      assert.ok(((await notificationLease(h.store, inFlight!.id))?.leaseUntil ?? 0) > Date.now(), 'its lease is still live on real time');

      slow.release();
      const settled = await eventually(async () => {
        const delivery = await deliveryOf(created.body.orderNum!);
        return delivery?.state === 'delivered' ? delivery : undefined;
      }, 20_000, 'delivery once released');
      assert.equal(settled.attempts.length, 1, 'exactly one attempt');
      assert.equal(slow.requests.length, 1);
    });
  });
}
