/// <reference lib="dom" />
/**
 * Watches the order while the page is pending: polls the page's JSON status route and reloads the
 * page (which the server renders in the new state) when the status or the method changed, e.g.
 * after a bank transfer, a sandbox API call, or a method chosen in another tab. Polls only while
 * the page is visible, and backs off on network errors.
 */

export interface StatusSnapshot {
  readonly status: string;
  readonly method: string | null;
  readonly remainingMs: number;
}

export interface StatusWatcherOptions {
  readonly url: string;
  readonly status: string;
  readonly method: string | null;
  readonly intervalMs?: number;
  readonly onRemaining?: (remainingMs: number) => void;
  readonly onChange?: () => void;
}

export interface StatusWatcher {
  checkNow(): void;
}

function parseSnapshot(value: unknown): StatusSnapshot | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { status, method, remainingMs } = value as Record<string, unknown>;
  if (typeof status !== 'string' || typeof remainingMs !== 'number') return undefined;
  if (method !== null && typeof method !== 'string') return undefined;
  return { status, method, remainingMs };
}

export function watchStatus(options: StatusWatcherOptions): StatusWatcher {
  const interval = options.intervalMs ?? 4000;
  let delay = interval;
  let handle: number | undefined;
  let inFlight = false;
  let done = false;

  function schedule(ms: number): void {
    if (handle !== undefined) window.clearTimeout(handle);
    handle = document.hidden || done ? undefined : window.setTimeout(check, ms);
  }

  async function check(): Promise<void> {
    if (inFlight || done) return;
    inFlight = true;
    try {
      const response = await fetch(options.url, { headers: { Accept: 'application/json' }, cache: 'no-store' });
      const snapshot = response.ok ? parseSnapshot(await response.json()) : undefined;
      if (response.status === 404 || (snapshot && (snapshot.status !== options.status || snapshot.method !== options.method))) {
        done = true;
        (options.onChange ?? (() => window.location.reload()))();
        return;
      }
      if (snapshot) options.onRemaining?.(snapshot.remainingMs);
      delay = interval;
    } catch {
      delay = Math.min(delay * 2, 60_000);
    } finally {
      inFlight = false;
    }
    schedule(delay);
  }

  document.addEventListener('visibilitychange', () => {
    if (!document.hidden) void check();
    else schedule(delay);
  });
  // Back from the back/forward cache: the order may have changed while the page was frozen.
  window.addEventListener('pageshow', (event) => {
    if (event.persisted) void check();
  });
  schedule(delay);
  return { checkNow: () => void check() };
}
