/**
 * The order a browser may read: its number in the path, its status token in the
 * `PayButton-Status-Token` header (never the URL: proxies and access logs keep URLs). A missing,
 * malformed or wrong token and an unknown order are the same 404, after the same work (a lookup and
 * a constant-time comparison), so nothing can be enumerated.
 */
import { orderNumField } from '@paybutton/protocol';
import type { Request } from 'express';
import type { Context } from '../context.ts';
import { PayButtonError } from '../errors.ts';
import { STATUS_TOKEN_HEADER, STATUS_TOKEN_PATTERN, tokensEqual } from '../ids.ts';
import type { Order } from '../store/orders.ts';

/** Compared against when the order does not exist, so both paths do the same work. */
const DUMMY_TOKEN = 'x'.repeat(43);

export const orderNotFound = (): PayButtonError => new PayButtonError('not_found', 'No order with this number and token.');

export async function orderForToken(context: Context, req: Request): Promise<Order> {
  const token = req.get(STATUS_TOKEN_HEADER);
  const orderNum = orderNumField.safeParse(req.params.orderNum);
  if (!orderNum.success || token === undefined || !STATUS_TOKEN_PATTERN.test(token)) throw orderNotFound();
  await context.ready();
  const order = await context.store.orders.get(orderNum.data);
  const matches = tokensEqual(token, order?.statusToken ?? DUMMY_TOKEN);
  if (!order || !matches) throw orderNotFound();
  return order;
}
