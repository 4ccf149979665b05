/**
 * The plug-in's Prometheus metrics (the issue 34 contract: `tombolbayar_plugin_*`), registered in
 * the merchant's own prom-client `Registry` (`metrics: { registry }`) and kept by listening to the
 * plug-in's typed events, plus the request path's observer and the pool's state read at scrape.
 * Labels are low-cardinality words only: never an order number, e-mail, phone or URL.
 *
 * Two plug-ins in one registry share each metric (`registry.getSingleMetric`): both count into it,
 * and the pool gauge adds their pools up.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { PayButtonEventMap, PayButtonEventName, PayButtonEvents } from '../events.ts';
import type { PoolState } from '../store/database.ts';
import type { RequestObserver } from './requests.ts';

/** The contract's buckets, in seconds. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const PREFIX = 'tombolbayar_plugin_';

/** Where a plug-in's pool state is read from at scrape (`undefined`: a pool it cannot see). */
export type PoolReader = () => PoolState | undefined;

/** Per registry, the pools of the plug-ins registered in it (the gauge sums them). */
const poolsByRegistry = new WeakMap<Registry, Set<PoolReader>>();

interface Kinds {
  counter: Counter<string>;
  histogram: Histogram<string>;
  gauge: Gauge<string>;
}
const CHECKS: Record<keyof Kinds, string> = { counter: 'inc', histogram: 'observe', gauge: 'set' };

/** The registry's metric of that name, or a new one registered in it; a clash of kinds is said plainly. */
function metric<K extends keyof Kinds>(registry: Registry, kind: K, name: string, make: () => Kinds[K]): Kinds[K] {
  const existing = registry.getSingleMetric(PREFIX + name) as unknown as Record<string, unknown> | undefined;
  if (existing === undefined) return make();
  if (typeof existing[CHECKS[kind]] !== 'function') {
    throw new TypeError(`metrics.registry: it already holds a metric named ${PREFIX + name} that is not a ${kind}; use another registry for payButton()`);
  }
  return existing as unknown as Kinds[K];
}

function counter(registry: Registry, name: string, help: string, labelNames: readonly string[] = []): Counter<string> {
  return metric(registry, 'counter', name, () => new Counter({ name: PREFIX + name, help, labelNames, registers: [registry] }));
}

function histogram(registry: Registry, name: string, help: string, labelNames: readonly string[]): Histogram<string> {
  return metric(registry, 'histogram', name, () => new Histogram({ name: PREFIX + name, help, labelNames, buckets: DURATION_BUCKETS, registers: [registry] }));
}

function poolGauge(registry: Registry): void {
  metric(registry, 'gauge', 'db_pool_connections', () => new Gauge({
    name: `${PREFIX}db_pool_connections`,
    help: 'Order store connections by state (SQLite: one connection, in use or idle)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const states = [...(poolsByRegistry.get(registry) ?? [])].map((read) => read()).filter((state) => state !== undefined);
      this.reset();
      if (states.length === 0) return;
      const sum = (pick: (state: PoolState) => number) => states.reduce((total, state) => total + pick(state), 0);
      this.set({ state: 'in_use' }, sum((state) => state.inUse));
      this.set({ state: 'idle' }, sum((state) => state.idle));
      this.set({ state: 'waiting' }, sum((state) => state.waiting));
    },
  }));
}

const seconds = (ms: number): number => ms / 1000;

export interface PluginMetrics {
  /** For the request path (`http/handler.ts`). */
  readonly observer: RequestObserver;
  /** Stop counting this plug-in (its listeners off, its pool out of the gauge): at `close()`. */
  stop(): void;
}

/** Register the plug-in's metrics in `registry` and keep them from `events`. */
export function registerMetrics(registry: Registry, events: PayButtonEvents, pool: PoolReader): PluginMetrics {
  const created = counter(registry, 'orders_created_total', 'Orders made at the gateway and stored', ['kind']);
  const refused = counter(registry, 'orders_refused_total', 'Create requests refused, by the error code answered', ['reason']);
  const calls = counter(registry, 'gateway_calls_total', 'HTTP exchanges with the gateway', ['operation', 'outcome']);
  const callDuration = histogram(registry, 'gateway_call_duration_seconds', 'Latency of the exchanges with the gateway', ['operation', 'outcome']);
  const notifications = counter(registry, 'notifications_received_total', 'Notifications answered: accepted, or why not', ['outcome']);
  const confirmations = counter(registry, 'confirmations_total', 'Confirm-by-query results', ['outcome', 'source']);
  const transitions = counter(registry, 'order_transitions_total', 'Order state moves', ['to', 'source']);
  const rounds = counter(registry, 'sweep_rounds_total', 'Notification sweep rounds', ['outcome']);
  const foundPaid = counter(registry, 'sweep_found_paid_total', 'Orders the sweep found paid');
  const runs = counter(registry, 'fulfilment_runs_total', 'onPaid runs', ['outcome']);
  const runDuration = histogram(registry, 'fulfilment_duration_seconds', 'onPaid durations', ['outcome']);
  const duplicates = counter(registry, 'duplicate_payments_total', 'A second order of one reference paid');
  const shed = counter(registry, 'requests_shed_total', 'Requests answered 503 overloaded before any work', ['reason']);
  const requests = histogram(registry, 'http_request_duration_seconds', 'Latency of the plug-in\'s requests', ['route', 'outcome']);
  poolGauge(registry);
  const pools = poolsByRegistry.get(registry) ?? new Set<PoolReader>();
  poolsByRegistry.set(registry, pools);
  pools.add(pool);

  const fulfilment = (outcome: string) => (event: PayButtonEventMap['fulfilment.succeeded'][0]) => {
    runs.inc({ outcome });
    runDuration.observe({ outcome }, seconds(event.durationMs));
  };
  const listeners: { [K in PayButtonEventName]?: (...payload: PayButtonEventMap[K]) => void } = {
    'order.transition': (event) => {
      transitions.inc({ to: event.to, source: event.source });
      if (event.from === 'creating' && event.to === 'pending') created.inc({ kind: event.kind });
    },
    'order.refused': (event) => refused.inc({ reason: event.code }),
    'gateway.call': (event) => {
      calls.inc({ operation: event.operation, outcome: event.outcome });
      callDuration.observe({ operation: event.operation, outcome: event.outcome }, seconds(event.durationMs));
    },
    'notification.accepted': () => notifications.inc({ outcome: 'accepted' }),
    'notification.rejected': (event) => notifications.inc({ outcome: event.reason }),
    'order.confirmation': (event) => confirmations.inc({ outcome: event.outcome, source: event.source }),
    'sweep.round': (event) => {
      rounds.inc({ outcome: event.outcome });
      if (event.foundPaid > 0) foundPaid.inc(event.foundPaid);
    },
    'fulfilment.succeeded': fulfilment('succeeded'),
    'fulfilment.failed': fulfilment('failed'),
    'fulfilment.lease_lost': fulfilment('lease_lost'),
    'fulfilment.unrecorded': fulfilment('unrecorded'),
    'order.duplicate_paid': () => duplicates.inc(),
  };
  for (const [name, listener] of Object.entries(listeners)) events.on(name as PayButtonEventName, listener as never);

  return {
    observer: {
      answered: (route, outcome, took) => requests.observe({ route, outcome }, took),
      shed: (reason) => shed.inc({ reason }),
    },
    stop() {
      for (const [name, listener] of Object.entries(listeners)) events.off(name as PayButtonEventName, listener as never);
      pools.delete(pool);
    },
  };
}
