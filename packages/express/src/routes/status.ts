/**
 * `GET /orders/:orderNum?token=`: what the element asks after the customer returns, never
 * trusting query parameters. A missing, malformed or wrong token and an unknown order all get the
 * same 404 (nothing to enumerate); the token is compared in constant time; `no-store` everywhere.
 *
 * While an order is pending, a poll may ask the gateway itself (at most once per
 * `statusRefreshMs` per order, across processes), so a customer is not left waiting on a late
 * notification. The gateway's signed answer goes through the same compare-and-set as a
 * notification, so a poll racing a notification still fires `onPaid` exactly once.
 */
import { orderNumField, parseDateTime } from '@paybutton/protocol';
import type { RequestHandler } from 'express';
import { inBackground, type Context } from '../context.ts';
import { PayButtonError } from '../errors.ts';
import { STATUS_TOKEN_PATTERN, tokensEqual } from '../ids.ts';
import { applyGatewayState, fulfil } from '../orders/settle.ts';
import type { Order } from '../store/orders.ts';

/** The status body; `creating` is reported as `pending` (the element cannot tell them apart anyway). */
export interface OrderStatusBody {
  readonly orderNum: string;
  readonly status: 'pending' | 'paid' | 'expired' | 'failed';
  readonly payMoney: string;
  readonly method: string | null;
  readonly vaNumber?: string;
  /** ISO 8601. */
  readonly paidAt?: string;
}

export function toStatusBody(order: Order): OrderStatusBody {
  return {
    orderNum: order.orderNum,
    status: order.status === 'creating' ? 'pending' : order.status,
    payMoney: order.payMoney,
    method: order.method,
    ...(order.vaNumber ? { vaNumber: order.vaNumber } : {}),
    ...(order.paidAt ? { paidAt: order.paidAt.toISOString() } : {}),
  };
}

const NOT_FOUND = () => new PayButtonError('not_found', 'No order with this number and token.');
/** Compared against when the order does not exist, so both paths do the same work. */
const DUMMY_TOKEN = 'x'.repeat(43);

async function refresh(context: Context, order: Order): Promise<Order> {
  const interval = context.options.statusRefreshMs;
  if (interval === false || order.status !== 'pending') return order;
  const now = context.now();
  if (!(await context.store.orders.claimCheck(order.orderNum, now, new Date(now.getTime() - interval)))) return order;
  const answer = await context.client.query(order.orderNum, 1, Math.min(context.options.timeoutMs, 5_000));
  if (!answer.ok || answer.value.payMoney !== order.payMoney) return order;
  const found = answer.value;
  const { order: after } = await applyGatewayState(
    context,
    order,
    {
      status: found.status,
      facts: {
        platOrderNum: found.platOrderNum,
        vaNumber: found.vaNumber,
        payFee: found.payFee,
        method: found.method,
        paidAt: found.paidTime ? parseDateTime(found.paidTime) : undefined,
      },
    },
    'query',
  );
  // The customer is waiting for the answer, not for onPaid: run it after responding.
  if (after.status === 'paid' && !after.fulfilledAt) inBackground(context, () => fulfil(context, after.orderNum, 'query'));
  return after;
}

export function statusHandler(context: Context): RequestHandler {
  return async (req, res) => {
    res.set('Cache-Control', 'no-store');
    const rawToken = req.query.token;
    if (rawToken !== undefined && typeof rawToken !== 'string') {
      throw new PayButtonError('invalid_request', 'token: must be given once, as a string', { issues: [{ field: 'token', message: 'must be given once, as a string' }] });
    }
    const orderNum = orderNumField.safeParse(req.params.orderNum);
    if (!orderNum.success || rawToken === undefined || !STATUS_TOKEN_PATTERN.test(rawToken)) throw NOT_FOUND();
    await context.ready();
    const order = await context.store.orders.get(orderNum.data);
    const matches = tokensEqual(rawToken, order?.statusToken ?? DUMMY_TOKEN);
    if (!order || !matches) throw NOT_FOUND();
    let current = order;
    try {
      current = await refresh(context, order);
    } catch (error) {
      context.events.emit('warning', { code: 'status_refresh_failed', message: `could not refresh order ${order.orderNum} from the gateway`, error });
    }
    res.json(toStatusBody(current));
  };
}
