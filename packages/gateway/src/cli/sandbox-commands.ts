/**
 * The CLI's sandbox verbs, against a running sandbox gateway (stripe-cli's `trigger` and `listen`,
 * for this gateway): `pay|expire|fail NUMBER`, `deliveries [--follow]`, `resend ID`. NUMBER is
 * what a person has at hand: the shop's orderNum, the platOrderNum or the VA number / payment code.
 */
import type { Output } from './commands.ts';
import { SandboxCommandError, type SandboxClient } from './sandbox-client.ts';

export type SimulateAction = 'pay' | 'expire' | 'fail';

type OrderJson = { platOrderNum: string; orderNum: string; merchantCode: string; status: string; method: string | null; vaNumber: string | null };
type AttemptJson = { number: number; at: string; acknowledged: boolean; httpStatus: number | null; latencyMs: number; errorClass: string | null; bodyExcerpt: string };
type DeliveryJson = { id: string; platOrderNum: string; orderNum: string; event: string; url: string; state: string; attemptCount: number; createdAt: string; attempts: AttemptJson[] };

/** The one order NUMBER names, or a refusal that says why there is not exactly one. */
async function orderNamed(client: SandboxClient, number: string): Promise<OrderJson> {
  const { orders } = (await client.expect('GET', `/orders?number=${encodeURIComponent(number)}`)) as { orders: OrderJson[] };
  if (orders.length === 0) throw new SandboxCommandError(`no order has the number ${number} (tried orderNum, platOrderNum and VA number)`);
  if (orders.length > 1) {
    const which = orders.map((order) => `${order.platOrderNum} (${order.merchantCode})`).join(', ');
    throw new SandboxCommandError(`${number} names ${orders.length} orders of different merchants: ${which}; give the platOrderNum`);
  }
  return orders[0]!;
}

const describeOrder = (order: OrderJson) =>
  `${order.orderNum} (platOrderNum ${order.platOrderNum}, ${order.merchantCode}${order.method ? `, ${order.method}` : ''}${order.vaNumber ? ` ${order.vaNumber}` : ''})`;

export async function simulate(client: SandboxClient, action: SimulateAction, number: string, method: string | undefined, out: Output): Promise<void> {
  const order = await orderNamed(client, number);
  const body = action === 'pay' && method ? { method } : {};
  const answer = (await client.expect('POST', `/orders/${encodeURIComponent(order.platOrderNum)}/${action}`, body)) as { order: OrderJson };
  out(`Order ${describeOrder(answer.order)} is now ${answer.order.status}; its notification is queued.`);
  out(`See it: ${client.baseUrl}/sandbox/dashboard/orders/${encodeURIComponent(order.platOrderNum)}`);
}

const attemptLine = (delivery: DeliveryJson, attempt: AttemptJson) => {
  const answer = attempt.httpStatus === null ? `no answer (${attempt.errorClass ?? 'error'})` : `HTTP ${attempt.httpStatus}`;
  const body = attempt.bodyExcerpt ? ` ${JSON.stringify(attempt.bodyExcerpt.slice(0, 60))}` : '';
  return `${attempt.at}  ${delivery.id}  attempt ${attempt.number}: ${answer}, ${attempt.acknowledged ? 'acknowledged' : 'not acknowledged'}, ${attempt.latencyMs} ms${body}`;
};
const deliveryLine = (delivery: DeliveryJson) =>
  `${delivery.createdAt}  ${delivery.id}  ${delivery.event} ${delivery.orderNum} (${delivery.platOrderNum}) -> ${delivery.url}: ${delivery.state}, ${delivery.attemptCount} attempt(s)`;

async function fetchDeliveries(client: SandboxClient): Promise<DeliveryJson[]> {
  const { deliveries } = (await client.expect('GET', '/deliveries?limit=50')) as { deliveries: DeliveryJson[] };
  return deliveries.reverse(); // oldest first, as a log reads
}

/** The latest notifications with their attempts; with `follow`, then every new one as it happens, until `stop`. */
export async function deliveries(
  client: SandboxClient,
  options: { follow: boolean; intervalMs?: number; stop?: AbortSignal },
  out: Output,
): Promise<void> {
  const seen = new Map<string, { state: string; attempts: number }>();
  const show = (list: DeliveryJson[]) => {
    for (const delivery of list) {
      const before = seen.get(delivery.id);
      if (!before) out(deliveryLine(delivery));
      for (const attempt of delivery.attempts.slice(before?.attempts ?? 0).sort((a, b) => a.number - b.number)) out(attemptLine(delivery, attempt));
      if (before && before.state !== delivery.state) out(`${delivery.id}  is now ${delivery.state}`);
      seen.set(delivery.id, { state: delivery.state, attempts: delivery.attempts.length });
    }
  };
  const first = await fetchDeliveries(client);
  show(first);
  if (first.length === 0) out('No notifications yet.');
  if (!options.follow) return;
  out('Following new notifications and attempts (Ctrl-C to stop)...');
  const stop = options.stop;
  while (!stop?.aborted) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, options.intervalMs ?? 1000);
      stop?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
    if (stop?.aborted) break;
    show(await fetchDeliveries(client));
  }
}

export async function resend(client: SandboxClient, id: string, out: Output): Promise<void> {
  const answer = await client.call('POST', `/deliveries/${encodeURIComponent(id)}/resend`);
  if (answer.status === 404) throw new SandboxCommandError(`no notification has the id ${id} (list them: tombolbayar-gateway deliveries)`);
  if (answer.status !== 200) throw new SandboxCommandError(String(answer.body.platRespMessage));
  const delivery = answer.body.delivery as DeliveryJson;
  out(`Notification ${delivery.id} (${delivery.event} ${delivery.orderNum}) is queued again for ${delivery.url}.`);
}
