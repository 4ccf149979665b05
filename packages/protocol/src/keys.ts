/** RSA key pairs in the family's formats: merchant private keys PKCS#8 PEM, public keys SPKI PEM. */
import { generateKeyPairSync } from 'node:crypto';

export interface PemKeyPair {
  readonly privateKey: string;
  readonly publicKey: string;
}

/** A fresh key pair; 1024 bits is the family's norm (its 512-character `sign` limit assumes it). */
export function generateKeyPair(modulusLength = 1024): PemKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { privateKey, publicKey };
}
