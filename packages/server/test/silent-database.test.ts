/**
 * Half-open database connections (issue 25): every connection the gateway and the plug-in hold
 * goes silent (a proxy keeps them open and passes nothing), and both serve again by themselves,
 * well within 60 s: the query timeout drops each silent connection, the pool opens fresh ones,
 * and the notification worker's rounds carry on. The deadlines are set short here
 * (`DEADLINE_MS`); the defaults are in store-kit's `POSTGRES_DEADLINE_DEFAULTS`.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { DATABASE_URL, dropSchema } from './support/engines.ts';
import { startHarness, waitFor, type Harness } from './support/harness.ts';
import { startSilentProxy, type SilentProxy } from '@tombolbayar/test-support/database-chaos';

/** Short deadlines, so the test waits seconds, not the defaults' tens of seconds. */
const DEADLINE_MS = Number(process.env.SILENT_DB_DEADLINE_MS ?? 1_000);
const deadlines = { connectTimeoutMs: DEADLINE_MS, statementTimeoutMs: DEADLINE_MS, queryTimeoutMs: DEADLINE_MS * 1.5, idleInTransactionTimeoutMs: DEADLINE_MS * 2 };

const schemaName = (prefix: string) => `${prefix}_${randomBytes(6).toString('hex')}`;

describe('half-open database connections (PostgreSQL)', { skip: DATABASE_URL ? false : 'DATABASE_URL is not set' }, () => {
  let harness: Harness;
  let proxy: SilentProxy;
  const schemas = { gateway: schemaName('gw_silent'), shop: schemaName('pbx_silent') };

  before(async () => {
    proxy = await startSilentProxy(DATABASE_URL!);
    harness = await startHarness({
      database: { kind: 'postgres', url: proxy.url, schema: schemas.shop, maxConnections: 4, ...deadlines },
      gatewayDatabase: { kind: 'postgres', url: proxy.url, schema: schemas.gateway, ...deadlines },
      gatewayOptions: { notifications: { pollIntervalMs: 50, timeoutMs: 5_000, roundDeadlineMs: DEADLINE_MS * 3 } },
    });
  });

  after(async () => {
    await harness?.close();
    await proxy?.close();
    await dropSchema(DATABASE_URL!, schemas.shop);
    await dropSchema(DATABASE_URL!, schemas.gateway);
  });

  it('drops the silent connections and serves again within 60 s, without a restart', async () => {
    // Warm both pools: several connections each, all through the proxy.
    await Promise.all(Array.from({ length: 6 }, () => harness.createLink()));
    const before = await harness.createLink();
    assert.equal(before.status, 201, JSON.stringify(before.body));
    const held = proxy.silenceHeld();
    assert.ok(held >= 2, `connections held by the gateway and the plug-in were silenced (${held})`);
    const acceptedAtSilence = proxy.accepted;

    const started = Date.now();
    const answers: number[] = [];
    const link = await waitFor(async () => {
      const response = await harness.createLink();
      answers.push(response.status);
      return response.status === 201 ? response : undefined;
    }, 'a link created after the connections went silent', 60_000);
    // Every answer meanwhile was a retryable refusal, never a hang or a 500.
    for (const status of answers.slice(0, -1)) assert.equal(status, 503);
    assert.ok(proxy.accepted > acceptedAtSilence, 'fresh connections replaced the silent ones');

    // The notification worker carries on too: the order paid now reaches onPaid.
    await harness.payAtGateway(link.body.orderNum);
    await waitFor(() => harness.fulfilled.some((order) => order.orderNum === link.body.orderNum), 'onPaid after the silence', 60_000 - (Date.now() - started));
    const ready = await waitFor(async () => ((await fetch(`${harness.gatewayUrl}/readyz`)).status === 200 ? true : undefined), 'the gateway ready again', 30_000);
    assert.equal(ready, true);
  });
});
