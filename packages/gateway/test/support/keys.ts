/** Key pairs for tests: generated once per test process (RSA generation is the slow part). */
import { generateKeyPair, type PemKeyPair } from '@tombolbayar/protocol/node';

let platform: PemKeyPair | undefined;
const merchants = new Map<string, PemKeyPair>();

export function platformKeys(): PemKeyPair {
  return (platform ??= generateKeyPair());
}

/** A key pair per label, so two merchants in one test have different keys. */
export function merchantKeys(label = 'default'): PemKeyPair {
  let pair = merchants.get(label);
  if (!pair) {
    pair = generateKeyPair();
    merchants.set(label, pair);
  }
  return pair;
}
