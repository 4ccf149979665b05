/**
 * A running gateway for one test: fresh store, one registered merchant, listening on 127.0.0.1.
 * `stop()` closes it and removes its store.
 *
 * Tests never leave the machine (issue 12): the gateway's delivery resolves through
 * `loopbackOnlyLookup` (a fake resolver that can only ever name 127.0.0.0/8 or ::1; a test's own
 * fake zone or resolver is wrapped by it, never used alone), and the process-wide guard of
 * `@tombolbayar/test-support/network` stops any socket from connecting beyond loopback.
 */
import type { LookupFunction } from 'node:net';
import { verify } from '@tombolbayar/protocol/node';
import { installLoopbackGuard, loopbackOnlyLookup } from '@tombolbayar/test-support/network';
import { createGateway, type GatewayOptions, type NotificationKind, type SandboxGateway } from '../../src/index.ts';
import { merchantClient, type MerchantIdentity } from './client.ts';
import { freshStore, type EngineName, type FreshStore } from './engines.ts';
import { merchantKeys, platformKeys } from './keys.ts';

export const MERCHANT_CODE = 'M-TEST-001';

export interface Harness {
  /**
   * A sandbox gateway, unless a test passes `sandbox: false`: a production gateway has no
   * simulations, so such a test composes them itself with `simulationsFor(gateway)` (src/internal.ts).
   */
  readonly gateway: SandboxGateway;
  readonly url: string;
  readonly store: FreshStore;
  readonly merchant: MerchantIdentity;
  readonly client: ReturnType<typeof merchantClient>;
  /** True when `platSign` verifies over the other fields with the platform public key. */
  verifies(body: Record<string, string>): boolean;
  stop(): Promise<void>;
}

/**
 * Options registering the harness's merchant with these notification kinds (a new merchant is
 * notified of `paid` only): for a test about FAILED or EXPIRED notifications.
 */
export function notifiedOf(notify: readonly NotificationKind[]): Pick<GatewayOptions, 'merchants'> {
  return { merchants: [{ merchantCode: MERCHANT_CODE, publicKey: merchantKeys().publicKey, name: 'Toko Test', notify }] };
}

/** The notification options a test passes, with its lookup (if any) confined to loopback. */
export function confinedNotifications(notifications: GatewayOptions['notifications'] = {}): NonNullable<GatewayOptions['notifications']> {
  const inner: LookupFunction | undefined = notifications.lookup;
  return { pollIntervalMs: 50, ...notifications, lookup: loopbackOnlyLookup(inner ?? {}) };
}

export async function startHarness(
  engine: EngineName,
  options: Partial<GatewayOptions> = {},
  store: FreshStore = freshStore(engine),
): Promise<Harness> {
  installLoopbackGuard();
  const keys = merchantKeys();
  const gateway = createGateway({
    database: store.database,
    dataDir: store.dataDir,
    platformPrivateKey: platformKeys().privateKey,
    merchants: [{ merchantCode: MERCHANT_CODE, publicKey: keys.publicKey, name: 'Toko Test' }],
    sandbox: true,
    logger: false,
    // The suites share two cores with each other and a browser: only the tests of shedding shed.
    maxEventLoopDelayMs: false,
    ...options,
    notifications: confinedNotifications(options.notifications),
  });
  const { url } = await gateway.listen();
  const sandboxGateway = gateway as SandboxGateway;
  const merchant = { merchantCode: MERCHANT_CODE, privateKey: keys.privateKey };
  return {
    gateway: sandboxGateway,
    url,
    store,
    merchant,
    client: merchantClient(url, merchant),
    verifies(body) {
      const { platSign, ...fields } = body;
      return verify(fields, platSign, gateway.platformPublicKey);
    },
    async stop() {
      await gateway.close();
      await store.cleanup();
    },
  };
}
