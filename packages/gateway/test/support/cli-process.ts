/**
 * The `tombolbayar-gateway` CLI as a child process, the way an operator runs it, with one addition:
 * the loopback guard of `@tombolbayar/test-support` is preloaded (`node --import`), so the child's
 * deliveries, which use the system resolver, can never connect beyond 127.0.0.0/8 or ::1 nor ask
 * real DNS for a name (issue 12: tests never leave the machine).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL, fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/tombolbayar-gateway.js', import.meta.url));

/** What every child runs before the CLI: the guard, as a file URL for `--import`. */
export const LOOPBACK_GUARD_PRELOAD = pathToFileURL(createRequire(import.meta.url).resolve('@tombolbayar/test-support/loopback-guard-preload')).href;

/** Node's arguments for the CLI with `args`. */
export const cliArgs = (args: readonly string[]) => ['--import', LOOPBACK_GUARD_PRELOAD, BIN, ...args];

export interface GatewayProcess {
  readonly child: ChildProcess;
  readonly url: string;
  output(): string;
  /** SIGKILL, no cleanup at all. */
  kill9(): Promise<void>;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/**
 * The environment of a child: this one's, minus DATABASE_URL, so a test that means SQLite never
 * lands in a shared PostgreSQL database by inheritance (pass --database-url explicitly).
 */
function childEnv(extra: NodeJS.ProcessEnv | undefined): NodeJS.ProcessEnv {
  return { ...process.env, DATABASE_URL: '', ...extra };
}

/** Run a one-shot command; resolves with its exit code and output. */
export function runCli(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, cliArgs(args), { cwd: options.cwd, env: childEnv(options.env), stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Start the server and wait for its "listening on URL" line. */
export function startGatewayProcess(args: readonly string[], options: { env?: NodeJS.ProcessEnv } = {}): Promise<GatewayProcess> {
  const child = spawn(process.execPath, cliArgs(['--port', '0', '--log-level', 'warn', ...args]), {
    env: childEnv(options.env),
    stdio: 'pipe',
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the gateway did not start:\n${output}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      resolve({
        child,
        url: match[1]!,
        output: () => output,
        async kill9() {
          child.kill('SIGKILL');
          await exited(child);
        },
        async stop() {
          child.kill('SIGTERM');
          return exited(child);
        },
      });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the gateway exited with ${code} before listening:\n${output}`));
    });
  });
}
