/**
 * Servers under test run in child processes, so that the load generator (this process) and the
 * server do not share one event loop; each prints `LISTENING <url>` when ready.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

export interface ChildServer {
  readonly url: string;
  readonly process: ChildProcess;
  /** Resident set size of the child in MB, read from /proc. */
  rssMb(): Promise<number>;
  stop(): Promise<void>;
}

export async function startChild(script: string, args: readonly string[] = [], env: Record<string, string> = {}): Promise<ChildServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`${script} did not start within 60 s`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const match = /LISTENING (\S+)/.exec(buffer);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before listening`)));
  });
  child.stdout!.resume();
  return {
    url,
    process: child,
    async rssMb() {
      const { readFile } = await import('node:fs/promises');
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      return kb / 1024;
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await Promise.race([once(child, 'exit'), new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
