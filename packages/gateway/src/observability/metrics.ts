/**
 * The gateway's Prometheus metrics (issue 34; names, types and labels fixed by the observability
 * contract), registered in a Registry the gateway owns, never prom-client's global one. The rest of
 * the gateway records through the small `GatewayMetrics` interface it is handed (`NO_METRICS` when
 * `metrics: false`), so no module touches prom-client or a global. Label values come from closed
 * sets only: never an order number, e-mail, phone, URL or address.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ConnectionState } from '@tombolbayar/store-kit';

const PREFIX = 'tombolbayar_gateway_';
/** The contract's buckets, in seconds. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** The queue gauges read the store at most this often (the contract allows up to 5 s). */
export const QUEUE_CACHE_MS = 1_000;

export type CreateEndpoint = 'prepaidOrder' | 'pay';
export type TransitionTarget = 'paid' | 'expired' | 'failed';
export type RequestOutcome = '2xx' | '3xx' | '4xx' | '5xx' | 'shed';
export type AttemptOutcome = 'delivered' | 'refused' | 'timeout' | 'network' | 'blocked';
export type RoundOutcome = 'ok' | 'failed' | 'overran';
export type StatementKind = 'select' | 'insert' | 'update' | 'delete' | 'other';

/** What the undelivered notifications look like now (read from the store at scrape time). */
export interface QueueState {
  readonly depth: number;
  readonly oldestAgeSeconds: number;
}

/** What the gateway records; each call is a counter step or one observation. */
export interface GatewayMetrics {
  orderCreated(endpoint: CreateEndpoint, method: string): void;
  orderTransition(to: TransitionTarget): void;
  request(route: string, outcome: RequestOutcome, seconds: number): void;
  shed(reason: string): void;
  notificationsEnqueued(kind: TransitionTarget, count: number): void;
  attempt(outcome: AttemptOutcome, seconds: number): void;
  retryLag(seconds: number): void;
  givenUp(): void;
  workerRound(outcome: RoundOutcome): void;
  leaseLost(): void;
  statement(kind: StatementKind, seconds: number): void;
  /** Where the queue gauges read from (set once the store is there). */
  observeQueue(read: () => Promise<QueueState>): void;
  /** Where the pool gauge reads from. */
  observeConnections(read: () => ConnectionState): void;
}

const noop = () => {};
/** `metrics: false`: every call does nothing. */
export const NO_METRICS: GatewayMetrics = {
  orderCreated: noop,
  orderTransition: noop,
  request: noop,
  shed: noop,
  notificationsEnqueued: noop,
  attempt: noop,
  retryLag: noop,
  givenUp: noop,
  workerRound: noop,
  leaseLost: noop,
  statement: noop,
  observeQueue: noop,
  observeConnections: noop,
};

/** A read of the store shared by both queue gauges, at most once per `QUEUE_CACHE_MS`. */
function cachedQueue(): { set(read: () => Promise<QueueState>): void; get(): Promise<QueueState | undefined> } {
  let read: (() => Promise<QueueState>) | undefined;
  let last: { at: number; value: Promise<QueueState | undefined> } | undefined;
  return {
    set(next) {
      read = next;
      last = undefined;
    },
    get() {
      if (!read) return Promise.resolve(undefined);
      const now = Date.now();
      if (!last || now - last.at >= QUEUE_CACHE_MS) {
        // A failed read (database down, not migrated yet) leaves the gauges as they were: a scrape never fails for it.
        last = { at: now, value: read().catch(() => undefined) };
      }
      return last.value;
    },
  };
}

