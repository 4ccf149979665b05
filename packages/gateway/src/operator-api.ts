/**
 * The operator's calls of a gateway (merchants, orders, personal data, the delivery log), each
 * once the start finished: the part of `Gateway` that is neither HTTP nor its lifecycle.
 */
import type { DomainContext } from './domain/context.ts';
import { registerMerchant, updateMerchantNotify } from './domain/merchants.ts';
import { readOrder, sweepExpiredOrders } from './domain/transitions.ts';
import type { Gateway } from './gateway-types.ts';
import type { Deliveries } from './notify/deliveries.ts';
import type { NotificationWorker } from './notify/worker.ts';
import { GatewayConfigError } from './options.ts';
import { erasePersonalData, exportPersonalData } from './privacy/personal-data.ts';
import { parsePersonQuery } from './privacy/query.ts';
import type { Retention } from './privacy/retention.ts';
import { findMerchant, listMerchants } from './store/merchants.ts';
import { findOrderByOrderNum } from './store/orders.ts';

export type OperatorApi = Pick<
  Gateway,
  'registerMerchant' | 'updateMerchant' | 'listMerchants' | 'findMerchant' | 'findOrder' | 'findOrderByOrderNum' | 'sweepExpired' | 'personalData' | 'deliveries'
>;

/** A query of `personalData`, checked; a bad one names its field. */
function personQuery(input: Readonly<Record<string, unknown>>) {
  const parsed = parsePersonQuery(input);
  if (!parsed.ok) throw new GatewayConfigError(`personalData: ${parsed.field}: ${parsed.message}`);
  return parsed.query;
}

export function operatorApi(parts: {
  readonly domain: DomainContext;
  readonly ready: Promise<void>;
  readonly deliveries: Deliveries;
  readonly retention: Retention | undefined;
  /** The worker of this process, once started (none with `notifications.worker: false`). */
  readonly worker: () => NotificationWorker | undefined;
}): OperatorApi {
  const { domain, ready, deliveries, retention, worker } = parts;
  const { database, clock } = domain;
  const afterReady = async <T>(action: () => Promise<T>): Promise<T> => {
    await ready;
    return action();
  };
  return {
    registerMerchant: (merchant) => afterReady(() => registerMerchant(database.db, merchant, clock.now())),
    updateMerchant: (merchantCode, changes) =>
      afterReady(async () => {
        await updateMerchantNotify(database.db, merchantCode, changes.notify, clock.now());
        return (await findMerchant(database.db, merchantCode))!;
      }),
    listMerchants: () => afterReady(() => listMerchants(database.db)),
    findMerchant: (merchantCode) => afterReady(() => findMerchant(database.db, merchantCode)),
    findOrder: (platOrderNum) => afterReady(() => readOrder(domain, platOrderNum)),
    findOrderByOrderNum: (merchantCode, orderNum) =>
      afterReady(async () => {
        const order = await findOrderByOrderNum(database.db, merchantCode, orderNum);
        return order ? readOrder(domain, order.platOrderNum) : undefined;
      }),
    sweepExpired: () => afterReady(() => sweepExpiredOrders(domain)),
    personalData: {
      export: (query) => afterReady(() => exportPersonalData(database, personQuery(query))),
      erase: (query) => afterReady(() => erasePersonalData(database, personQuery(query), clock.now())),
      applyRetention: () => afterReady(async () => (retention ? retention.run() : 0)),
    },
    deliveries: {
      list: (filter) => afterReady(() => deliveries.list(filter)),
      get: (id) => afterReady(() => deliveries.get(id)),
      resend: (id) => afterReady(() => deliveries.resend(id)),
      runOnce: () => afterReady(() => worker()?.runOnce() ?? Promise.resolve(0)),
    },
  };
}
