/**
 * A merchant's notification endpoint for the drain benchmark, on 127.0.0.1 in this process: it
 * verifies every `platSign` with the platform public key, counts deliveries per `platOrderNum`
 * (so a lost or a duplicated notification shows), and acknowledges with `SUCCESS`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toPublicKey, verify } from '@tombolbayar/protocol/node';

export interface Receiver {
  readonly url: string;
  /** Deliveries per platOrderNum. */
  readonly counts: ReadonlyMap<string, number>;
  /** `signBlocks`: RSA blocks of all the platSigns received (128 bytes each). */
  readonly stats: { received: number; badSignature: number; signBlocks: number; firstAt: number; lastAt: number };
  /** Resolves when `distinct` orders were received, or after `timeoutMs` (then with false). */
  waitFor(distinct: number, timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export async function startReceiver(platformPublicKey: string): Promise<Receiver> {
  const key = toPublicKey(platformPublicKey);
  const counts = new Map<string, number>();
  const stats = { received: 0, badSignature: 0, signBlocks: 0, firstAt: 0, lastAt: 0 };
  let waiter: { distinct: number; resolve: (done: boolean) => void } | undefined;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const fields = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      const now = performance.now();
      if (stats.received === 0) stats.firstAt = now;
      stats.lastAt = now;
      stats.received++;
      if (!verify(fields, fields.platSign, key)) stats.badSignature++;
      stats.signBlocks += Math.floor(((fields.platSign ?? '').length * 3) / 4 / 128);
      const platOrderNum = fields.platOrderNum ?? '';
      counts.set(platOrderNum, (counts.get(platOrderNum) ?? 0) + 1);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('SUCCESS');
      if (waiter && counts.size >= waiter.distinct) {
        waiter.resolve(true);
        waiter = undefined;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/pay/notify`,
    counts,
    stats,
    waitFor(distinct, timeoutMs) {
      if (counts.size >= distinct) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiter = undefined;
          resolve(false);
        }, timeoutMs);
        waiter = {
          distinct,
          resolve: (done) => {
            clearTimeout(timer);
            resolve(done);
          },
        };
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
