/**
 * The crypto ceiling: RSA-1024 operations per second on one core with one reused KeyObject, the
 * way `@tombolbayar/protocol` signs (PKCS#1 v1.5 private "encrypt" of a 117-byte chunk) and
 * verifies (public "decrypt" of a 128-byte block). Also the cost of parsing the PEM on every call,
 * which the protocol's key cache avoids.
 */
import { constants, createPrivateKey, createPublicKey, privateEncrypt, publicDecrypt } from 'node:crypto';
import { generateKeyPair, toPrivateKey } from '@tombolbayar/protocol/node';

export interface RsaRates {
  /** Private-key operations (one signature block) per second. */
  readonly privatePerSecond: number;
  /** Public-key operations (one verified block) per second. */
  readonly publicPerSecond: number;
  /** Private operations per second when the PEM is parsed on every call. */
  readonly privateWithPemParsePerSecond: number;
}

function rate(durationMs: number, operation: () => void): number {
  let operations = 0;
  const started = performance.now();
  while (performance.now() - started < durationMs) {
    for (let index = 0; index < 20; index++) operation();
    operations += 20;
  }
  return operations / ((performance.now() - started) / 1000);
}

export function measureRsa(durationMs = 2000): RsaRates {
  const pem = generateKeyPair(1024).privateKey;
  const key = toPrivateKey(pem);
  const publicKey = createPublicKey(key);
  const block = Buffer.alloc(117, 0x61);
  const signed = privateEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, block);
  rate(200, () => privateEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, block)); // warm up
  return {
    privatePerSecond: rate(durationMs, () => privateEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, block)),
    publicPerSecond: rate(durationMs / 2, () => publicDecrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, signed)),
    privateWithPemParsePerSecond: rate(durationMs / 4, () => privateEncrypt({ key: createPrivateKey(pem), padding: constants.RSA_PKCS1_PADDING }, block)),
  };
}

/** How many private operations a signature of this length took (one per key-size block). */
export function privateOpsIn(signature: string, keyBytes = 128): number {
  return Buffer.from(signature, 'base64').length / keyBytes;
}
