/**
 * The chaos run's moving parts: child servers it can kill with SIGKILL (an exit it did not ask for
 * is a crash), an HTTP proxy that loses the notifications of a share of the orders, and a probe.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import http from 'node:http';
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

/**
 * An HTTP proxy in front of the shop's `/notify` that loses every notification of a share of the
 * orders (chosen by the order number, so every resend of one is lost too): those orders reach
 * `onPaid` only through the sweep. Other notifications pass; a lost one is read whole and its
 * connection cut, as a network that ate the answer would. Counts notifications, not connections.
 */
export async function droppingProxy(targetPort: number, lostShare: number): Promise<NotificationDropper> {
  let dropped = 0;
  const lostOrders = new Set<string>();
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const orderNum = new URLSearchParams(body.toString('utf8')).get('orderNum') ?? '';
      if (req.url?.endsWith('/notify') && orderNum && loses(orderNum, lostShare)) {
        dropped += 1;
        lostOrders.add(orderNum);
        req.socket.destroy();
        return;
      }
      const upstream = http.request({ host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => req.socket.destroy());
      upstream.end(body);
    });
    req.on('error', () => {});
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    dropped: () => dropped,
    lostOrders: () => lostOrders,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface NotificationDropper {
  readonly port: number;
  /** Notifications lost so far (resends included). */
  dropped(): number;
  /** The orders whose notifications are all lost (those seen so far). */
  lostOrders(): ReadonlySet<string>;
  close(): Promise<void>;
}

/** Whether every notification of `orderNum` is lost (pure: the same answer for each resend). */
export function loses(orderNum: string, share: number): boolean {
  return createHash('sha256').update(orderNum).digest().readUInt32BE(0) / 2 ** 32 < share;
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
