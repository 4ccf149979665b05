/**
 * Pre-signing request bodies before a run, so that the load generator spends no CPU on RSA while
 * it measures. Signing uses the protocol's own `sign` (the only signer), in one forked process
 * per core so that tens of thousands of bodies take seconds, not minutes.
 */
import { fork } from 'node:child_process';
import { availableParallelism } from 'node:os';
import type { SignableFields } from '@tombolbayar/protocol/node';

const WORKER = new URL('./sign-worker.ts', import.meta.url);

/** JSON bodies: each field map with its `sign`, signed with `privateKeyPem`. */
export async function signBodies(fieldMaps: readonly SignableFields[], privateKeyPem: string): Promise<string[]> {
  const workers = Math.max(1, Math.min(availableParallelism(), Math.ceil(fieldMaps.length / 500)));
  const size = Math.ceil(fieldMaps.length / workers);
  const parts = await Promise.all(
    Array.from({ length: workers }, (_, index) => {
      const slice = fieldMaps.slice(index * size, (index + 1) * size);
      return new Promise<string[]>((resolve, reject) => {
        const child = fork(WORKER, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
        child.once('message', (bodies: string[]) => {
          resolve(bodies);
          child.disconnect();
        });
        child.once('error', reject);
        child.once('exit', (code) => {
          if (code !== 0) reject(new Error(`sign worker exited with ${code}`));
        });
        child.send({ fieldMaps: slice, privateKeyPem });
      });
    }),
  );
  return parts.flat();
}
