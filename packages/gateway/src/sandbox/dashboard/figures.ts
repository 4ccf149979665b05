/**
 * The gateway's key figures for the dashboard's front page, read from its metrics Registry (the
 * one `GET /metrics` serves, so the page and Prometheus never disagree): counters of this process
 * since it started, and the notification queue as the store holds it now. Read through
 * `getSingleMetric(name).get()`, which runs the queue gauges' own (cached) store read.
 */
import type { Registry } from 'prom-client';

const PREFIX = 'tombolbayar_gateway_';

export interface Figures {
  readonly ordersCreated: number;
  readonly paid: number;
  readonly expired: number;
  readonly failed: number;
  readonly queued: number;
  readonly oldestUndeliveredSeconds: number;
  readonly attemptsDelivered: number;
  /** Every other outcome: refused, timeout, network, blocked. */
  readonly attemptsFailed: number;
  readonly givenUp: number;
  readonly shed: number;
}

type Values = ReadonlyArray<{ readonly value: number; readonly labels: Readonly<Record<string, string | number>> }>;

/** A metric's values, or none when the Registry does not hold it (a caller's registry, another version). */
async function valuesOf(registry: Registry, name: string): Promise<Values> {
  const metric = registry.getSingleMetric(`${PREFIX}${name}`);
  if (!metric) return [];
  return ((await metric.get()) as { values: Values }).values;
}

/** The sum of the values whose labels match `where` (every series when `where` is empty). */
function sum(values: Values, where: (labels: Values[number]['labels']) => boolean = () => true): number {
  return values.reduce((total, series) => (where(series.labels) ? total + series.value : total), 0);
}

export async function readFigures(registry: Registry): Promise<Figures> {
  const [created, transitions, depth, oldest, attempts, givenUp, shed] = await Promise.all(
    ['orders_created_total', 'order_transitions_total', 'notification_queue_depth', 'notification_oldest_undelivered_age_seconds', 'notification_attempts_total', 'notifications_given_up_total', 'requests_shed_total'].map(
      (name) => valuesOf(registry, name),
    ),
  );
  const to = (target: string) => sum(transitions!, (labels) => labels.to === target);
  return {
    ordersCreated: sum(created!),
    paid: to('paid'),
    expired: to('expired'),
    failed: to('failed'),
    queued: sum(depth!),
    oldestUndeliveredSeconds: sum(oldest!),
    attemptsDelivered: sum(attempts!, (labels) => labels.outcome === 'delivered'),
    attemptsFailed: sum(attempts!, (labels) => labels.outcome !== 'delivered'),
    givenUp: sum(givenUp!),
    shed: sum(shed!),
  };
}

/**
 * What the front page compares to know it is out of date: every count, not the oldest
 * notification's age (it grows by the second, and would reload the page at every look).
 */
export function figuresFingerprint(f: Figures): string {
  return [f.ordersCreated, f.paid, f.expired, f.failed, f.queued, f.attemptsDelivered, f.attemptsFailed, f.givenUp, f.shed].join('.');
}
