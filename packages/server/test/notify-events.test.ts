/**
 * Every `/notify` answer other than `200 SUCCESS` emits one `notification.rejected` naming why,
 * including the ones that are not refusals: an `onPaid` still running (`fulfilment_busy`, 503),
 * one that threw (`fulfilment_failed`, 500, in `notify.test.ts`), a store that failed
 * (`internal_error`, 500). The gateway resends each; the merchant sees each.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { countingStore, ENGINES } from './support/engines.ts';
import { startHarness, waitFor, type Harness } from './support/harness.ts';
import { asPlatform, createOrder, notify, paidAtGateway, paidFields, statusOf } from './support/notifications.ts';

let shop: Harness | undefined;
afterEach(async () => {
  await shop?.close();
  shop = undefined;
});

describe('every non-200 is named in an event', () => {
  test('onPaid still running: 503 with an event naming it; acknowledged once it returned', async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    shop = await startHarness({ options: { statusRefreshMs: false, onPaid: async () => { started += 1; await released; } } });
    try {
      const order = await createOrder(shop);
      const genuine = await paidAtGateway(shop, order);
      const first = notify(shop, genuine);
      await waitFor(() => started === 1, 'onPaid started');
      const second = await notify(shop, genuine);
      assert.equal(second.status, 503);
      assert.match(second.text, /^RETRY: onPaid is running/);
      assert.deepEqual(shop.eventsNamed('notification.rejected').map((event) => [event.reason, event.httpStatus, event.orderNum]), [['fulfilment_busy', 503, order.orderNum]]);
      release();
      assert.equal((await first).text, 'SUCCESS');
      assert.equal(started, 1);
    } finally {
      release();
    }
  });
});

for (const engine of ENGINES) {
  test(`the store failing (${engine.name}): 500 RETRY, notification.rejected internal_error, and the error as a warning`, async () => {
    const store = await countingStore(engine);
    shop = await startHarness({ database: store.option, options: { statusRefreshMs: false } });
    try {
      const order = await createOrder(shop);
      store.failing = true;
      const answer = await notify(shop, asPlatform(paidFields(order)));
      store.failing = false;
      assert.equal(answer.status, 500);
      assert.match(answer.text, /^RETRY: /);
      assert.doesNotMatch(answer.text, /database/, 'nothing of our side in the answer');
      assert.deepEqual(shop.eventsNamed('notification.rejected').map((event) => [event.reason, event.httpStatus]), [['internal_error', 500]]);
      assert.ok(shop.eventsNamed('warning').some((warning) => warning.code === 'internal' && /went away/.test(String((warning.error as Error).message))));
      assert.equal(await statusOf(shop, order), 'pending');
    } finally {
      store.failing = false;
      await shop.close();
      shop = undefined;
      await store.cleanup();
    }
  });
}
