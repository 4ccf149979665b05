/**
 * Servers under test run in child processes, so that the load generator (this process) and the
 * servers do not share one event loop. A child announces itself over IPC (`serve()` in
 * `servers/ipc.ts`) and answers commands (`stats`, `gc`, ...). Its stdout goes to /dev/null: the
 * gateway logs there at `info`, as in production, without the parent paying to read the lines.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ChildMessage, Command } from '../servers/ipc.ts';
import { bundleServer } from './bundle.ts';

export interface ChildServer {
  readonly url: string;
  readonly pid: number;
  /** Whatever the child sent with its `listening` message (e.g. the platform public key). */
  readonly info: Readonly<Record<string, unknown>>;
  /** Resident set size of the child in MB, read from /proc. */
  rssMb(): Promise<number>;
  /** CPU time (user + system, all threads) the child has used so far, in seconds, from /proc. */
  cpuSeconds(): Promise<number>;
  /** Send a command the child's `serve()` handles; resolves with its answer. */
  command<T = unknown>(command: Command, timeoutMs?: number): Promise<T>;
  stop(): Promise<void>;
}

export interface ChildOptions {
  readonly args?: readonly string[];
  readonly env?: Record<string, string>;
  /** Extra node flags, e.g. `--cpu-prof` or `--expose-gc`. */
  readonly nodeFlags?: readonly string[];
  readonly startTimeoutMs?: number;
}

let commandIds = 0;

const CLOCK_TICKS_PER_SECOND = 100;

/** utime + stime of a process (fields 14 and 15 of /proc/PID/stat, after the command name). */
export async function cpuSecondsOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

const BUILD_DIR = new URL('../.build/', import.meta.url).pathname;
const bundles = new Map<string, Promise<string>>();

/**
 * A server script as plain JavaScript: a bench `.ts` server is bundled once per run (its packages
 * stay external and load from their built `dist/`), so every server runs on plain node, as a user
 * runs the packages, with no TypeScript loader in the process.
 */
function runnable(script: string): Promise<string> {
  if (!script.endsWith('.ts')) return Promise.resolve(script);
  let bundle = bundles.get(script);
  if (!bundle) bundles.set(script, (bundle = bundleServer(script, `${BUILD_DIR}${basename(script, '.ts')}.mjs`)));
  return bundle;
}

/**
 * Node flags of every process the bench starts: the export condition that opens
 * `@tombolbayar/gateway/internal` (benchmarks and tests only), and the loopback guard: no socket of
 * a bench process can connect anywhere but 127.0.0.0/8 or ::1, and no real DNS is asked.
 */
export const BENCH_NODE_FLAGS: readonly string[] = ['--conditions=tombolbayar-internal', '--import', '@tombolbayar/test-support/loopback-guard-preload'];

export async function startChild(script: string, options: ChildOptions = {}): Promise<ChildServer> {
  const file = await runnable(script);
  const child: ChildProcess = spawn(process.execPath, [...BENCH_NODE_FLAGS, ...(options.nodeFlags ?? []), file, ...(options.args ?? [])], {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let exited = false;
  child.on('message', (message: ChildMessage) => {
    if (message.type !== 'reply') return;
    const waiter = pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if (message.ok) waiter.resolve(message.result);
    else waiter.reject(new Error(`${script}: ${message.error}`));
  });
  child.once('exit', (code, signal) => {
    exited = true;
    for (const waiter of pending.values()) waiter.reject(new Error(`${script} exited (${code ?? signal}) before answering`));
    pending.clear();
  });

  const listening = await new Promise<Extract<ChildMessage, { type: 'listening' }>>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not start within ${(options.startTimeoutMs ?? 60_000) / 1000} s`));
    }, options.startTimeoutMs ?? 60_000);
    const onMessage = (message: ChildMessage) => {
      if (message.type === 'listening') {
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(message);
      } else if (message.type === 'failed') {
        clearTimeout(timer);
        reject(new Error(`${script} failed to start: ${message.error}`));
      }
    };
    child.on('message', onMessage);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} before listening`));
    });
  });

  return {
    url: listening.url,
    pid: child.pid!,
    info: listening.info ?? {},
    async rssMb() {
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    },
    async cpuSeconds() {
      return cpuSecondsOf(child.pid!);
    },
    command<T>(command: Command, timeoutMs = 120_000) {
      if (exited) return Promise.reject(new Error(`${script} has exited`));
      const id = ++commandIds;
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${script} did not answer ${command.cmd} within ${timeoutMs / 1000} s`));
        }, timeoutMs);
        pending.set(id, {
          resolve: (value) => {
            clearTimeout(timer);
            resolve(value as T);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        });
        child.send({ ...command, id });
      });
    },
    async stop() {
      if (exited) return;
      // SIGTERM lets the child close its store (and write its --cpu-prof file) before exiting.
      child.kill('SIGTERM');
      await Promise.race([once(child, 'exit'), new Promise((resolve) => setTimeout(resolve, 10_000))]);
      if (!exited) child.kill('SIGKILL');
    },
  };
}
