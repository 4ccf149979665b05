/**
 * Counting RSA public-key operations, the unit of CPU a signature check spends: a count does not
 * depend on how busy the machine is, unlike a clock (issue 22). It wraps the real
 * `crypto.publicDecrypt` (every call still goes through) and republishes it to ES module imports,
 * so code that did `import { publicDecrypt } from 'node:crypto'` is counted too.
 */
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';

/** Run `work` and return how many `publicDecrypt` calls it made, with its result. */
export async function countPublicDecrypts<T>(work: () => T | Promise<T>): Promise<{ readonly count: number; readonly result: T }> {
  const original = crypto.publicDecrypt;
  let count = 0;
  crypto.publicDecrypt = ((...args: Parameters<typeof original>) => {
    count += 1;
    return original(...args);
  }) as typeof original;
  syncBuiltinESMExports();
  try {
    const result = await work();
    return { count, result };
  } finally {
    crypto.publicDecrypt = original;
    syncBuiltinESMExports();
  }
}
