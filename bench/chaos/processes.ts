/**
 * The chaos run's moving parts: child servers it can kill with SIGKILL (an exit it did not ask for
 * is a crash), a TCP proxy that drops a share of the notifications, free ports, and a probe.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { join } from 'node:path';

const HERE = new URL('.', import.meta.url).pathname;
const NODE_FLAGS = ['--conditions=tombolbayar-internal', '--import', '@tombolbayar/test-support/loopback-guard-preload', '--import', 'tsx'];

/** A child server the run may kill; an exit it did not ask for is a crash. */
export class Child {
  private process: ChildProcess | undefined;
  private killing = false;
  readonly crashes: string[] = [];
  constructor(
    readonly name: string,
    private readonly script: string,
    private readonly env: Record<string, string>,
  ) {}

  async start(): Promise<void> {
    this.killing = false;
    const child = spawn(process.execPath, [...NODE_FLAGS, join(HERE, this.script)], { env: { ...process.env, ...this.env }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    this.process = child;
    child.once('exit', (code, signal) => {
      if (!this.killing) this.crashes.push(`${this.name} exited by itself (${code ?? signal})`);
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name} did not start within 60 s`)), 60_000);
      child.once('message', () => {
        clearTimeout(timer);
        resolve();
      });
      child.once('exit', () => {
        clearTimeout(timer);
        reject(new Error(`${this.name} exited before listening`));
      });
    });
  }

  /** kill -9, as an operator's OOM killer or a power cut would. */
  async kill9(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null) return;
    this.killing = true;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    await this.kill9();
  }
}

/** A TCP proxy to the shop that cuts a share of the connections at once: dropped notifications. */
export async function droppingProxy(targetPort: number, dropShare: number): Promise<{ port: number; dropped: () => number; close: () => Promise<void> }> {
  let dropped = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    if (Math.random() < dropShare) {
      dropped += 1;
      client.destroy();
      return;
    }
    const upstream = net.connect(targetPort, '127.0.0.1');
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    dropped: () => dropped,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export async function answers(url: string, timeoutMs = 5_000): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}
