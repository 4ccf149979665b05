/** Durability: a gateway restarted on the same store keeps every order and its state. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ENGINES, freshStore } from './support/engines.ts';
import { startHarness } from './support/harness.ts';

for (const engine of ENGINES) {
  test(`a restart on the same ${engine} store keeps every order`, async () => {
    const store = freshStore(engine);
    const first = await startHarness(engine, {}, store);
    const created = [];
    for (let i = 0; i < 6; i++) created.push((await first.client.createVa({ method: 'VA_BNC' })).body);
    const link = (await first.client.createLink()).body;
    await first.gateway.pay(created[0]!.platOrderNum!);
    await first.gateway.fail(created[1]!.platOrderNum!);
    await first.gateway.close();

    const second = await startHarness(engine, {}, store);
    try {
      for (const [index, body] of created.entries()) {
        const answer = await second.client.query({ orderNum: body.orderNum! });
        assert.equal(answer.body.platRespCode, 'SUCCESS');
        assert.equal(answer.body.platOrderNum, body.platOrderNum);
        assert.equal(answer.body.vaNumber, body.vaNumber);
        assert.equal(answer.body.status, index === 0 ? 'PAID' : index === 1 ? 'FAILED' : 'PENDING');
      }
      assert.equal((await second.client.query({ platOrderNum: link.platOrderNum! })).body.url, `${second.url}/pay?orderNum=${link.platOrderNum}`);
      const again = await second.client.createVa({ orderNum: created[2]!.orderNum! });
      assert.equal(again.body.platRespCode, 'FAIL', 'the orderNum is still taken after the restart');
      assert.equal((await second.gateway.deliveries.list({ platOrderNum: created[0]!.platOrderNum! })).length, 1);
    } finally {
      await second.stop();
    }
  });
}
