/**
 * Readiness for probes, as a `Response` any framework can return (`healthResponse()` of the core;
 * the Express adapter's `health()` writes it): 200 when the order store is migrated and answers
 * within a deadline and the process is not saturated (refusing requests, or its event loop late),
 * 503 with `Retry-After` otherwise. Plain JSON, nothing secret.
 */
import type { LoadSnapshot } from '@tombolbayar/store-kit';
import { jsonAnswer } from './respond.ts';
import type { Answer } from './answer.ts';

/** What the probe uses: the store's migration and one trivial query. */
export interface HealthDeps {
  readonly ready: () => Promise<void>;
  readonly ping: () => Promise<void>;
  /** The admission's load (`http/admission.ts`). */
  readonly load?: () => LoadSnapshot;
}

/** How long the store may take to answer the probe. */
export const HEALTH_PROBE_TIMEOUT_MS = 2_000;

async function storeAnswers(deps: HealthDeps, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const probe = (async () => {
    await deps.ready();
    await deps.ping();
    return true;
  })().catch(() => false);
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function healthAnswer(deps: HealthDeps, timeoutMs = HEALTH_PROBE_TIMEOUT_MS): Promise<Answer> {
  const ok = await storeAnswers(deps, timeoutMs);
  const load = deps.load?.();
  const saturated = load?.saturated ?? false;
  const ready = ok && !saturated;
  const status = ready ? 'ready' : ok ? 'saturated' : 'unavailable';
  return jsonAnswer(ready ? 200 : 503, {
    status,
    database: ok ? 'ok' : 'unavailable',
    ...(load ? { load: { state: saturated ? 'saturated' : 'ok', inFlight: load.inFlight, reading: load.reading, shed: load.shed, eventLoopDelayMs: load.loopDelayMs } } : {}),
  }, {
    'Cache-Control': 'no-store',
    ...(ready ? {} : { 'Retry-After': ok ? '1' : '5' }),
  });
}
