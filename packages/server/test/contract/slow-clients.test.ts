/**
 * Idle and slow clients cost nothing a customer needs (issue 31), on every framework: 200
 * connections that send nothing and 50 `POST /pay/notify` whose body never finishes (more than
 * `maxInFlight`, 32: before, they held every slot) leave a customer's links answering within a
 * second, and each slow one is answered `408` ("did not arrive within") and closed at the body deadline.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openSlowClients, timed, type SlowClients } from '@tombolbayar/test-support/slow-clients';
import { ENGINES } from '../support/engines.ts';
import { SERVERS } from './servers.ts';
import { startSandbox, startShop, type ContractShop, type SandboxGateway } from './shop.ts';

/**
 * How long a customer's request may take while the idle and slow connections are open: they answer
 * in tens of milliseconds on a quiet machine (the bench measures it); the bound leaves room for a
 * busy 2-core CI running four suites at once. What it guards against is minutes of `503`s.
 */
const ANSWER_BOUND_MS = 3_000;

/** Short enough for a test, long enough that every link below is made before it. */
const BODY_DEADLINE_MS = 3_000;

let sandbox: SandboxGateway;
before(async () => {
  sandbox = await startSandbox();
});
after(async () => {
  await sandbox.close();
});

for (const server of SERVERS) {
  describe(`slow clients: ${server.name}`, () => {
    let shop: ContractShop | undefined;
    let clients: SlowClients | undefined;
    after(async () => {
      clients?.close();
      await shop?.close();
    });

    test('200 idle and 50 slow-body connections: links still answer (within seconds, not minutes of 503s); the slow ones get 408 and are closed', async () => {
      shop = await startShop(server, ENGINES[0]!, sandbox, { bodyReadTimeoutMs: BODY_DEADLINE_MS });
      const warm = await shop.createLink();
      assert.equal(warm.status, 201, warm.text);
      const port = Number(new URL(shop.baseUrl).port);
      clients = await openSlowClients({ port, idle: 200, slow: 50, slowRequest: 'POST /pay/notify HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n' });
      for (let round = 0; round < 3; round++) {
        const { ms, value } = await timed(() => shop!.createLink());
        assert.equal(value.status, 201, value.text);
        assert.ok(ms < ANSWER_BOUND_MS, `link ${round} took ${Math.round(ms)} ms`);
      }
      const script = await timed(() => shop!.request('/pay-button.js'));
      assert.equal(script.value.status, 200);
      assert.ok(script.ms < ANSWER_BOUND_MS, `the script took ${Math.round(script.ms)} ms`);
      await clients.untilSlowClosed(BODY_DEADLINE_MS + 10_000);
      for (const client of clients.slow) {
        assert.match(client.received(), /^HTTP\/1\.1 408 /, client.received().slice(0, 120));
        assert.match(client.received(), /did not arrive within 3 s/);
      }
      const later = await shop.createLink();
      assert.equal(later.status, 201, later.text);
    });
  });
}
