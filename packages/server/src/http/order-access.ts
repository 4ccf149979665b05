/**
 * The order a browser may read: its number in the path, its status token in the
 * `Tombolbayar-Status-Token` header (or, for one version, the earlier `PayButton-Status-Token`) (never the URL: proxies and access logs keep URLs). A missing,
 * malformed or wrong token and an unknown order are the same 404, after the same work (a lookup and
 * a constant-time comparison), so nothing can be enumerated.
 */
import { orderNumField } from '@tombolbayar/protocol';
import { PayButtonError } from '../errors.ts';
import { EARLIER_STATUS_TOKEN_HEADER, STATUS_TOKEN_HEADER, STATUS_TOKEN_PATTERN, tokensEqual } from '../ids.ts';
import type { Order, OrderStore } from '../store/orders.ts';
import type { CoreRequest } from './context.ts';

/** What reading an order by its secret needs: the store, once it is ready. */
export interface OrderReader {
  readonly ready: () => Promise<void>;
  readonly orders: Pick<OrderStore, 'get'>;
}

/** Compared against when the order does not exist, so both paths do the same work. */
const DUMMY_TOKEN = 'x'.repeat(43);

export const orderNotFound = (): PayButtonError => new PayButtonError('not_found', 'No order with this number and token.');

/**
 * The order, if the caller holds its secret (`secretMatches` of its status token): an unknown order
 * and a wrong secret give the same `undefined` after the same work (a lookup and a constant-time
 * comparison, against a dummy token when there is no order).
 */
export async function orderWithSecret(reader: OrderReader, orderNum: string, secretMatches: (statusToken: string) => boolean): Promise<Order | undefined> {
  await reader.ready();
  const order = await reader.orders.get(orderNum);
  const matches = secretMatches(order?.statusToken ?? DUMMY_TOKEN);
  return order && matches ? order : undefined;
}

export async function orderForToken(reader: OrderReader, request: CoreRequest, orderNumParam: string | undefined): Promise<Order> {
  const token = request.headers.get(STATUS_TOKEN_HEADER) ?? request.headers.get(EARLIER_STATUS_TOKEN_HEADER);
  const orderNum = orderNumField.safeParse(orderNumParam);
  if (!orderNum.success || token === null || !STATUS_TOKEN_PATTERN.test(token)) throw orderNotFound();
  const order = await orderWithSecret(reader, orderNum.data, (statusToken) => tokensEqual(token, statusToken));
  if (!order) throw orderNotFound();
  return order;
}
