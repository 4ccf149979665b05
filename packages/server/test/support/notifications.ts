/**
 * Notifications as the tests send them: the fields of a "paid" notification for an order, signed
 * by a stranger or (to play a gateway that misbehaves, or an oracle) by the platform key, and the
 * gateway's own genuine notification held back for the test to deliver when it likes.
 */
import assert from 'node:assert/strict';
import { sign } from '@tombolbayar/protocol/node';
import { MERCHANT_CODE, platformKeys } from './keys.ts';
import type { Harness } from './harness.ts';

export interface Created {
  readonly orderNum: string;
  readonly statusToken: string;
  readonly platOrderNum: string;
}

export async function createOrder(harness: Harness, item = 'kopi'): Promise<Created> {
  const created = await harness.createLink({ item });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return { orderNum: created.body.orderNum, statusToken: created.body.statusToken, platOrderNum: await harness.platOrderNumOf(created.body.orderNum) };
}

/** The fields of a "paid" notification for the order, as the gateway would send them (unsigned). */
export function paidFields(order: Created, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    code: '00', msg: 'SUCCESS', status: 'SUCCESS', name: 'Budi Santoso', email: 'budi@example.com',
    orderNum: order.orderNum, platOrderNum: order.platOrderNum, payMoney: '150000', method: 'VA_BCA', payFee: '4000', vaNumber: '1234567890123',
    ...overrides,
  };
}

export const signedBy = (fields: Record<string, string>, privateKey: string) => ({ ...fields, platSign: sign(fields, privateKey) });
export const asPlatform = (fields: Record<string, string>) => signedBy(fields, platformKeys().privateKey);

export async function notify(harness: Harness, fields: Record<string, string>, type: 'form' | 'json' = 'form') {
  const response = await fetch(`${harness.mountUrl}/notify`, {
    method: 'POST',
    headers: { 'content-type': type === 'form' ? 'application/x-www-form-urlencoded' : 'application/json' },
    body: type === 'form' ? new URLSearchParams(fields).toString() : JSON.stringify(fields),
  });
  return { status: response.status, text: await response.text() };
}

export async function statusOf(harness: Harness, order: Created): Promise<string> {
  return (await harness.status(order.orderNum, order.statusToken)).body.status;
}

/**
 * Pay the order at the gateway with its own notifications held back, and return the notification
 * it would send (genuine: made by the gateway), for the test to deliver when and how it likes.
 */
export async function paidAtGateway(harness: Harness, order: Created): Promise<Record<string, string>> {
  const put = await fetch(`${harness.gatewayUrl}/sandbox/faults/${MERCHANT_CODE}`, {
    method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ notifications: { delayMs: 200_000 } }),
  });
  assert.equal(put.status, 200);
  await harness.payAtGateway(order.orderNum);
  const [delivery] = await harness.gateway.deliveries.list({ orderNum: order.orderNum });
  return delivery!.fields as Record<string, string>;
}
