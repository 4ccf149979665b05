/**
 * The gateway's metrics from its `metrics` option: the Registry (the caller's, or a new one of the
 * gateway's own, never prom-client's global one), the recorder handed down to the modules that do
 * the work, and the readers the scrape-time gauges use. `metrics: false` gives `NO_METRICS` and no
 * statement hook, so the store runs exactly as without metrics.
 */
import type { ShedReason, StatementObserver } from '@tombolbayar/store-kit';
import type { Clock } from '../domain/clock.ts';
import type { Database } from '../store/database.ts';
import { undeliveredQueue } from '../store/outbox.ts';
import { createGatewayMetrics, NO_METRICS, Registry, statementKind, type GatewayMetrics } from './metrics.ts';

export interface GatewayObservability {
  readonly registry: Registry | undefined;
  readonly metrics: GatewayMetrics;
  /** Bearer token that also opens `GET /metrics` (besides loopback without forwarding headers). */
  readonly token: string | undefined;
  /** Kysely's statement hook, when metrics are on. */
  readonly onStatement: StatementObserver | undefined;
  /** Point the scrape-time gauges at the opened store. */
  watch(database: Database, clock: Clock): void;
}

export type MetricsOption = { registry?: Registry; token?: string } | false | undefined;

/**
 * The admission refusal as the `reason` label names it: store-kit's own reason (`in_flight`,
 * `event_loop`, `reading`, `per_client`), the same words the plug-in and the operations docs use.
 */
export const shedReasonLabel = (reason: ShedReason): string => reason;

export function setUpObservability(option: MetricsOption): GatewayObservability {
  if (option === false) {
    return { registry: undefined, metrics: NO_METRICS, token: undefined, onStatement: undefined, watch: () => {} };
  }
  const registry = option?.registry ?? new Registry();
  const metrics = createGatewayMetrics(registry);
  return {
    registry,
    metrics,
    token: option?.token,
    onStatement: (event) => metrics.statement(statementKind(event.query.sql), event.queryDurationMillis / 1000),
    watch(database, clock) {
      metrics.observeConnections(() => database.connections());
      metrics.observeQueue(async () => {
        const { depth, oldestCreatedAt } = await undeliveredQueue(database.db);
        return { depth, oldestAgeSeconds: oldestCreatedAt === null ? 0 : Math.max(0, (clock.now() - oldestCreatedAt) / 1000) };
      });
    },
  };
}
