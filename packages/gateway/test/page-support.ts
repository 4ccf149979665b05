/**
 * Test support for the hosted page's tests: an in-memory `PaymentPageDeps` (test scaffolding for
 * the route tests of the page alone), the real gateway with a merchant and its shop (for the
 * browser tests), a server starter and the Chromium launcher.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gatewayOrigins } from '../src/page/csp.ts';
import express from 'express';
import { createPaymentLinkResponseSchema, formatDateTime, parseWith, verify, generateKeyPair, sign, type PemKeyPair } from '@tombolbayar/protocol/node';
import { METHODS, type MethodCode } from '@tombolbayar/protocol';
import { createGateway, type SandboxGateway } from '../src/index.ts';
import { chromium, type Browser } from 'playwright-core';
import { createPaymentPageRouter, type PaymentPageOptions } from '../src/page/index.ts';
import { NO_BRAND, PageActionError, type PageOrder, type PaymentPageDeps } from '../src/page/deps.ts';
import { installLoopbackGuard } from '@tombolbayar/test-support/network';
import { confinedNotifications } from './support/harness.ts';

function tlv(id: string, value: string): string {
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}

/** CRC-16/CCITT-FALSE, as EMVCo QR payloads end with (tag 63). */
function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/** A dynamic QRIS-style EMVCo payload for an amount, used by the in-memory deps. */
export function sampleQrisPayload(amount: number, reference: string): string {
  const body =
    tlv('00', '01') +
    tlv('01', '12') +
    tlv('26', tlv('00', 'ID.CO.QRIS.WWW') + tlv('01', '936009150000000001') + tlv('02', 'PB0000001') + tlv('03', 'UMI')) +
    tlv('52', '5499') +
    tlv('53', '360') +
    tlv('54', String(amount)) +
    tlv('58', 'ID') +
    tlv('59', 'TOKO BUDI') +
    tlv('60', 'JAKARTA') +
    tlv('62', tlv('05', reference)) +
    '6304';
  return body + crc16(body);
}

export interface OrderSeed extends Partial<PageOrder> {
  readonly platOrderNum: string;
}

const FEES: Record<string, number> = { 'virtual-account': 4000, qr: 1078, 'e-wallet': 2310, retail: 5000 };

/** In-memory orders with the transitions of the seam; the clock can be moved like the sandbox's. */
export class MemoryPageDeps implements PaymentPageDeps {
  readonly orders = new Map<string, PageOrder>();
  clock = Date.UTC(2026, 10, 22, 5, 0, 0);
  private serial = 0;

  add(seed: OrderSeed): PageOrder {
    const createdAt = seed.createdAt ?? this.clock;
    const order: PageOrder = {
      orderNum: `ORDER-${seed.platOrderNum}`,
      merchantCode: 'M0000001',
      merchantName: 'Toko Budi',
      brand: NO_BRAND,
      methodChangeable: true,
      status: 'PENDING',
      method: null,
      vaNumber: null,
      payMoney: 150000,
      payFee: null,
      productDetail: 'Kopi Gayo 250 g',
      name: 'Siti Rahayu',
      redirectUrl: null,
      createdAt,
      expiresAt: createdAt + 60 * 60_000,
      paidAt: null,
      ...seed,
    };
    const withMethod = order.method && order.vaNumber === null ? this.assign(order, order.method) : order;
    this.orders.set(order.platOrderNum, withMethod);
    return withMethod;
  }

  private assign(order: PageOrder, method: MethodCode): PageOrder {
    this.serial += 1;
    const kind = METHODS[method].kind;
    const vaNumber =
      kind === 'qr' ? sampleQrisPayload(order.payMoney + (FEES[kind] ?? 0), order.platOrderNum) : kind === 'retail' ? `ALF${String(this.serial).padStart(9, '0')}` : `8808${String(1_000_000_000 + this.serial)}`;
    return { ...order, method, vaNumber, payFee: FEES[kind] ?? 0 };
  }

