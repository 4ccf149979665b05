/**
 * The merchant sees the public `Order` view, never the stored row: the status token, the request
 * fingerprint, the idempotency key and the lease columns stay inside the router.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { toPublicOrder } from '../src/public-order.ts';
import type { Order as StoredOrder } from '../src/store/orders.ts';
import { startHarness, waitFor, type Harness } from './support/harness.ts';

/** Every field the public view promises, in the order the mapping writes them. */
const PUBLIC_FIELDS = [
  'orderNum', 'kind', 'status', 'payMoney', 'payFee', 'method', 'item', 'productDetail', 'name', 'email', 'phone', 'metadata',
  'reference', 'duplicateOf', 'platOrderNum', 'url', 'vaNumber', 'createdAt', 'expiresAt', 'paidAt', 'fulfilledAt', 'fulfilAttempts', 'fulfilError',
  'errorCode', 'errorMessage', 'gatewayCode',
];
/** Bookkeeping of the router; the first two are secrets of the customer's browser session. */
const INTERNAL_FIELDS = ['statusToken', 'requestHash', 'idempotencyKey', 'createLeaseUntil', 'checkedAt', 'returnTo', 'expiryPeriod', 'purchaseKey'];

const at = (iso: string) => new Date(iso);
const stored: StoredOrder = {
  orderNum: 'PB0001', kind: 'link', status: 'paid', payMoney: '150000', productDetail: 'Kopi Gayo 250g', name: 'Budi Santoso',
  email: 'budi@example.com', phone: '081234567890', method: 'VA_BCA', item: 'kopi', metadata: { cart: 'C-1' },
  reference: 'C-1', duplicateOf: null, purchaseKey: 'link|-|150000|C-1-secret-key', platOrderNum: 'P-1', url: 'https://pay.example/p/1', vaNumber: '39010000001', payFee: '4000', expiryPeriod: 60,
  returnTo: 'https://shop.example/checkout', createdAt: at('2026-01-31T12:00:00.000Z'), expiresAt: at('2026-01-31T13:00:00.000Z'),
  paidAt: at('2026-01-31T12:10:00.000Z'), fulfilledAt: null, fulfilAttempts: 1, fulfilError: 'Error: backend down',
  errorCode: null, errorMessage: null, gatewayCode: null, idempotencyKey: 'key-secret-idem', requestHash: 'hash-secret-request',
  statusToken: 'token-secret-status-0123456789abcdefghijklmnop', createLeaseUntil: at('2026-01-31T12:00:30.000Z'), checkedAt: at('2026-01-31T12:05:00.000Z'),
};

describe('toPublicOrder', () => {
  test('copies exactly the public fields, with their values', () => {
    const view = toPublicOrder(stored);
    assert.deepEqual(Object.keys(view), PUBLIC_FIELDS);
    for (const field of PUBLIC_FIELDS) assert.deepEqual(view[field as keyof typeof view], stored[field as keyof StoredOrder], field);
  });

  test('leaves out every internal field and its value, even when serialised', () => {
    const view = toPublicOrder(stored);
    const json = JSON.stringify(view);
    for (const field of INTERNAL_FIELDS) {
      assert.ok(!(field in view), `${field} is not in the view`);
      const value = stored[field as keyof StoredOrder];
      if (typeof value === 'string') assert.ok(!json.includes(value), `the value of ${field} is not in the JSON`);
    }
  });

  test('a new object each time: changing it does not change the next one', () => {
    const first = toPublicOrder(stored) as { status: string };
    first.status = 'failed';
    assert.equal(toPublicOrder(stored).status, 'paid');
  });
});

describe('what the merchant code is given', () => {
  let shop: Harness;
  before(async () => {
    shop = await startHarness();
  });
  after(async () => {
    await shop.close();
  });

  test('onPaid, getOrder() and createPaymentLink().order carry the public view only', async () => {
    const link = await shop.router.createPaymentLink({
      quote: { payMoney: 150_000, productDetail: 'Kopi Gayo 250g', name: 'Budi Santoso', email: 'budi@example.com', phone: '081234567890', metadata: { cart: 'C-9' } },
    });
    assert.deepEqual(Object.keys(link.order), PUBLIC_FIELDS);
    assert.deepEqual([link.order.status, link.order.metadata], ['pending', { cart: 'C-9' }]);

    await shop.payAtGateway(link.orderNum, 'VA_BCA');
    const paid = await waitFor(() => shop.fulfilled.find((order) => order.orderNum === link.orderNum), 'onPaid');
    assert.deepEqual(Object.keys(paid), PUBLIC_FIELDS);
    assert.deepEqual([paid.status, paid.method, paid.payMoney], ['paid', 'VA_BCA', '150000']);
    assert.ok(paid.paidAt instanceof Date && paid.platOrderNum);

    const fetched = (await shop.router.getOrder(link.orderNum))!;
    assert.deepEqual(Object.keys(fetched), PUBLIC_FIELDS);
    assert.ok(fetched.fulfilledAt instanceof Date);
    const row = (await shop.stored(link.orderNum))!;
    assert.ok(!JSON.stringify([link.order, paid, fetched]).includes(row.statusToken), 'the status token never reaches merchant code');
  });
});
