/**
 * @web/test-runner in Debian's Chromium (never a downloaded browser), TypeScript through esbuild,
 * and the plug-in's HTTP contract served by a test double (test/server/contract-double.mjs).
 * The root is the monorepo, so `lit` and `@tombolbayar/protocol` resolve from its node_modules.
 */
import { fileURLToPath } from 'node:url';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { playwrightLauncher } from '@web/test-runner-playwright';
import { contractDouble } from './test/server/contract-double.mjs';
import { findChromium } from './scripts/find-chromium.mjs';

const executablePath = findChromium();
if (!executablePath) throw new Error('Chromium not found: apt-get install -y --no-install-recommends chromium');

export default {
  rootDir: fileURLToPath(new URL('../../', import.meta.url)),
  files: [fileURLToPath(new URL('./test/**/*.test.ts', import.meta.url)), '!' + fileURLToPath(new URL('./test/node/**', import.meta.url))],
  nodeResolve: true,
  plugins: [esbuildPlugin({ ts: true, target: 'es2022' })],
  middleware: [contractDouble()],
  concurrency: 1,
  testFramework: { config: { timeout: 15000 } },
  // A file's tests wait on states, not clocks: on a loaded 2-core machine the largest file
  // (truth.test.ts, 4 widths x languages) takes longer than the default two minutes, not forever.
  testsFinishTimeout: 300_000,
  browsers: [
    playwrightLauncher({
      product: 'chromium',
      launchOptions: {
        executablePath,
        args: [
          '--headless=new',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
          '--disable-dev-shm-usage',
        ],
      },
    }),
  ],
};
