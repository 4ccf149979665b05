/**
 * The gateway the plug-in's tests talk to: a real `createGateway()` in sandbox mode, with the test
 * merchant, its store in `dir`, time sped up and notifications polled often. One set-up, so every
 * suite tests against the same gateway; `overrides` changes any option (a test that holds
 * notifications back, a production-mode gateway, a logger it reads).
 */
import { join } from 'node:path';
import { createGateway, type Gateway, type GatewayOptions, type SandboxGateway } from '@tombolbayar/gateway';
import { MERCHANT_CODE, merchantKeys, platformKeys } from './keys.ts';

/**
 * Gateway options registering the test merchant for FAILED and EXPIRED notifications too (a new
 * merchant gets PAID only, as the family sends): for a test about how those end an order.
 */
export function notifiedOfEveryKind(): Pick<GatewayOptions, 'merchants'> {
  return { merchants: [{ merchantCode: MERCHANT_CODE, publicKey: merchantKeys().publicKey, name: 'Toko Test', notify: ['paid', 'failed', 'expired'] }] };
}

export function testGateway(dir: string, overrides?: Partial<GatewayOptions> & { readonly sandbox?: true }): SandboxGateway;
export function testGateway(dir: string, overrides: Partial<GatewayOptions>): Gateway;
export function testGateway(dir: string, overrides: Partial<GatewayOptions> = {}): Gateway {
  return createGateway({
    database: { kind: 'sqlite', file: join(dir, 'gateway.sqlite') },
    platformPrivateKey: platformKeys().privateKey,
    merchants: [{ merchantCode: MERCHANT_CODE, publicKey: merchantKeys().publicKey, name: 'Toko Test' }],
    sandbox: true,
    timeScale: 0.001,
    logger: false,
    notifications: { pollIntervalMs: 50, timeoutMs: 5_000 },
    // The suites share two cores with each other and a browser: only the tests of shedding shed.
    maxEventLoopDelayMs: false,
    ...overrides,
  });
}
