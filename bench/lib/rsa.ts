/** The crypto ceiling: RSA-1024 private-key operations per second with one reused KeyObject. */
import { constants, privateEncrypt } from 'node:crypto';
import { generateKeyPair, toPrivateKey } from '@paybutton/protocol/node';

export function rsaPrivateOpsPerSecond(durationMs = 2000): number {
  const key = toPrivateKey(generateKeyPair(1024).privateKey);
  const block = Buffer.alloc(117, 0x61);
  let operations = 0;
  const started = performance.now();
  while (performance.now() - started < durationMs) {
    for (let index = 0; index < 50; index++) privateEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, block);
    operations += 50;
  }
  return operations / ((performance.now() - started) / 1000);
}

/** How many private operations a signature of this length took (one per key-size block). */
export function privateOpsIn(signature: string, keyBytes = 128): number {
  return Buffer.from(signature, 'base64').length / keyBytes;
}
