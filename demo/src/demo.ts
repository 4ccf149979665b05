/**
 * Starts the whole demo in one process: the sandbox gateway on its own port (so the hosted page
 * is cross-origin, as in reality) and the shop that mounts the plug-in. Used by `npm start`, by
 * `npm run dev` (inside Vite's server) and by the end-to-end tests (on free ports, in a temp dir).
 */
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { currentOrLegacyPath } from '@tombolbayar/store-kit';
import { createGateway, type Gateway } from '@tombolbayar/gateway';
import type { Express } from 'express';
import { loadOrCreateKeyPair } from './keys.ts';
import { createShop, type Shop } from './shop.ts';

export const DEMO_MERCHANT_CODE = 'TOKOKOPI01';
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface DemoOptions {
  /** Default `<repo>/.tombolbayar` (or TOMBOLBAYAR_DATA_DIR). */
  readonly dataDir?: string;
  readonly host?: string;
  /** Port of the shop; 0 for any free one; null to not listen (Vite mounts `shopApp`). */
  readonly shopPort?: number | null;
  /** Port of the gateway; 0 for any free one. */
  readonly gatewayPort?: number;
  /** Shop origin when it does not listen itself (npm run dev). */
  readonly shopUrl?: string;
  /** Notification retry delays are multiplied by this (the sandbox default shortens a day to minutes). */
  readonly timeScale?: number;
  readonly failFirstNotifications?: number;
  readonly log?: (line: string) => void;
}

export interface Demo {
  readonly shopUrl: string;
  readonly gatewayUrl: string;
  readonly shopApp: Express;
  readonly shop: Shop;
  readonly gateway: Gateway;
  close(): Promise<void>;
}

/**
 * The demo's sandbox gateway, keeping its orders in `dataDir` (not listening yet). The e2e tests
 * also use it to bring a stopped gateway back on its port, with the orders it had.
 */
export async function createDemoGateway(dataDir: string, timeScale = 0.01): Promise<Gateway> {
  const merchantKeys = loadOrCreateKeyPair(`${dataDir}/keys`, 'merchant');
  const platformKeys = loadOrCreateKeyPair(`${dataDir}/keys`, 'platform');
  return createGateway({
    dataDir: `${dataDir}/gateway`,
    platformPrivateKey: platformKeys.privateKey,
    merchants: [{ merchantCode: DEMO_MERCHANT_CODE, publicKey: merchantKeys.publicKey, name: 'Toko Kopi Nusantara',
      // The plug-in handles every kind (it never depends on them: its sweep and status queries cover
      // failed and expired orders), so the demo's list shows an ended order as soon as it ends.
      notify: ['paid', 'failed', 'expired'] }],
    sandbox: true,
    timeScale,
    logger: false,
    // As for the demo's shop: the laptop's other work is not overload (see shop.ts).
    maxEventLoopDelayMs: false,
  });
}

/**
 * What `npm start` prints once both servers listen: where the shop, the gateway, its dashboard and
 * both processes' metrics are (each `GET /metrics` answers this machine only: loopback without
 * forwarding headers), and how to pay.
 */
export function readyMessage(demo: Pick<Demo, 'shopUrl' | 'gatewayUrl'>): string {
  const { shopUrl, gatewayUrl } = demo;
  return (
    `\n  Shop:       ${shopUrl}\n  Gateway:    ${gatewayUrl} (sandbox)\n  Dashboard:  ${gatewayUrl}/sandbox/dashboard\n` +
    `  Metrics:    ${shopUrl}/metrics and ${gatewayUrl}/metrics (this machine only)\n\n` +
    `  Open the shop, add a product, pay, and press "Simulate payment" on the payment page;\n` +
    `  or pay a VA number the shop shows from the dashboard, or: npx tombolbayar-gateway pay NUMBER --url ${gatewayUrl}\n  Ctrl-C stops both.\n`
  );
}

export async function startDemo(options: DemoOptions = {}): Promise<Demo> {
  const host = options.host ?? '127.0.0.1';
  const dataDir = options.dataDir ?? process.env.TOMBOLBAYAR_DATA_DIR ?? currentOrLegacyPath(`${REPO_ROOT}.tombolbayar`, `${REPO_ROOT}.paybutton`, "the demo's data");
  const log = options.log ?? ((line: string) => console.log(line));
  const merchantKeys = loadOrCreateKeyPair(`${dataDir}/keys`, 'merchant');
  if (merchantKeys.created) log(`Generated the demo merchant's key pair in ${dataDir}/keys`);

  const gateway = await createDemoGateway(dataDir, options.timeScale);
  const gatewayAddress = await gateway.listen(options.gatewayPort ?? 4010, host);

  // The plug-in needs the shop's public origin up front; with port 0 it is known only once the
  // socket is bound, so bind first and attach the app afterwards.
  const shopPort = options.shopPort === undefined ? 3000 : options.shopPort;
  let shopServer: Server | undefined;
  let shopUrl = options.shopUrl ?? `http://${host}:5173`;
  if (shopPort !== null) {
    // A slow or idle client holds no connection for long (Node's defaults wait 300 s for a request).
    shopServer = createServer({ headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000 });
    shopServer.listen(shopPort, host);
    await once(shopServer, 'listening');
    const address = shopServer.address();
    if (address && typeof address === 'object') shopUrl = `http://${host}:${address.port}`;
  }
  const shop = createShop({
    gatewayUrl: gatewayAddress.url,
    merchantCode: DEMO_MERCHANT_CODE,
    privateKey: merchantKeys.privateKey,
    platformPublicKey: gateway.platformPublicKey,
    publicUrl: shopUrl,
    dataDir,
    staticDir: shopPort === null ? null : fileURLToPath(new URL('../dist', import.meta.url)),
    failFirstNotifications: options.failFirstNotifications ?? 0,
  });
  shopServer?.on('request', shop.app);

  return {
    shopUrl,
    gatewayUrl: gatewayAddress.url,
    shopApp: shop.app,
    shop,
    gateway,
    async close() {
      if (shopServer) {
        shopServer.closeAllConnections();
        await new Promise<void>((resolve) => shopServer!.close(() => resolve()));
      }
      await shop.close();
      await gateway.close();
    },
  };
}
