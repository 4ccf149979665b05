/**
 * `GET /orders/:orderNum/qr`: the QRIS code of an order, drawn for `<pay-va>`, which cannot carry a
 * QR encoder within the script-tag budget (a lazy encoder would be ~8 kB gzip more; this answer
 * is ~1 kB). Guarded like the status route: the order's status token in the
 * `Tombolbayar-Status-Token` header (never in a URL), and the same 404 for an unknown order, a wrong
 * token and an order that has no QR payload.
 *
 * The answer is data, not markup: `{ orderNum, size, path }`, where `path` is SVG path data
 * (`M`, `h`, `v`, `z` and digits only) of the dark modules on a `size` x `size` grid, quiet zone
 * included. The element draws it in its own `<svg>`, so no server HTML or image URL reaches the
 * page and a merchant's CSP needs nothing (`img-src` included).
 */
import { METHODS, type MethodCode } from '@tombolbayar/protocol';
import QRCode from 'qrcode';
import { PayButtonError } from '../errors.ts';
import type { RouteHandler } from '../http/context.ts';
import { orderForToken, type OrderReader } from '../http/order-access.ts';
import { jsonAnswer } from '../http/respond.ts';

/** Error correction M, as QRIS acquirers print them, and the standard's 4-module quiet zone. */
const QUIET_ZONE = 4;

/** The order is readable, but has no QRIS payload to draw. */
const NO_QR = () => new PayButtonError('not_found', 'No QR code for this order number and token.');

export interface QrBody {
  readonly orderNum: string;
  /** Modules per side, quiet zone included. */
  readonly size: number;
  readonly path: string;
}

/** The QR code of `payload` as SVG path data: one `M x y h n v1 h-n z` rectangle per run of dark modules in a row. */
export function qrPath(payload: string): { size: number; path: string } {
  const { modules } = QRCode.create(payload, { errorCorrectionLevel: 'M' });
  const n = modules.size;
  let path = '';
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      if (!modules.get(y, x)) continue;
      const start = x;
      while (x + 1 < n && modules.get(y, x + 1)) x++;
      const run = x - start + 1;
      path += `M${start + QUIET_ZONE} ${y + QUIET_ZONE}h${run}v1h-${run}z`;
    }
  }
  return { size: n + 2 * QUIET_ZONE, path };
}

export function qrHandler(reader: OrderReader): RouteHandler {
  return async (request, context) => {
    const order = await orderForToken(reader, request, context.params.orderNum);
    const method = order.method as MethodCode | null;
    if (!order.vaNumber || !method || METHODS[method]?.kind !== 'qr') throw NO_QR();
    const body: QrBody = { orderNum: order.orderNum, ...qrPath(order.vaNumber) };
    return jsonAnswer(200, body, { 'Cache-Control': 'no-store' });
  };
}
