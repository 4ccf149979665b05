/**
 * Vite config of the demo shop's browser code (demo/web). `npm start` builds it into demo/dist and
 * the shop server serves that; `npm run dev` serves demo/web with hot reload and runs the shop
 * server and the sandbox gateway inside the dev server, so one command gives the whole flow.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const root = fileURLToPath(new URL('./demo/web', import.meta.url));

/** Starts the demo's gateway and merchant server and mounts the merchant app in Vite's server. */
function demoBackend(): Plugin {
  return {
    name: 'paybutton-demo-backend',
    apply: 'serve',
    async configureServer(server) {
      const { startDemo } = await import('./demo/src/demo.ts');
      const gatewayPort = Number(process.env.GATEWAY_PORT ?? 4010);
      const demo = await startDemo({ shopPort: null, gatewayPort, log: (line) => server.config.logger.info(line) });
      server.middlewares.use(demo.shopApp);
      server.httpServer?.once('close', () => void demo.close());
    },
  };
}

export default defineConfig({
  root,
  plugins: [demoBackend()],
  server: { host: '127.0.0.1', port: 5173, strictPort: true },
  build: {
    outDir: fileURLToPath(new URL('./demo/dist', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
  },
});
