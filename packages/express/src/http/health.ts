/**
 * `router.health()`: a readiness handler the merchant mounts where the orchestrator probes it
 * (`app.get('/readyz', pay.health())`). 200 when the order store is migrated and answers within
 * a deadline, 503 with `Retry-After` otherwise. Plain JSON, nothing secret.
 */
import type { RequestHandler } from 'express';

/** What the probe uses: the store's migration and one trivial query. */
export interface HealthDeps {
  readonly ready: () => Promise<void>;
  readonly ping: () => Promise<void>;
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

export function healthHandler(deps: HealthDeps, timeoutMs = HEALTH_PROBE_TIMEOUT_MS): RequestHandler {
  return async (_req, res) => {
    const ok = await storeAnswers(deps, timeoutMs);
    res.set('Cache-Control', 'no-store');
    if (!ok) res.set('Retry-After', '5');
    res.status(ok ? 200 : 503).json({ status: ok ? 'ready' : 'unavailable', database: ok ? 'ok' : 'unavailable' });
  };
}
