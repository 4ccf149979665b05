/**
 * Builds the script-tag files:
 * - `dist/pay-button.js` from `src/script-tag.ts`: one self-contained, minified ES module with Lit
 *   inside (no imports), defining `<pay-button>`; the size budget (10 kB gzip) applies to it;
 * - `dist/pay-va.js` from `src/script-tag-va.ts`: `<pay-va>`, importing Lit and the shared code
 *   from `./pay-button.js` rather than shipping a second copy.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { minifyLitTemplates } from './scripts/minify-templates.ts';
import { shortLitErrors } from './scripts/short-lit-errors.ts';

/**
 * `src/components/pay-va/formats.ts` gets its own copy of `@tombolbayar/protocol/formats` (the same
 * file under another module id), so what only `<pay-va>` uses (`formatRupiah`, `parseDateTime`, the fee check)
 * is bundled into pay-va.js instead of the shared pay-button.js and its 10 kB budget.
 */
function ownFormatsForPayVa(): Plugin {
  return {
    name: 'tombolbayar:pay-va-formats',
    enforce: 'pre',
    async resolveId(source, importer) {
      if (source !== '@tombolbayar/protocol/formats' || !importer?.endsWith('/pay-va/formats.ts')) return null;
      const resolved = await this.resolve(source, importer, { skipSelf: true });
      return resolved && `${resolved.id}?pay-va`;
    },
  };
}

export default defineConfig({
  plugins: [ownFormatsForPayVa(), minifyLitTemplates(), shortLitErrors()],
  build: {
    lib: {
      entry: {
        'pay-button': fileURLToPath(new URL('./src/script-tag.ts', import.meta.url)),
        'pay-va': fileURLToPath(new URL('./src/script-tag-va.ts', import.meta.url)),
      },
      formats: ['es'],
      fileName: (_format, name) => `${name}.js`,
    },
    outDir: 'dist',
    // dist/ also holds the compiled modules (tsc, run first): keep them.
    emptyOutDir: false,
    target: 'es2022',
    sourcemap: false,
    // Vite's ES library build keeps whitespace unless told otherwise.
    rolldownOptions: {
      // Lets the shared modules (Lit included) stay in pay-button.js, which pay-va.js imports,
      // instead of moving them to a third, shared chunk.
      preserveEntrySignatures: 'allow-extension',
      // No comments: Lit's `/* @__PURE__ */` annotations alone cost 34 B gzip, and are of no use in
      // a file that is already bundled and minified.
      output: { minify: true, comments: false, chunkFileNames: '[name].js' },
    },
  },
});