  private current(platOrderNum: string): PageOrder {
    const order = this.orders.get(platOrderNum);
    if (!order) throw new PageActionError('not-found', `no order ${platOrderNum}`);
    if (order.status === 'PENDING' && this.clock >= order.expiresAt) {
      const expired: PageOrder = { ...order, status: 'EXPIRED' };
      this.orders.set(platOrderNum, expired);
      return expired;
    }
    return order;
  }

  private transition(platOrderNum: string, change: (order: PageOrder) => PageOrder): PageOrder {
    const order = this.current(platOrderNum);
    if (order.status !== 'PENDING') throw new PageActionError('not-pending', `order ${platOrderNum} is ${order.status}`);
    const next = change(order);
    this.orders.set(platOrderNum, next);
    return next;
  }

  async findOrder(platOrderNum: string): Promise<PageOrder | undefined> {
    return this.orders.has(platOrderNum) ? this.current(platOrderNum) : undefined;
  }

  async chooseMethod(platOrderNum: string, method: MethodCode): Promise<PageOrder> {
    return this.transition(platOrderNum, (order) => {
      if (order.method !== null) throw new PageActionError('method-already-chosen', 'method already chosen');
      if (method === 'VA_BNC' && order.payMoney < 10_000) throw new PageActionError('method-not-allowed', 'below minimum');
      return this.assign(order, method);
    });
  }

  async changeMethod(platOrderNum: string, current: MethodCode): Promise<PageOrder> {
    return this.transition(platOrderNum, (order) => {
      if (!order.methodChangeable) throw new PageActionError('method-locked', 'method set by the shop');
      if (order.method !== current) throw new PageActionError('method-changed', 'method changed meanwhile');
      return { ...order, method: null, vaNumber: null, payFee: null };
    });
  }

  now(): number {
    return this.clock;
  }

  readonly sandbox = {
    pay: (platOrderNum: string) =>
      Promise.resolve(this.transition(platOrderNum, (order) => ({ ...order, status: 'PAID', paidAt: this.clock }))),
    expire: (platOrderNum: string) =>
      Promise.resolve(this.transition(platOrderNum, (order) => ({ ...order, status: 'EXPIRED' }))),
    fail: (platOrderNum: string) =>
      Promise.resolve(this.transition(platOrderNum, (order) => ({ ...order, status: 'FAILED' }))),
  };
}

export interface RunningServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 with an ephemeral port. */
export async function listen(app: express.Express): Promise<RunningServer> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  // A page app learns where it is served once it listens (as the gateway does from its listen address).
  (app.locals.ownOrigins as string[] | undefined)?.push(...gatewayOrigins(undefined, `http://127.0.0.1:${port}`));
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An app serving only the page router, over in-memory orders. */
export function pageApp(deps: PaymentPageDeps, options: { sandbox: boolean; defaultLocale?: 'en' | 'id'; redirectDelaySeconds?: number; probeShop?: PaymentPageOptions['probeShop'] }): express.Express {
  const app = express();
  const ownOrigins: string[] = [];
  app.locals.ownOrigins = ownOrigins;
  app.use(createPaymentPageRouter(deps, { ...options, ownOrigins: () => ownOrigins, onError: () => undefined }));
  return app;
}

export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

let platformKeys: PemKeyPair | undefined;
const merchantKeyPairs = new Map<string, PemKeyPair>();

function keysFor(label: string): PemKeyPair {
  let pair = merchantKeyPairs.get(label);
  if (!pair) merchantKeyPairs.set(label, (pair = generateKeyPair()));
  return pair;
}

export interface LinkRequest {
  /** A method code or alias; null lets the customer pick on the page. */
  readonly method?: string | null;
  readonly payMoney?: string;
  readonly productDetail?: string;
  readonly name?: string;
  /** Default: the shop's return page; null for none. */
  readonly redirectUrl?: string | null;
  readonly merchantCode?: string;
}

