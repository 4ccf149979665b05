/**
 * The asking about a `<pay-button>` attempt's order (see `OrderWatch`, which holds what is known of
 * it): after the payment page was left, ask until the outcome is known and say it, then watch an
 * order that may still be paid until it ends; and what a pending order asks of the customer. Part
 * of the attempt's chunk (`attempt-io.ts`), not of the script-tag file itself.
 */
import { getOrder, toPayError, type Order } from '../../internal/api.ts';
import type { Locale, MessageKey } from '../../internal/i18n.ts';
import { outcome, outcomeWords } from '../../internal/order-outcome.ts';
import type { Via } from '../../internal/outcome.ts';
import { pollOrder } from '../../internal/poll.ts';
import type { PayCancelDetail } from '../../events.ts';
import type { OrderWatch } from './order-watch.ts';

/**
 * One status request for the order, remembering what it says. `chosen` ends only when the
 * plug-in checked with the gateway, for this answer, that no method is chosen (`confirmed:
 * true`): never picked, or released by "Choose another method"; either way nothing can be paid
 * without the payment page, and the customer is told it was not started (and can pay).
 */
async function get(watch: OrderWatch, signal: AbortSignal): Promise<Order> {
  const order = await getOrder(watch.host.endpoint, watch.orderNum!, watch.token!, signal);
  watch.chosen = !!order.method || order.confirmed === false || (watch.chosen && order.confirmed !== true);
  return (watch.last = order);
}

/** Asks (see `pollOrder`) until the order is no longer pending or `more` says stop, waiting up to `cap` between requests. */
function poll(watch: OrderWatch, signal: AbortSignal, more: (n: number, answer?: Order) => boolean, cap: number): Promise<Order> {
  return pollOrder(() => get(watch, signal), more, watch.host.pollInterval, cap, signal);
}

/**
 * While the payment page is `open`, asks about every second: an order paid, expired or failed
 * there shows in the shop at once (`ended`; the popup is closed: the shop is where the customer
 * goes on), and a method chosen there is remembered (`chosen`). The return page's message stays
 * the fast path.
 */
export function watchOpen(watch: OrderWatch, signal: AbortSignal, open: () => boolean, ended: () => void): void {
  poll(watch, signal, open, watch.host.pollInterval * 1.5).then(
    (order) => open() && order.status !== 'pending' && ended(),
    () => {},
  );
}

/**
 * Asks the plug-in for the outcome (polling for a while after a return, twice otherwise) and
 * says it; then, while the order may still be paid (pending, with or without a method), watches
 * it: at most every 15 s, for an hour at most, while the element is on the page, and says how it
 * ended (`pay-success`, `pay-failure`) if it does, whatever was said before: an order is never
 * left shown as pending or cancelled once paid. An error while watching says nothing; a shop too
 * busy (or away) to answer after a method was chosen is "pending", watched on the same way. A load
 * that finds an order nobody chose a method for (`found`) says nothing (`cancel` is for a close).
 */
export async function check(watch: OrderWatch, work: AbortController, via: Via, cancel: PayCancelDetail): Promise<void> {
  const deadline = Date.now() + watch.host.pollTimeout;
  const words = (order: Order) => outcomeWords(order, watch.chosen);
  let watching: unknown;
  let said: string | undefined;
  for (;;) {
    let answer: Order;
    try {
      answer = await poll(
        watch,
        work.signal,
        // While watching, a pending order whose words change (confirmed at last) is said again;
        // an error (the shop too busy to answer) is asked again, for as long as the watch lasts.
        // After a close with no method known yet, one answer more: the plug-in asks the gateway
        // about such an order at most once a second, and the poll while the popup was open may
        // just have used that turn, so a method picked at the last moment shows one poll later.
        // A return with no method known ("back to the shop without paying") is answered as
        // fast: the plug-in's return page asked the gateway before the customer left it, so a
        // method chosen there is known; the long poll is for a payment whose news is late.
        (n, answer) => (watching ? Date.now() < deadline + 36e5 && (!answer || words(answer) === said) : via === 'return' && watch.chosen ? Date.now() < deadline : n < (via === 'closed' && !watch.last?.method ? 3 : 2)),
        watching ? 15e3 : watch.host.pollInterval * 8,
      );
    } catch (err) {
      if (work.signal.aborted || watching) return;
      const error = toPayError(err);
      if (!watch.chosen || !error.retryable) return void watch.end(via, 'error', 'pay-error', error);
      // A method was chosen and nobody can say more now (the shop is busy or away): the payment
      // may still arrive, so the order is pending and watched on, like any pending order, and the
      // first answer that comes is said. (Nor can anybody say the amount: this detail has no
      // `payMoney`, though `Order` promises one.)
      said = undefined;
      const next = watch.end(via, 'pending', 'pay-pending', { orderNum: watch.orderNum, status: 'pending', method: null, confirmed: false } as Order, 'pending');
      if (!next) return;
      watching = work = next;
      continue;
    }
    const [state, event] = outcome(answer, watch.chosen);
    const open = answer.status === 'pending';
    // Told "paid with another order", the customer hears of this one again only if it is paid too.
    if (work.signal.aborted || (watching && open && words(answer) === said) || (said === 'paidWith' && answer.status !== 'paid')) return;
    const say = !!watching || state !== 'cancelled' || via !== 'found' || !!answer.paidWith;
    said = words(answer);
    // Paid by another order of the cart (another tab's number or link): nothing to pay here. Still
    // watched (`pending`): paid anyway, it says so, with the refund to expect.
    const cancelled: PayCancelDetail = answer.paidWith ? { orderNum: answer.orderNum, reason: 'paid-elsewhere', paidWith: answer.paidWith } : cancel;
    const next = watch.end(via, say ? state : 'idle', say ? event : undefined, state === 'cancelled' ? cancelled : answer, answer.status);
    if (!next) return;
    watching = work = next;
  }
}

/**
 * What to do next for a pending order with a deadline: the transfer (a VA) or the amount, and
 * the time, after "awaiting your payment" (or "not confirmed yet" with no method known). For an
 * order of a cart another order paid: not to pay this one; paid anyway: the refund to expect.
 */
export function note(order: Order | undefined, locale: Locale, text: (key: MessageKey) => string): string | undefined {
  const other = order?.paidWith ?? order?.duplicateOf;
  if (other) return text(order!.paidWith ? 'paidWith' : 'paidTwice').replace('{order}', other);
  if (!order?.expiresAt) return undefined;
  const time = new Date(order.expiresAt).toLocaleString(locale == 'id' ? 'id-ID' : 'en-GB', { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
  // What the gateway accepts: the amount and the chosen method's fee (a VA refuses any other sum).
  const total = +order.payMoney + +(order.payFee ?? 0);
  // `bank` and `code` are said only for a VA (`transferTo`), which has both.
  const values: Record<string, string | undefined> = { total: `Rp ${total.toLocaleString('id')}`, time, bank: order.method?.slice(3), code: order.vaNumber };
  const va = order.method?.startsWith('VA_') && order.vaNumber;
  return `${text(order.method ? 'pending' : 'unconfirmed')} ${text(va ? 'transferTo' : 'payBy').replace(/\{(\w+)\}/g, (_, k: string) => values[k]!)}`;
}
