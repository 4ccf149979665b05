/**
 * The demo's keys, generated on first start and kept in the data directory: the merchant's key
 * pair (the gateway learns its public half) and the gateway's platform key (the shop learns its
 * public half). File modes keep private keys readable by their owner only.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPair, type PemKeyPair } from '@tombolbayar/protocol/node';

export function loadOrCreateKeyPair(dir: string, name: string): PemKeyPair & { created: boolean } {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const privateFile = join(dir, `${name}-private.pem`);
  const publicFile = join(dir, `${name}-public.pem`);
  if (existsSync(privateFile) && existsSync(publicFile)) {
    return { privateKey: readFileSync(privateFile, 'utf8'), publicKey: readFileSync(publicFile, 'utf8'), created: false };
  }
  const pair = generateKeyPair();
  writeFileSync(privateFile, pair.privateKey, { mode: 0o600 });
  writeFileSync(publicFile, pair.publicKey, { mode: 0o644 });
  return { ...pair, created: true };
}
