/** The `paybutton-gateway` CLI as a child process, the way an operator runs it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/paybutton-gateway.js', import.meta.url));

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
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env: childEnv(options.env), stdio: 'pipe' });
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
  const child = spawn(process.execPath, [BIN, '--port', '0', '--log-level', 'warn', ...args], {
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
