/**
 * Health routes for the orchestrator: `GET /healthz` (liveness: the process answers HTTP) and
 * `GET /readyz` (readiness: started, the database answers within a deadline, the notification
 * worker is not stalled, and the process is not saturated: refusing requests, or its event loop
 * late). They answer plain JSON, carry nothing secret, are never shed and never logged per
 * request (probes come every few seconds).
 */
import { sql } from 'kysely';
import { Router } from 'express';
import type { Database } from '../store/database.ts';
import type { LoadSnapshot } from '@tombolbayar/store-kit';
import type { WorkerHealth } from '../notify/worker.ts';

export type StartupState = 'starting' | 'waiting_for_database' | 'ready' | 'failed';

export interface HealthSources {
  readonly database: Database;
  startup(): StartupState;
  /** Undefined when this process runs no worker. */
  worker(): WorkerHealth | undefined;
  /** How long the database probe may take; default 2 000 ms. */
  readonly probeTimeoutMs?: number;
  /** The admission's load: a saturated process says so (it is refusing requests, or its event loop is late). */
  load?(): LoadSnapshot;
}

export interface Readiness {
  readonly ready: boolean;
  readonly database: 'ok' | 'starting' | 'unavailable';
  readonly worker: 'ok' | 'stalled' | 'off';
  readonly load: 'ok' | 'saturated';
}

/** What `/readyz` observed: the startup state, the database probe, the worker and the load. */
export interface ReadinessObservations {
  readonly startup: StartupState;
  readonly databaseAnswered: boolean;
  /** undefined when this process runs no worker. */
  readonly worker: WorkerHealth | undefined;
  readonly saturated?: boolean | undefined;
}

/** The pure verdict from what was observed. */
export function readiness({ startup, databaseAnswered, worker, saturated = false }: ReadinessObservations): Readiness {
  const database = startup !== 'ready' ? (startup === 'starting' ? 'starting' : 'unavailable') : databaseAnswered ? 'ok' : 'unavailable';
  const workerState = worker === undefined ? 'off' : worker.stalled ? 'stalled' : 'ok';
  return { ready: database === 'ok' && workerState !== 'stalled' && !saturated, database, worker: workerState, load: saturated ? 'saturated' : 'ok' };
}

async function databaseAnswers(database: Database, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const probe = sql`select 1`.execute(database.db).then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function healthRouter(sources: HealthSources): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const startup = sources.startup();
    const answered = startup === 'ready' ? await databaseAnswers(sources.database, sources.probeTimeoutMs ?? 2_000) : false;
    const load = sources.load?.();
    const verdict = readiness({ startup, databaseAnswered: answered, worker: sources.worker(), saturated: load?.saturated ?? false });
    res.set('Cache-Control', 'no-store');
    if (!verdict.ready) res.set('Retry-After', verdict.load === 'saturated' ? '1' : '5');
    const status = verdict.ready ? 'ready' : verdict.database === 'ok' && verdict.worker !== 'stalled' ? 'saturated' : 'unavailable';
    res.status(verdict.ready ? 200 : 503).json({
      status,
      database: verdict.database,
      worker: verdict.worker,
      ...(load ? { load: { state: verdict.load, inFlight: load.inFlight, reading: load.reading, shed: load.shed, eventLoopDelayMs: load.loopDelayMs } } : {}),
    });
  });
  return router;
}
