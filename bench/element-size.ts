/**
 * Size of the <pay-button> script-tag file against its budget: 10,240 bytes gzip, Lit
 * included. It builds nothing: run `npm run build -w @tombolbayar/pay-button` first.
 *
 *   node --import tsx bench/element-size.ts
 *
 * Prints raw, gzip (zlib's default level 6, what compression middleware sends, and level 9) and
 * brotli sizes of dist/pay-button.js, the budget ratio, and for information dist/pay-va.js (the
 * <pay-va> add-on, which imports Lit from pay-button.js) and the chunks they load (named in
 * dist/script-chunks.json). Exits 1 when over budget. `npm run bench` reports the same figure in
 * its table.
 */
import { ELEMENT_BUDGET_BYTES, ELEMENT_DIST, elementChunks, elementSizes } from './lib/element.ts';

const kb = (n: number) => `${(n / 1000).toFixed(2)} kB`;
const main = elementSizes('pay-button.js');
const va = elementSizes('pay-va.js');
if (!main) {
  console.error(`${ELEMENT_DIST}pay-button.js is missing: run \`npm run build -w @tombolbayar/pay-button\` first.`);
  process.exit(2);
}
const ratio = main.gzip / ELEMENT_BUDGET_BYTES;

console.log('dist/pay-button.js (script-tag file, Lit included)');
console.log(`  raw      ${main.raw} B  (${kb(main.raw)})`);
console.log(`  gzip     ${main.gzip} B  (${kb(main.gzip)}), level 9: ${main.gzip9} B`);
console.log(`  brotli   ${main.brotli} B  (${kb(main.brotli)})`);
console.log(`  budget   ${ELEMENT_BUDGET_BYTES} B gzip -> ${(ratio * 100).toFixed(1)}% used (ratio ${ratio.toFixed(3)})`);
if (va) {
  console.log('dist/pay-va.js (<pay-va> add-on, imports ./pay-button.js)');
  console.log(`  raw ${va.raw} B, gzip ${va.gzip} B, brotli ${va.brotli} B`);
}
for (const chunk of elementChunks()) {
  const sizes = elementSizes(chunk);
  // Loaded by pay-button.js when needed (see its vite.config.ts), outside its budget.
  if (sizes) console.log(`dist/${chunk} (chunk)\n  raw ${sizes.raw} B, gzip ${sizes.gzip} B, brotli ${sizes.brotli} B`);
}
if (ratio > 1) {
  console.error(`over budget by ${main.gzip - ELEMENT_BUDGET_BYTES} B`);
  process.exit(1);
}
