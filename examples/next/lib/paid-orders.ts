/**
 * What the shop did for each paid order, as a stand-in for its own database: `onPaid` adds a line
 * per run, `/api/paid` shows them. Kept on `globalThis` so that `next dev`'s reloads of this module
 * share one list.
 */
export interface PaidOrder {
  readonly orderNum: string;
  readonly payMoney: string;
  readonly method: string | null;
  /** How many times `onPaid` ran for this order: 1, unless a run threw and was tried again. */
  readonly runs: number;
}

const shared = globalThis as typeof globalThis & { tombolbayarPaidOrders?: Map<string, PaidOrder> };
const paid = (shared.tombolbayarPaidOrders ??= new Map());

export function recordPaid(order: Omit<PaidOrder, 'runs'>): void {
  const runs = (paid.get(order.orderNum)?.runs ?? 0) + 1;
  paid.set(order.orderNum, { ...order, runs });
}

export function paidOrders(): PaidOrder[] {
  return [...paid.values()];
}
