/**
 * Vite config of the demo shop's browser code (demo/web). `npm start` builds it into demo/dist and
 * the shop server serves that; `npm run dev` serves demo/web with hot reload and runs the shop
 * server and the sandbox gateway inside the dev server, so one command gives the whole flow
 * (http://127.0.0.1:5173, gateway on :4010; PORT and GATEWAY_PORT override, as for `npm start`).
 */
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import { defineConfig, type Plugin } from 'vite';

const root = fileURLToPath(new URL('./demo/web', import.meta.url));

/** Starts the demo's gateway and merchant server and mounts the merchant app in Vite's server. */
function demoBackend(): Plugin {
  return {
    name: 'tombolbayar-demo-backend',
    apply: 'serve',
    async configureServer(server) {
      // Not `import()`: the config was loaded by Vite's module runner, which is closed by now
      // ("Vite module runner has been closed"). tsx loads the demo's TypeScript in plain Node.
      const { startDemo } = (await tsImport('./demo/src/demo.ts', import.meta.url)) as typeof import('./demo/src/demo.ts');
      const gatewayPort = Number(process.env.GATEWAY_PORT ?? 4010);
      // The shop's public origin is Vite's own (`--port` included), so notify and return URLs reach it.
      const { host, port } = server.config.server;
      const shopUrl = `http://${typeof host === 'string' ? host : '127.0.0.1'}:${port}`;
      const demo = await startDemo({ shopPort: null, gatewayPort, shopUrl, log: (line) => server.config.logger.info(line) });
      server.middlewares.use(demo.shopApp);
      server.httpServer?.once('close', () => void demo.close());
    },
  };
}

export default defineConfig({
  root,
  plugins: [demoBackend()],
  // The shop's port, as for `npm start`: PORT overrides (GATEWAY_PORT the gateway's, above).
  server: { host: '127.0.0.1', port: Number(process.env.PORT || 5173), strictPort: true },
  build: {
    outDir: fileURLToPath(new URL('./demo/dist', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
  },
});
