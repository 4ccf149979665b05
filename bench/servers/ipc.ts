/**
 * The child side of `lib/children.ts`: announce the URL once listening, answer the parent's
 * commands, and shut down cleanly on SIGTERM (so `--cpu-prof` gets to write its profile).
 */
import { readFileSync } from 'node:fs';
import { constants as perfConstants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

export type Command =
  | { readonly cmd: 'stats' }
  | { readonly cmd: 'loop' }
  | { readonly cmd: 'reset' }
  | { readonly cmd: 'gc' }
  /** Spans exported and bytes of one metrics scrape, in a child whose config says `observe`. */
  | { readonly cmd: 'observed' }
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

/** What stalled a server's event loop since the last reset: the delay itself, and what it could be. */
export interface LoopDelay {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Longest single garbage-collection pause (V8's `gc` performance entries), and its kind. */
  readonly gcMaxMs: number;
  readonly gcMaxKind: string;
  /** Times the kernel took the CPU from this process while it could run (`nonvoluntary_ctxt_switches`). */
  readonly preempted: number;
}

const GC_KINDS: Record<number, string> = {
  [perfConstants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [perfConstants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental marking',
  [perfConstants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};

/** The process's involuntary context switches so far (Linux /proc; 0 elsewhere). */
function preemptions(): number {
  try {
    return Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * Event-loop delay of this process since the last reset (what a request arriving then waits),
 * beside the longest GC pause and the preemptions in the same span: a stall longer than any GC
 * pause is the process waiting for a core the other processes hold.
 */
export function loopDelayMonitor(): { read(): LoopDelay; reset(): void } {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  let gcMaxMs = 0;
  let gcMaxKind = 'none';
  let preemptedAtReset = preemptions();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.duration <= gcMaxMs) continue;
      gcMaxMs = entry.duration;
      gcMaxKind = GC_KINDS[(entry as { detail?: { kind?: number } }).detail?.kind ?? 0] ?? 'other';
    }
  }).observe({ entryTypes: ['gc'] });
  return {
    read: () => ({
      p50Ms: histogram.percentile(50) / 1e6,
      p99Ms: histogram.percentile(99) / 1e6,
      maxMs: histogram.max / 1e6,
      gcMaxMs,
      gcMaxKind,
      preempted: preemptions() - preemptedAtReset,
    }),
    reset: () => {
      histogram.reset();
      gcMaxMs = 0;
      gcMaxKind = 'none';
      preemptedAtReset = preemptions();
    },
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