/** Register every gateway metric in `registry` and return the recorder. */
export function createGatewayMetrics(registry: Registry): GatewayMetrics {
  const registers = [registry];
  const ordersCreated = new Counter({ name: `${PREFIX}orders_created_total`, help: 'Orders stored, by create endpoint and method (none: a link without method).', labelNames: ['endpoint', 'method'] as const, registers });
  const transitions = new Counter({ name: `${PREFIX}order_transitions_total`, help: 'Order state moves out of PENDING.', labelNames: ['to'] as const, registers });
  const requestDuration = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'HTTP request latency, by route template and outcome (status class, or shed).',
    labelNames: ['route', 'outcome'] as const,
    buckets: DURATION_BUCKETS,
    registers,
  });
  const shed = new Counter({ name: `${PREFIX}requests_shed_total`, help: 'Requests answered before any work by admission control.', labelNames: ['reason'] as const, registers });
  const enqueued = new Counter({ name: `${PREFIX}notifications_enqueued_total`, help: 'Notifications added to the outbox, by kind.', labelNames: ['kind'] as const, registers });
  const attempts = new Counter({ name: `${PREFIX}notification_attempts_total`, help: 'Notification delivery attempts, by outcome.', labelNames: ['outcome'] as const, registers });
  const attemptDuration = new Histogram({
    name: `${PREFIX}notification_attempt_duration_seconds`,
    help: 'Notification delivery attempt latency, by outcome.',
    labelNames: ['outcome'] as const,
    buckets: DURATION_BUCKETS,
    registers,
  });
  const retryLag = new Histogram({ name: `${PREFIX}notification_retry_lag_seconds`, help: 'How late an attempt started after it was due.', buckets: DURATION_BUCKETS, registers });
  const givenUp = new Counter({ name: `${PREFIX}notifications_given_up_total`, help: 'Notifications marked dead after their last attempt failed.', registers });
  const queue = cachedQueue();
  new Gauge({
    name: `${PREFIX}notification_queue_depth`,
    help: 'Undelivered notifications that are not dead (read from the store, cached briefly).',
    registers,
    async collect() {
      const state = await queue.get();
      if (state) this.set(state.depth);
    },
  });
  new Gauge({
    name: `${PREFIX}notification_oldest_undelivered_age_seconds`,
    help: 'Age of the oldest undelivered notification that is not dead (0 when none).',
    registers,
    async collect() {
      const state = await queue.get();
      if (state) this.set(state.oldestAgeSeconds);
    },
  });
  const rounds = new Counter({ name: `${PREFIX}outbox_worker_rounds_total`, help: 'Notification worker rounds, by outcome.', labelNames: ['outcome'] as const, registers });
  const leaseLosses = new Counter({ name: `${PREFIX}outbox_lease_losses_total`, help: 'Attempts whose notification was lost to another worker or to lease expiry.', registers });
  let connections: (() => ConnectionState) | undefined;
  new Gauge({
    name: `${PREFIX}db_pool_connections`,
    help: 'Database connections by state (SQLite: its one connection).',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const state = connections?.();
      if (!state) return;
      this.set({ state: 'in_use' }, state.inUse);
      this.set({ state: 'idle' }, state.idle);
      this.set({ state: 'waiting' }, state.waiting);
    },
  });
  const statementDuration = new Histogram({
    name: `${PREFIX}db_statement_duration_seconds`,
    help: 'Database statement latency, by statement kind.',
    labelNames: ['statement'] as const,
    buckets: DURATION_BUCKETS,
    registers,
  });
  return {
    orderCreated: (endpoint, method) => ordersCreated.inc({ endpoint, method }),
    orderTransition: (to) => transitions.inc({ to }),
    request: (route, outcome, seconds) => requestDuration.observe({ route, outcome }, seconds),
    shed: (reason) => shed.inc({ reason }),
    notificationsEnqueued: (kind, count) => {
      if (count > 0) enqueued.inc({ kind }, count);
    },
    attempt: (outcome, seconds) => {
      attempts.inc({ outcome });
      attemptDuration.observe({ outcome }, seconds);
    },
    retryLag: (seconds) => retryLag.observe(Math.max(0, seconds)),
    givenUp: () => givenUp.inc(),
    workerRound: (outcome) => rounds.inc({ outcome }),
    leaseLost: () => leaseLosses.inc(),
    statement: (kind, seconds) => statementDuration.observe({ statement: kind }, seconds),
    observeQueue: (read) => queue.set(read),
    observeConnections: (read) => {
      connections = read;
    },
  };
}

/** A statement's kind by its first keyword (a `with` or a pragma is `other`). */
export function statementKind(sql: string): StatementKind {
  const keyword = /^\s*([a-z]+)/i.exec(sql)?.[1]?.toLowerCase();
  return keyword === 'select' || keyword === 'insert' || keyword === 'update' || keyword === 'delete' ? keyword : 'other';
}

export { Registry };
