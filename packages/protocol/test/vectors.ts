/**
 * The shared known-answer vectors. The file lives in `../shared/spec/` beside the repository (as
 * CI lays it out); a verbatim copy in `fixtures/` keeps the tests working in a lone clone.
 */
import { existsSync, readFileSync } from 'node:fs';
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

export const SHARED_VECTORS_PATH = fileURLToPath(new URL('../../../../shared/spec/signature-vectors.json', import.meta.url));
export const FIXTURE_VECTORS_PATH = fileURLToPath(new URL('./fixtures/signature-vectors.json', import.meta.url));

export function loadVectors(path = existsSync(SHARED_VECTORS_PATH) ? SHARED_VECTORS_PATH : FIXTURE_VECTORS_PATH): VectorFile {
  return JSON.parse(readFileSync(path, 'utf8')) as VectorFile;
}
