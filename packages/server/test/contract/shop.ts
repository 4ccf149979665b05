/**
 * What every framework's contract run shares: one sandbox gateway per test file (the real one,
 * in-process, its own SQLite file), and per run a merchant's shop started by a `ContractServer`
 * with a fresh order store, whose `onPaid` calls are recorded, plus the browser's and the
 * customer's side of the conversation over real HTTP.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Gateway } from '@tombolbayar/gateway';
import { NotForSaleError, type Order } from '../../src/adapters/express.ts';
import { withTuning, type Tuning } from '../../src/internal/tuning.ts';
import type { PayButtonOptions } from '../../src/options.ts';
import type { EngineFixture } from '../support/engines.ts';
import { CATALOGUE, newKey } from '../support/harness.ts';
import { MERCHANT_CODE, merchantKeys, platformKeys } from '../support/keys.ts';
import { MOUNT, type ContractServer } from './servers.ts';
import { testGateway } from '../support/sandbox-gateway.ts';

/**
 * The `pk` the rate limit's `RateLimit-Policy` header names for a client at this address (a hash,
 * so the header never echoes it): which bucket the adapter's client address landed in.
 */
export const partitionOf = (address: string): string => Buffer.from(createHash('sha256').update(`ip:${address}`).digest('hex').slice(0, 12)).toString('base64');

/** A checkout on another site of the merchant's, allowed by `allowedOrigins`. */
export const ALLOWED_ORIGIN = 'https://checkout.shop.example';

export interface SandboxGateway {
  readonly gateway: Gateway;
  readonly url: string;
  /** The customer pays the order on the gateway (sandbox API), by VA_BCA if it has no method yet. */
  pay(orderNum: string): Promise<void>;
  /** Hold back the order's notifications (the gateway records them, and sends them much later). */
  holdNotifications(orderNum: string): Promise<void>;
  platOrderNumOf(orderNum: string): Promise<string>;
  close(): Promise<void>;
}

export async function startSandbox(): Promise<SandboxGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'pb-contract-gw-'));
  const gateway = testGateway(dir, { notifications: { pollIntervalMs: 25, timeoutMs: 5_000 } });
  const { url } = await gateway.listen();
  const sandbox: SandboxGateway = {
    gateway,
    url,
    async platOrderNumOf(orderNum) {
      const order = await gateway.findOrderByOrderNum(MERCHANT_CODE, orderNum);
      assert.ok(order, `the gateway has no order ${orderNum}`);
      return order.platOrderNum;
    },
    async pay(orderNum) {
      const platOrderNum = await sandbox.platOrderNumOf(orderNum);
      const current = await gateway.findOrder(platOrderNum);
      const response = await fetch(`${url}/sandbox/orders/${encodeURIComponent(platOrderNum)}/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(current?.method ? {} : { method: 'VA_BCA' }),
      });
      assert.equal(response.status, 200, await response.text());
    },
    async holdNotifications(orderNum) {
      const response = await fetch(`${url}/sandbox/faults/${MERCHANT_CODE}/orders/${encodeURIComponent(orderNum)}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ notifications: { delayMs: 600_000 } }),
      });
      assert.equal(response.status, 200, await response.text());
    },
    async close() {
      await gateway.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return sandbox;
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body parsed as JSON, or `undefined` when it is not JSON. */
  readonly body: any;
}

export interface ContractShop {
  readonly baseUrl: string;
  readonly mountUrl: string;
  /** Every `onPaid` call, in order. */
  readonly paid: Order[];
  /** A request to `mountUrl + path` exactly as given (no Origin added). */
  request(path: string, init?: RequestInit): Promise<Answer>;
  /** A browser's JSON POST from the shop's own page (Origin: the shop); a string or bytes are sent as they are. */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Answer>;
  /** `POST /links` for an item, with a fresh idempotency key unless one is given. */
  createLink(body?: Record<string, unknown>, headers?: Record<string, string>): Promise<Answer>;
  status(orderNum: string, statusToken: string): Promise<Answer>;
  close(): Promise<void>;
}

async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** The options a merchant would write, pointed at the sandbox, with a fresh store. */
function shopOptions(baseUrl: string, sandbox: SandboxGateway, database: PayButtonOptions['database'], paid: Order[]): PayButtonOptions<unknown> {
  return {
    gatewayUrl: sandbox.url,
    merchantCode: MERCHANT_CODE,
    privateKey: merchantKeys().privateKey,
    platformPublicKey: platformKeys().publicKey,
    publicUrl: baseUrl,
    mountPath: MOUNT,
    database,
    allowedOrigins: [ALLOWED_ORIGIN],
    // Every status poll may ask the gateway: confirmation by query is part of the contract.
    statusRefreshMs: 0,
    logger: false,
    selfCheck: false,
    // The suites share two cores with each other and a browser: the slow-client cases shed on the bounds.
    maxEventLoopDelayMs: false,
    quote: (_req, body) => {
      const entry = CATALOGUE[body.item ?? ''];
      if (!entry) throw new NotForSaleError(`${body.item ?? 'Nothing'} is not for sale.`);
      return { payMoney: entry.price, productDetail: entry.name, name: 'Budi Santoso', email: 'budi@example.com', phone: '081234567890' };
    },
    onPaid: (order) => {
      paid.push(order);
    },
  };
}

/** `tuning`: timings shortened for a test (the body deadline), as `withTuning()` attaches them. */
export async function startShop(server: ContractServer, engine: EngineFixture, sandbox: SandboxGateway, tuning: Partial<Tuning> = {}): Promise<ContractShop> {
  const store = await engine.fresh();
  const paid: Order[] = [];
  const started = await server.start((baseUrl) => withTuning(shopOptions(baseUrl, sandbox, store.option, paid), tuning));
  const mountUrl = `${started.baseUrl}${MOUNT}`;
  const shop: ContractShop = {
    baseUrl: started.baseUrl,
    mountUrl,
    paid,
    async request(path, init = {}) {
      return answerOf(await fetch(`${mountUrl}${path}`, { redirect: 'manual', ...init }));
    },
    post(path, body, headers = {}) {
      return shop.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: started.baseUrl, ...headers },
        body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
      });
    },
    createLink(body = {}, headers = {}) {
      return shop.post('/links', { item: 'kopi', idempotencyKey: newKey(), ...body }, headers);
    },
    status(orderNum, statusToken) {
      return shop.request(`/orders/${encodeURIComponent(orderNum)}`, { headers: { 'Tombolbayar-Status-Token': statusToken } });
    },
    async close() {
      await started.close();
      await store.cleanup();
    },
  };
  return shop;
}
