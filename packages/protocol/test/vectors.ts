/**
 * The known-answer vectors of the BDPay-family signature (`fixtures/signature-vectors.json`): two
 * key pairs and, per vector, the fields, the canonical string and the exact signature. They are
 * kept in the repository so a clone tests against them with nothing beside it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Vector {
  id: string;
  signedBy: 'merchant' | 'platform';
  signatureField: 'sign' | 'platSign';
  fields: Record<string, string | null>;
  canonical: string;
  sign?: string;
  platSign?: string;
  signLength: number;
}

export interface VectorFile {
  merchant: { privateKey: string; publicKey: string };
  platform: { privateKey: string; publicKey: string };
  vectors: Vector[];
}

export const VECTORS_PATH = fileURLToPath(new URL('./fixtures/signature-vectors.json', import.meta.url));

export function loadVectors(path = VECTORS_PATH): VectorFile {
  return JSON.parse(readFileSync(path, 'utf8')) as VectorFile;
}
