/**
 * Size of the <pay-button> script-tag file against its budget: 10,240 bytes gzip, Lit
 * included. It builds nothing: `npm run build -w @tombolbayar/pay-button` makes the file.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** 10,240 B since the attempt's requests and the Indonesian strings became chunks beside the file (issue 32): see packages/pay-button/test/node/size.test.ts. */
export const ELEMENT_BUDGET_BYTES = 10_240;
export const ELEMENT_DIST = fileURLToPath(new URL('../../packages/pay-button/dist/', import.meta.url));

export interface FileSizes {
  readonly raw: number;
  /** zlib's default level 6: what compression middleware sends. */
  readonly gzip: number;
  readonly gzip9: number;
  readonly brotli: number;
}

/**
 * The chunks the script-tag files load (`pay-button-<name>-<hash>.js`), as the build lists them in
 * dist/script-chunks.json; none when it has not been built.
 */
export function elementChunks(): string[] {
  try {
    return (JSON.parse(readFileSync(ELEMENT_DIST + 'script-chunks.json', 'utf8')) as { chunks: string[] }).chunks;
  } catch {
    return [];
  }
}

/** Sizes of a file of the element's dist/, or undefined when it has not been built. */
export function elementSizes(file: string): FileSizes | undefined {
  let code: Buffer;
  try {
    code = readFileSync(ELEMENT_DIST + file);
  } catch {
    return undefined;
  }
  return {
    raw: code.length,
    gzip: gzipSync(code).length,
    gzip9: gzipSync(code, { level: 9 }).length,
    brotli: brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}
