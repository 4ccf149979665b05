/**
 * Health routes for the orchestrator: `GET /healthz` (liveness: the process answers HTTP) and
 * `GET /readyz` (readiness: started, the database answers within a deadline, and the notification
 * worker is not stalled). They answer plain JSON, carry nothing secret, are never shed and never
 * logged per request (probes come every few seconds).
 */
import { sql } from 'kysely';
import { Router } from 'express';
import type { Database } from '../store/database.ts';
import type { WorkerHealth } from '../notify/worker.ts';

export type StartupState = 'starting' | 'waiting_for_database' | 'ready' | 'failed';

export interface HealthSources {
  readonly database: Database;
  startup(): StartupState;
  /** Undefined when this process runs no worker. */
  worker(): WorkerHealth | undefined;
  /** How long the database probe may take; default 2 000 ms. */
  readonly probeTimeoutMs?: number;
}

export interface Readiness {
  readonly ready: boolean;
  readonly database: 'ok' | 'starting' | 'unavailable';
  readonly worker: 'ok' | 'stalled' | 'off';
}

/** The pure verdict from what was observed. */
export function readiness(startup: StartupState, databaseAnswered: boolean, worker: WorkerHealth | undefined): Readiness {
  const database = startup !== 'ready' ? (startup === 'starting' ? 'starting' : 'unavailable') : databaseAnswered ? 'ok' : 'unavailable';
  const workerState = worker === undefined ? 'off' : worker.stalled ? 'stalled' : 'ok';
  return { ready: database === 'ok' && workerState !== 'stalled', database, worker: workerState };
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
    const verdict = readiness(startup, answered, sources.worker());
    res.set('Cache-Control', 'no-store');
    if (!verdict.ready) res.set('Retry-After', '5');
    res.status(verdict.ready ? 200 : 503).json({ status: verdict.ready ? 'ready' : 'unavailable', database: verdict.database, worker: verdict.worker });
  });
  return router;
}
