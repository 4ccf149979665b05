/**
 * Counting RSA operations, the unit of CPU a signature spends: a count does not depend on how busy
 * the machine is, unlike a clock (issues 12 and 22). The counting wrappers call the real
 * `crypto.privateEncrypt` and `crypto.publicDecrypt` (every operation still happens) and are
 * republished to ES module imports by `syncBuiltinESMExports`, so the protocol's signer and
 * verifier, which `import { publicDecrypt } from 'node:crypto'`, are counted too.
 */
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';

export interface RsaCounts {
  readonly privateEncrypt: number;
  readonly publicDecrypt: number;
}

export interface RsaCounter {
  /** The operations since the last `take()` (or since counting began), and a fresh start. */
  take(): RsaCounts;
  /** Put the real functions back. */
  restore(): void;
}

/** Count every RSA operation of this process from now until `restore()`. */
export function countRsaOperations(): RsaCounter {
  const counts = { privateEncrypt: 0, publicDecrypt: 0 };
  const original = { privateEncrypt: crypto.privateEncrypt, publicDecrypt: crypto.publicDecrypt };
  crypto.privateEncrypt = (...args: Parameters<typeof crypto.privateEncrypt>) => {
    counts.privateEncrypt += 1;
    return original.privateEncrypt(...args);
  };
  crypto.publicDecrypt = (...args: Parameters<typeof crypto.publicDecrypt>) => {
    counts.publicDecrypt += 1;
    return original.publicDecrypt(...args);
  };
  syncBuiltinESMExports();
  return {
    take() {
      const taken = { ...counts };
      counts.privateEncrypt = 0;
      counts.publicDecrypt = 0;
      return taken;
    },
    restore() {
      Object.assign(crypto, original);
      syncBuiltinESMExports();
    },
  };
}

/** Run `work` and return the public-key operations it made (signature checks), with its result. */
export async function countPublicDecrypts<T>(work: () => T | Promise<T>): Promise<{ readonly count: number; readonly result: T }> {
  const counter = countRsaOperations();
  try {
    const result = await work();
    return { count: counter.take().publicDecrypt, result };
  } finally {
    counter.restore();
  }
}
