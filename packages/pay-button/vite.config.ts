/**
 * Builds the script-tag files:
 * - `dist/pay-button.js` from `src/script-tag.ts`: one self-contained, minified ES module with Lit
 *   inside (no imports), defining `<pay-button>`; the size budget (10 kB gzip) applies to it;
 * - `dist/pay-va.js` from `src/script-tag-va.ts`: `<pay-va>`, importing Lit and the shared code
 *   from `./pay-button.js` rather than shipping a second copy.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { minifyLitTemplates } from './scripts/minify-templates.ts';

export default defineConfig({
  plugins: [minifyLitTemplates()],
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
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // Vite's ES library build keeps whitespace unless told otherwise.
    rolldownOptions: {
      // Lets the shared modules (Lit included) stay in pay-button.js, which pay-va.js imports,
      // instead of moving them to a third, shared chunk.
      preserveEntrySignatures: 'allow-extension',
      output: { minify: true, chunkFileNames: '[name].js' },
    },
  },
});
