/** The live order list: the shop server pushes a change whenever an order moves. */
import { formatRupiah } from '@tombolbayar/protocol/formats';
import { METHODS, resolveMethod } from '@tombolbayar/protocol/methods';

export interface ShopOrder {
  orderNum: string;
  items: string;
  payMoney: number;
  method: string | null;
  status: 'pending' | 'paid' | 'expired' | 'failed';
}

/** Column names, repeated in each cell for the narrow layout, where rows become cards. */
const LABELS = ['Order', 'Items', 'Amount', 'Method', 'Status'];

function row(order: ShopOrder): HTMLTableRowElement {
  const tr = document.createElement('tr');
  tr.dataset.orderNum = order.orderNum;
  // The method's name as the protocol's method table gives it, never the raw code.
  const code = order.method ? resolveMethod(order.method) : undefined;
  const method = code ? METHODS[code].displayName : (order.method ?? '—');
  const cells = [order.orderNum, order.items, formatRupiah(order.payMoney), method, order.status];
  cells.forEach((text, index) => {
    const td = document.createElement('td');
    td.textContent = text;
    td.dataset.label = LABELS[index]!;
    if (index === cells.length - 1) {
      td.className = 'status';
      td.dataset.status = order.status;
    }
    tr.append(td);
  });
  return tr;
}

export function watchOrders(body: HTMLTableSectionElement): void {
  const refresh = async () => {
    const response = await fetch('/api/orders', { cache: 'no-store' });
    if (!response.ok) return;
    const orders = (await response.json()) as ShopOrder[];
    body.replaceChildren(...orders.map(row));
  };
  void refresh();
  const events = new EventSource('/api/orders/stream');
  events.addEventListener('message', () => void refresh());
}
