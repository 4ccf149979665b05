/**
 * Size of the <pay-button> script-tag file against its budget: 10 kB (10,000 bytes) gzip, Lit
 * included. It builds nothing: run `npm run build -w @paybutton/pay-button` first.
 *
 *   node --import tsx bench/element-size.ts
 *
 * Prints raw, gzip (zlib's default level 6, what compression middleware sends, and level 9) and
 * brotli sizes of dist/pay-button.js, the budget ratio, and for information dist/pay-va.js (the
 * <pay-va> add-on, which imports Lit from pay-button.js). Exits 1 when over budget.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const BUDGET_BYTES = 10_000;
const dist = fileURLToPath(new URL('../packages/pay-button/dist/', import.meta.url));

function sizes(file: string) {
  let code: Buffer;
  try {
    code = readFileSync(dist + file);
  } catch {
    console.error(`${dist + file} is missing: run \`npm run build -w @paybutton/pay-button\` first.`);
    process.exit(2);
  }
  return {
    raw: code.length,
    gzip: gzipSync(code).length,
    gzip9: gzipSync(code, { level: 9 }).length,
    brotli: brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

const kb = (n: number) => `${(n / 1000).toFixed(2)} kB`;
const main = sizes('pay-button.js');
const va = sizes('pay-va.js');
const ratio = main.gzip / BUDGET_BYTES;

console.log('dist/pay-button.js (script-tag file, Lit included)');
console.log(`  raw      ${main.raw} B  (${kb(main.raw)})`);
console.log(`  gzip     ${main.gzip} B  (${kb(main.gzip)}), level 9: ${main.gzip9} B`);
console.log(`  brotli   ${main.brotli} B  (${kb(main.brotli)})`);
console.log(`  budget   ${BUDGET_BYTES} B gzip -> ${(ratio * 100).toFixed(1)}% used (ratio ${ratio.toFixed(3)})`);
console.log('dist/pay-va.js (<pay-va> add-on, imports ./pay-button.js)');
console.log(`  raw ${va.raw} B, gzip ${va.gzip} B, brotli ${va.brotli} B`);
if (ratio > 1) {
  console.error(`over budget by ${main.gzip - BUDGET_BYTES} B`);
  process.exit(1);
}
