/**
 * Builds the script-tag files:
 * - `dist/pay-button.js` from `src/script-tag.ts`: one minified ES module with Lit inside (no static
 *   imports), defining `<pay-button>`; the size budget (10,240 B gzip) applies to it. It loads two
 *   chunks beside it when needed: `pay-button-attempt-io-<hash>.js` (the attempt's requests, after
 *   the first render) and `pay-button-strings-id-<hash>.js` (Indonesian, for an element that speaks
 *   it), named by their content and listed in `dist/script-chunks.json` (`scripts/script-chunks.ts`);
 * - `dist/pay-va.js` from `src/script-tag-va.ts`: `<pay-va>`, importing Lit and the shared code
 *   from `./pay-button.js` rather than shipping a second copy.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { minifyLitTemplates } from './scripts/minify-templates.ts';
import { scriptChunks } from './scripts/script-chunks.ts';
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
  plugins: [ownFormatsForPayVa(), minifyLitTemplates(), shortLitErrors(), scriptChunks()],
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
      output: {
        minify: true,
        comments: false,
        // The chunks pay-button.js loads when needed (`pay-button-strings-id-<hash>.js`,
        // `pay-button-attempt-io-<hash>.js`), served beside it by the plug-in: a new content is a new
        // name, so a chunk can be cached for good and never meets an entry it was not built with.
        chunkFileNames: 'pay-button-[name]-[hash].js',
        codeSplitting: {
          // Only the modules named below: what they import from pay-button.js stays there.
          includeDependenciesRecursively: false,
          groups: [
            // What an attempt does over the network is one chunk, which pay-va.js imports too,
            // rather than modules pay-va.js would otherwise hold for pay-button.js to import.
            { name: 'attempt-io', test: /\/pay-button\/src\/(internal\/(api|poll|order-outcome|attempt-store)|components\/pay-button\/(attempt-io|order-check|placeholder))\.ts$|\/protocol\/dist\/formats\.js$/ },
          ],
        },
      },
    },
  },
});
