/**
 * `GET /orders/:orderNum/qr`: the QRIS code `<pay-va>` draws. Guarded by the status token in the
 * `Tombolbayar-Status-Token` header only; the path it answers draws exactly the QR code of the
 * order's payload (the e2e suite scans it in Chromium).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hasValidCrc } from '@tombolbayar/gateway/internal';
import QRCode from 'qrcode';
import { qrPath } from '../src/routes/qr.ts';
import { newKey, startHarness, type Harness } from './support/harness.ts';

let shop: Harness;
before(async () => {
  shop = await startHarness();
});
after(async () => {
  await shop.close();
});

/** The dark modules the path draws, as rows of 0/1 (the path's rectangles are one module high). */
function rasterize(size: number, path: string): string[] {
  const rows = Array.from({ length: size }, () => Array<number>(size).fill(0));
  for (const [, x, y, run] of path.matchAll(/M(\d+) (\d+)h(\d+)v1h-\3z/g)) {
    for (let i = 0; i < Number(run); i++) rows[Number(y)]![Number(x) + i] = 1;
  }
  return rows.map((row) => row.join(''));
}

async function qrisOrder(): Promise<{ orderNum: string; statusToken: string; vaNumber: string }> {
  const created = await shop.post('/va', { item: 'kopi', method: 'QRIS', idempotencyKey: newKey() });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

const qrOf = (orderNum: string, headers: Record<string, string> = {}) => shop.get(`/orders/${encodeURIComponent(orderNum)}/qr`, headers);

describe('GET /orders/:orderNum/qr', () => {
  test('answers the QR code of the order payload: the path draws every module of it, in a 4-module quiet zone', async () => {
    const order = await qrisOrder();
    assert.ok(hasValidCrc(order.vaNumber), 'the payload is a QRIS payload with a valid CRC');
    const answer = await qrOf(order.orderNum, { 'Tombolbayar-Status-Token': order.statusToken });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.headers.get('cache-control'), 'no-store');
    assert.deepEqual(Object.keys(answer.body).sort(), ['orderNum', 'path', 'size']);
    assert.equal(answer.body.orderNum, order.orderNum);
    assert.match(answer.body.path, /^[Mhvz0-9 -]+$/);
    const { modules } = QRCode.create(order.vaNumber, { errorCorrectionLevel: 'M' });
    assert.equal(answer.body.size, modules.size + 8);
    const expected = Array.from({ length: answer.body.size }, (_, y) =>
      Array.from({ length: answer.body.size }, (_, x) => {
        const [mx, my] = [x - 4, y - 4];
        return mx >= 0 && my >= 0 && mx < modules.size && my < modules.size && modules.get(my, mx) ? 1 : 0;
      }).join(''),
    );
    assert.deepEqual(rasterize(answer.body.size, answer.body.path), expected);
  });

  test('the token only in the header: no header, a wrong token, a ?token= and an unknown order all get the same 404', async () => {
    const order = await qrisOrder();
    const answers = [
      await qrOf(order.orderNum),
      await qrOf(order.orderNum, { 'Tombolbayar-Status-Token': `${order.statusToken.slice(0, -1)}${order.statusToken.endsWith('A') ? 'B' : 'A'}` }),
      await shop.get(`/orders/${order.orderNum}/qr?token=${order.statusToken}`),
      await qrOf('PB0000000000000000', { 'Tombolbayar-Status-Token': order.statusToken }),
    ];
    for (const answer of answers) {
      assert.equal(answer.status, 404);
      assert.equal(answer.body.error.code, 'not_found');
    }
  });

  test('an order that is not QRIS has no QR code (404), whatever its token', async () => {
    const created = await shop.post('/va', { item: 'kopi', method: 'VA_BCA', idempotencyKey: newKey() });
    const answer = await qrOf(created.body.orderNum, { 'Tombolbayar-Status-Token': created.body.statusToken });
    assert.equal(answer.status, 404);
  });

  test('qrPath draws one rectangle per run of dark modules', () => {
    const { size, path } = qrPath('A');
    assert.equal(size, 21 + 8);
    assert.match(path, /^(M\d+ \d+h\d+v1h-\d+z)+$/);
  });
});
