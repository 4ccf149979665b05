/**
 * Child processes of the end-to-end tests that work on installed packages: run a command to its
 * end, start a server and wait for the line that says it is ready, stop it.
 * Never through a shell; `DATABASE_URL` is cleared so an installed app uses its own SQLite file.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';

export interface Result {
  readonly code: number | null;
  readonly output: string;
}

export interface RunOptions {
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
}

/** Run a command to its end; the output is stdout and stderr together. */
export function run(command: string, args: readonly string[], options: RunOptions): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, DATABASE_URL: '', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** `run`, failing the test with the command's output unless it exits 0. */
export async function succeed(command: string, args: readonly string[], options: RunOptions): Promise<string> {
  const result = await run(command, args, options);
  assert.equal(result.code, 0, `${command} ${args.join(' ')} failed:\n${result.output}`);
  return result.output;
}

export interface Started {
  readonly child: ChildProcess;
  readonly match: RegExpExecArray;
  /** Everything it printed so far. */
  output(): string;
}

/** Start `node ...args` and wait for the output `ready` matches; resolves with its match. */
export function start(args: readonly string[], options: RunOptions, ready: RegExp): Promise<Started> {
  const child = spawn(process.execPath, args, { cwd: options.cwd, env: { ...process.env, DATABASE_URL: '', ...options.env }, stdio: 'pipe' });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready: node ${args.join(' ')}\n${output}`)), options.timeoutMs ?? 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (!match) return;
      clearTimeout(timer);
      resolve({ child, match, output: () => output });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited (${code}): node ${args.join(' ')}\n${output}`)));
  });
}

export function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  return exited;
}

