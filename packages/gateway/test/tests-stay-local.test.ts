/**
 * Issue 12, "tests never leave the machine": every test connects only to 127.0.0.0/8 or ::1. A DNS
 * rebinding test once answered with a public address and the gateway really connected to it. This
 * file proves the guards hold where a test could slip:
 *
 * - the harness's resolver (`loopbackOnlyLookup`, wrapped around any resolver a test passes) refuses
 *   a fake answer naming a public or private address, and a literal one, before any socket opens,
 *   on a sandbox gateway, which would otherwise connect anywhere;
 * - the process-wide guard stops a socket that asks for an address beyond loopback directly;
 * - the CLI's child processes run with the guard preloaded, so their system resolver cannot either.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { LookupFunction } from 'node:net';
import { NON_LOOPBACK_CODE, watchConnections } from '@tombolbayar/test-support/network';
import { merchantClient } from './support/client.ts';
import { startGatewayProcess } from './support/cli-process.ts';
import { tempDir } from './support/engines.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { merchantKeys, platformKeys } from './support/keys.ts';
import { eventually } from './support/receiver.ts';

const connections = watchConnections();
after(() => {
  assert.deepEqual(connections.outsideLoopback(), [], 'no socket of this file connected beyond loopback');
});

/** A test's own fake DNS that names addresses beyond the machine, as the old rebinding test did. */
const leakyDns: LookupFunction = (hostname, _options, callback) => {
  const zone: Record<string, string> = { 'public.example': '93.184.216.34', 'private.example': '10.0.0.1', 'v6.example': '2606:4700:4700::1111' };
  const address = zone[hostname] ?? hostname;
  callback(null, [{ address, family: address.includes(':') ? 6 : 4 }]);
};

const OUTSIDE = [
  'http://public.example:8080/notify',
  'http://private.example/notify',
  'http://v6.example/notify',
  'http://93.184.216.34/notify',
];

describe('the harness: a sandbox gateway (private networks allowed) given a fake DNS that names the internet', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', { notifications: { pollIntervalMs: 20, lookup: leakyDns } });
  });
  after(async () => {
    await h.stop();
  });

  test('every delivery is refused by the resolver before any socket opens', async () => {
    const watch = watchConnections();
    for (const notifyUrl of OUTSIDE) {
      const created = await h.client.createVa({ notifyUrl });
      assert.equal(created.body.platRespCode, 'SUCCESS', created.body.platRespMessage);
      await h.gateway.pay(created.body.platOrderNum!);
      const delivery = await eventually(async () => {
        const [latest] = await h.gateway.deliveries.list({ platOrderNum: created.body.platOrderNum! });
        return latest && latest.attempts.length > 0 ? latest : undefined;
      }, 10_000, `the first attempt to ${notifyUrl}`);
      assert.equal(delivery.attempts[0]!.errorClass, 'dns', notifyUrl);
      assert.equal(delivery.attempts[0]!.detail, `lookup failed (${NON_LOOPBACK_CODE})`, notifyUrl);
    }
    const gatewayPort = Number(new URL(h.url).port);
    const elsewhere = watch.attempts().filter((attempt) => attempt.port !== gatewayPort);
    assert.deepEqual(elsewhere, [], 'no socket but the test client talking to the gateway');
  });
});

test('the process-wide guard stops a socket asking for an address beyond loopback', async () => {
  const watch = watchConnections();
  for (const host of ['192.0.2.1', '2606:4700:4700::1111', 'example.com']) {
    const error = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      const request = http.request({ host, port: 80, path: '/', agent: false }, () => resolve(undefined));
      request.on('error', resolve);
      request.end();
    });
    assert.equal(error?.code, NON_LOOPBACK_CODE, host);
  }
  assert.deepEqual(watch.attempts(), [], 'no connection was attempted');
  assert.equal(watch.refused().length, 3);
});

test('a CLI child process runs with the guard: its system resolver names nothing beyond loopback', async () => {
  const dataDir = tempDir();
  const keys = merchantKeys('stay-local');
  const merchantFile = join(dataDir, 'merchant-public.pem');
  writeFileSync(merchantFile, keys.publicKey);
  writeFileSync(join(dataDir, 'platform-private.pem'), platformKeys().privateKey, { mode: 0o600 });
  const gateway = await startGatewayProcess(['--sandbox', '--data', dataDir, '--merchant', `M-LOCAL-01=${merchantFile}`, '--time-scale', '0.001']);
  try {
    const client = merchantClient(gateway.url, { merchantCode: 'M-LOCAL-01', privateKey: keys.privateKey });
    for (const notifyUrl of ['http://93.184.216.34/notify', 'http://public.example/notify']) {
      const created = await client.createVa({ notifyUrl });
      assert.equal(created.body.platRespCode, 'SUCCESS', created.body.platRespMessage);
      const paid = await fetch(`${gateway.url}/sandbox/orders/${created.body.platOrderNum!}/pay`, { method: 'POST' });
      assert.equal(paid.status, 200);
      const attempt = await eventually(async () => {
        const answer = await fetch(`${gateway.url}/sandbox/deliveries?platOrderNum=${created.body.platOrderNum!}`);
        const { deliveries } = (await answer.json()) as { deliveries: Array<{ attempts: Array<{ errorClass: string; detail: string }> }> };
        return deliveries[0]?.attempts[0];
      }, 20_000, `the child's first attempt to ${notifyUrl}`);
      assert.equal(attempt.errorClass, 'dns', notifyUrl);
      assert.equal(attempt.detail, `lookup failed (${NON_LOOPBACK_CODE})`, notifyUrl);
    }
  } finally {
    await gateway.stop();
  }
});
