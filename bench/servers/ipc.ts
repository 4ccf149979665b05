/**
 * The child side of `lib/children.ts`: announce the URL once listening, answer the parent's
 * commands, and shut down cleanly on SIGTERM (so `--cpu-prof` gets to write its profile).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

export type Command =
  | { readonly cmd: 'stats' }
  | { readonly cmd: 'loop' }
  | { readonly cmd: 'reset' }
  | { readonly cmd: 'gc' }
  | { readonly cmd: 'pay'; readonly platOrderNums: readonly string[]; readonly concurrency: number; readonly method?: string };

export type ChildMessage =
  | { readonly type: 'listening'; readonly url: string; readonly info?: Record<string, unknown> }
  | { readonly type: 'failed'; readonly error: string }
  | { readonly type: 'reply'; readonly id: number; readonly ok: true; readonly result: unknown }
  | { readonly type: 'reply'; readonly id: number; readonly ok: false; readonly error: string };

export type CommandHandler = (command: Command) => unknown;

function send(message: ChildMessage): void {
  process.send?.(message);
}

/** Call once the server listens. `handle` answers commands; `close` runs on SIGTERM. */
export function serve(url: string, handle: CommandHandler, close: () => Promise<void>, info?: Record<string, unknown>): void {
  process.on('message', (message: Command & { id: number }) => {
    Promise.resolve()
      .then(() => handle(message))
      .then(
        (result) => send({ type: 'reply', id: message.id, ok: true, result: result ?? null }),
        (error: unknown) => send({ type: 'reply', id: message.id, ok: false, error: error instanceof Error ? error.message : String(error) }),
      );
  });
  let closing = false;
  process.on('SIGTERM', () => {
    if (closing) return;
    closing = true;
    close()
      .catch((error: unknown) => console.error('close failed:', error))
      .finally(() => process.exit(0));
  });
  send({ type: 'listening', url, ...(info ? { info } : {}) });
}

/** Report a start-up failure to the parent and exit. */
export function failed(error: unknown): never {
  send({ type: 'failed', error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
}

/** Resident set size after a full GC (the child must run with --expose-gc for the GC). */
export function memoryAfterGc(): { rssMb: number; heapUsedMb: number; gcForced: boolean } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
  const usage = process.memoryUsage();
  return { rssMb: usage.rss / 2 ** 20, heapUsedMb: usage.heapUsed / 2 ** 20, gcForced: gc !== undefined };
}

/** Event-loop delay of this process since the last reset (what a request arriving then waits). */
export function loopDelayMonitor(): { read(): { p50Ms: number; p99Ms: number; maxMs: number }; reset(): void } {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  return {
    read: () => ({ p50Ms: histogram.percentile(50) / 1e6, p99Ms: histogram.percentile(99) / 1e6, maxMs: histogram.max / 1e6 }),
    reset: () => histogram.reset(),
  };
}

/** Command-line `--name value` pairs of a bench server. */
export function argsOf(argv: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg.startsWith('--')) {
      out[arg.slice(2)] = argv[index + 1] ?? '';
      index++;
    }
  }
  return out;
}
