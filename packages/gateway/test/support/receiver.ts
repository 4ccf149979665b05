/**
 * A merchant's notification endpoint for tests: records every POST (form fields parsed) and
 * answers from a script (status and body per call, then a default).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  readonly fields: Record<string, string>;
  readonly contentType: string | undefined;
  readonly at: number;
}

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** Resolves when at least `count` notifications arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  /** Change the answers from now on. */
  answer(next: (index: number) => { status: number; body: string }): void;
  close(): Promise<void>;
}

export const ALWAYS_SUCCESS = () => ({ status: 200, body: 'SUCCESS' });

export async function startReceiver(script: (index: number) => { status: number; body: string } = ALWAYS_SUCCESS): Promise<Receiver> {
  const received: Received[] = [];
  let respond = script;
  const waiters: { count: number; resolve: () => void }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const fields = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      const index = received.length;
      received.push({ fields, contentType: req.headers['content-type'], at: Date.now() });
      const { status, body } = respond(index);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
      for (const waiter of waiters.filter((w) => received.length >= w.count)) waiter.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/notify`,
    received,
    waitFor(count, timeoutMs = 20_000) {
      if (received.length >= count) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${received.length} of ${count} notifications arrived`)), timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(received);
          },
        });
      });
    },
    answer(next) {
      respond = next;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Poll `check` until it returns a value (not undefined): the suites' one state wait. */
export { eventually } from '@tombolbayar/test-support/eventually';
