/** The live order list: the shop server pushes a change whenever an order moves. */
import { formatRupiah } from '@tombolbayar/protocol/formats';
import { METHODS, resolveMethod } from '@tombolbayar/protocol/methods';
import { t } from './words.ts';

export interface ShopOrder {
  orderNum: string;
  items: string;
  payMoney: number;
  /** The chosen method's fee, once known. */
  payFee: number | null;
  method: string | null;
  status: 'pending' | 'paid' | 'expired' | 'failed';
  /** A paid order whose cart another order had paid first: the customer paid twice, refund this one. */
  duplicateOf?: string;
}

/** Column names, repeated in each cell for the narrow layout, where rows become cards. */
const LABELS = ['colOrder', 'colItems', 'colAmount', 'colMethod', 'colStatus'] as const;

function row(order: ShopOrder): HTMLTableRowElement {
  const tr = document.createElement('tr');
  tr.dataset.orderNum = order.orderNum;
  // The method's name as the protocol's method table gives it, never the raw code.
  const code = order.method ? resolveMethod(order.method) : undefined;
  const method = code ? METHODS[code].displayName : (order.method ?? '—');
  // What the customer pays: the amount and, once a method fixed it, its fee (shown apart too).
  const total = formatRupiah(order.payMoney + (order.payFee ?? 0));
  const status = order.duplicateOf ? t('paidTwice', { order: order.duplicateOf }) : t(order.status);
  const cells = [order.orderNum, order.items, total, method, status];
  cells.forEach((text, index) => {
    const td = document.createElement('td');
    td.textContent = text;
    if (index === 2 && order.payFee) {
      const fee = document.createElement('small');
      fee.className = 'fee';
      fee.textContent = t('feeIncluded', { fee: formatRupiah(order.payFee) });
      td.append(document.createElement('br'), fee);
    }
    td.dataset.label = t(LABELS[index]!);
    if (index === 2) td.className = 'amount';
    if (index === cells.length - 1) {
      td.className = 'status';
      td.dataset.status = order.duplicateOf ? 'refund' : order.status;
    }
    tr.append(td);
  });
  return tr;
}

/** Shows the shop's orders, live; the returned function draws them again (in another language). */
export function watchOrders(body: HTMLTableSectionElement): () => void {
  const refresh = async () => {
    const response = await fetch('/api/orders', { cache: 'no-store' });
    if (!response.ok) return;
    const orders = (await response.json()) as ShopOrder[];
    body.replaceChildren(...orders.map(row));
  };
  void refresh();
  const events = new EventSource('/api/orders/stream');
  // Each (re)connection reads the list again: a change made before the stream was open (or while
  // it was down) has no message of its own.
  events.addEventListener('open', () => void refresh());
  events.addEventListener('message', () => void refresh());
  return () => void refresh();
}
