/**
 * PostgreSQL ending the connections of the gateway and of the plug-in under load (issue 25): with
 * 20 requests in flight and `pg_terminate_backend` every 300 ms for 6 s on both processes'
 * backends, nothing exits (an unhandled `error` event would end this very test process), every
 * request that met a fault is answered 503 with `Retry-After` and `retryable: true`, and both
 * serve the next request: a link is created, paid, and `onPaid` runs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomBytes } from 'node:crypto';
import { backendKiller, taggedUrl, type BackendKiller } from '@tombolbayar/test-support/database-chaos';
import { DATABASE_URL, dropSchema } from './support/engines.ts';
import { startHarness, waitFor, type Harness } from './support/harness.ts';

const schemaName = (prefix: string) => `${prefix}_${randomBytes(6).toString('hex')}`;

describe('database connections ended under load (PostgreSQL)', { skip: DATABASE_URL ? false : 'DATABASE_URL is not set' }, () => {
  let harness: Harness;
  let killer: BackendKiller;
  let tag: string;
  const schemas = { gateway: schemaName('gw_fault'), shop: schemaName('pbx_fault') };

  before(async () => {
    const tagged = taggedUrl(DATABASE_URL!, 'tb25_fault');
    tag = tagged.tag;
    harness = await startHarness({
      database: { kind: 'postgres', url: tagged.url, schema: schemas.shop, maxConnections: 5 },
      gatewayDatabase: { kind: 'postgres', url: tagged.url, schema: schemas.gateway },
      tuning: { retryBaseDelayMs: 20, retryMaxDelayMs: 100 },
    });
    killer = await backendKiller(DATABASE_URL!, tag);
  });

  after(async () => {
    await killer?.close();
    await harness?.close();
    await dropSchema(DATABASE_URL!, schemas.shop);
    await dropSchema(DATABASE_URL!, schemas.gateway);
  });

  it('answers 503 + Retry-After while connections die, and serves the next request', async () => {
    const answers: Array<{ status: number; retryAfter: string | null; body: any }> = [];
    let killing = true;
    const chaos = killer.run(300, 6_000).finally(() => {
      killing = false;
    });
    // 20 requests in flight for as long as the connections are being ended.
    const clients = Array.from({ length: 20 }, async () => {
      while (killing) {
        const response = await harness.createLink();
        answers.push({ status: response.status, retryAfter: response.headers.get('retry-after'), body: response.body });
      }
    });
    await Promise.all([chaos, ...clients]);

    assert.ok(killer.terminated > 0, 'the test ended some of its own backends');
    const created = answers.filter((answer) => answer.status === 201 || answer.status === 200);
    const refused = answers.filter((answer) => answer.status === 503);
    const other = answers.filter((answer) => !created.includes(answer) && !refused.includes(answer));
    assert.deepEqual(other.map((answer) => `${answer.status} ${JSON.stringify(answer.body)}`), [], 'every answer is a link or a retryable 503');
    for (const answer of refused) {
      assert.ok(answer.retryAfter && Number(answer.retryAfter) > 0, `503 with Retry-After: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.error.retryable, true);
    }

    // Both processes serve the next request: a link, paid at the gateway, reaches onPaid.
    const next = await waitFor(async () => {
      const response = await harness.createLink();
      return response.status === 201 || response.status === 200 ? response : undefined;
    }, 'a link created after the faults', 30_000);
    await harness.payAtGateway(next.body.orderNum);
    await waitFor(() => harness.fulfilled.some((order) => order.orderNum === next.body.orderNum), 'onPaid for the order paid after the faults', 30_000);
    const ready = await fetch(`${harness.gatewayUrl}/readyz`);
    assert.equal(ready.status, 200);
  });
});