export interface PaymentLink {
  readonly url: string;
  readonly platOrderNum: string;
  readonly orderNum: string;
}

/** The real gateway (SQLite in a fresh directory, sandbox mode) and a merchant shop to return to. */
export interface LiveGateway {
  readonly gateway: SandboxGateway;
  readonly url: string;
  /** The shop: `GET /return` is the redirectUrl of links, `POST /notify` acknowledges notifications. */
  readonly shopUrl: string;
  createLink(request?: LinkRequest): Promise<PaymentLink>;
  close(): Promise<void>;
}

export const MERCHANT = { merchantCode: 'M-PAGE-0001', name: 'Toko Test' } as const;
/** A second merchant whose display name is an XSS payload. */
export const HOSTILE_MERCHANT = { merchantCode: 'M-PAGE-XSS1', name: '<script>alert("merchant")</script>' } as const;

let serial = 0;

export async function startLiveGateway(): Promise<LiveGateway> {
  installLoopbackGuard();
  const dataDir = mkdtempSync(join(tmpdir(), 'pb-page-'));
  platformKeys ??= generateKeyPair();
  const shop = express();
  shop.get('/return', (req, res) => {
    res.type('html').send(`<!doctype html><html lang="en"><title>Shop</title><h1>Back at the shop</h1>`);
  });
  shop.post('/notify', (_req, res) => res.type('text').send('SUCCESS'));
  // The shop's logo, for a branding whose logo is a URL: a 1 × 1 PNG of our own.
  shop.get('/logo.png', (_req, res) => {
    res.type('png').send(Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64'));
  });
  const shopServer = await listen(shop);
  const gateway = createGateway({
    database: { kind: 'sqlite', file: join(dataDir, 'gateway.sqlite') },
    dataDir,
    platformPrivateKey: platformKeys.privateKey,
    merchants: [MERCHANT, HOSTILE_MERCHANT].map((m) => ({ ...m, publicKey: keysFor(m.merchantCode).publicKey })),
    sandbox: true,
    logger: false,
    // Tests never leave the machine: deliveries resolve through a loopback-only fake resolver.
    notifications: confinedNotifications(),
  });
  const { url } = await gateway.listen();
  const platformPublicKey = gateway.platformPublicKey;
  return {
    gateway,
    url,
    shopUrl: shopServer.url,
    async createLink(request = {}) {
      serial += 1;
      const merchantCode = request.merchantCode ?? MERCHANT.merchantCode;
      const orderNum = `PAGE-${process.pid}-${serial}`;
      const fields: Record<string, string | null> = {
        merchantCode,
        orderNum,
        payMoney: request.payMoney ?? '150000',
        productDetail: request.productDetail ?? 'Kopi Gayo 250 g',
        name: request.name ?? 'Siti Rahayu',
        email: 'siti@example.com',
        phone: '081234567890',
        notifyUrl: `${shopServer.url}/notify`,
        redirectUrl: request.redirectUrl === undefined ? `${shopServer.url}/return?order=${orderNum}` : request.redirectUrl,
        expiryPeriod: '60',
        dateTime: formatDateTime(gateway.clock.now()),
        method: request.method ?? null,
      };
      const body = { ...fields, sign: sign(fields, keysFor(merchantCode).privateKey) };
      const response = await fetch(`${url}/gateway/prepaidOrder`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json: unknown = await response.json();
      const parsed = parseWith(createPaymentLinkResponseSchema, json);
      if (!parsed.ok || parsed.value.platRespCode !== 'SUCCESS') {
        throw new Error(`prepaidOrder refused: ${JSON.stringify(json)}`);
      }
      const { platSign, ...signedFields } = json as Record<string, string>;
      if (!verify(signedFields, platSign ?? '', platformPublicKey)) throw new Error('prepaidOrder answer does not verify');
      return { url: parsed.value.url, platOrderNum: parsed.value.platOrderNum, orderNum };
    },
    async close() {
      await gateway.close();
      await shopServer.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
