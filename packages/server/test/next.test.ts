/**
 * `@tombolbayar/server/next`: the route handlers tell the core which prefix the catch-all sits
 * under and who is asking, trusting `X-Forwarded-For` only as far as the merchant said, and make
 * the handler on the first request (never when `next build` loads the route). Called here as
 * Next.js calls them: a Web `Request` and `{ params }` (a promise since Next.js 15).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { PayButtonError } from '../src/errors.ts';
import { createPayButton, type PayButtonOptions } from '../src/index.ts';
import { payButtonNext, type PayButtonRoutesOptions, type RequestFacts, type RouteParams } from '../src/adapters/next.ts';
import { inSharedBucket } from '../src/http/rate-limit.ts';
import { validOptions } from './support/options.ts';

const dir = mkdtempSync(join(tmpdir(), 'pb-next-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Seen {
  readonly url: string;
  readonly method: string;
  readonly facts: RequestFacts | undefined;
}

/** A stand-in for the core: it answers with what it was given. */
function recordingHandler() {
  const seen: Seen[] = [];
  return {
    seen,
    async fetch(request: Request, facts?: RequestFacts): Promise<Response> {
      seen.push({ url: request.url, method: request.method, facts });
      return new Response('ok');
    },
  };
}

async function call(path: string, params: RouteParams, options?: PayButtonRoutesOptions, init?: RequestInit): Promise<Seen> {
  const handler = recordingHandler();
  const routes = payButtonNext(handler, options);
  const method = (init?.method ?? 'GET') as 'GET' | 'POST' | 'OPTIONS';
  const response = await routes[method](new Request(`http://localhost:3000${path}`, init), { params: Promise.resolve(params) });
  assert.equal(await response.text(), 'ok');
  assert.equal(handler.seen.length, 1);
  return handler.seen[0]!;
}

describe('payButtonNext(): the mount path comes from where the catch-all segment is', () => {
  test('app/pay/[...path]: /pay/orders/X is under /pay, and the request reaches the core whole', async () => {
    const seen = await call('/pay/orders/ABC123?token=t', { path: ['orders', 'ABC123'] });
    assert.equal(seen.url, 'http://localhost:3000/pay/orders/ABC123?token=t');
    assert.equal(seen.facts?.mountPath, '/pay');
  });

  test('deeper, with a dynamic segment before it: app/[shop]/checkout/pay/[...slug]', async () => {
    const seen = await call('/toko/checkout/pay/links', { shop: 'toko', slug: ['links'] }, undefined, { method: 'POST', body: '{}' });
    assert.equal(seen.method, 'POST');
    assert.equal(seen.facts?.mountPath, '/toko/checkout/pay');
  });

  test('at the root (app/[...path]), with an encoded slash in a segment, and with a trailing slash', async () => {
    assert.equal((await call('/pay-button.js', { path: ['pay-button.js'] })).facts?.mountPath, '/');
    assert.equal((await call('/pay/orders/A%2FB', { path: ['orders', 'A/B'] })).facts?.mountPath, '/pay');
    assert.equal((await call('/pay/notify/', { path: ['notify'] })).facts?.mountPath, '/pay');
  });

  test('an optional catch-all reached at its own root is its own mount path', async () => {
    assert.equal((await call('/pay', { path: undefined })).facts?.mountPath, '/pay');
  });

  test('Next.js 14 gave params as a plain object', async () => {
    const handler = recordingHandler();
    await payButtonNext(handler).GET(new Request('http://localhost/pay/return'), { params: { path: ['return'] } });
    assert.equal(handler.seen[0]?.facts?.mountPath, '/pay');
  });
});

describe('payButtonNext(): the client address', () => {
  const forwarded = { headers: { 'x-forwarded-for': '203.0.113.9, 198.51.100.7' } };

  test('by default no header is trusted: X-Forwarded-For is what any client can write', async () => {
    assert.equal((await call('/pay/links', { path: ['links'] }, undefined, forwarded)).facts?.clientAddress, undefined);
  });

  test('{ trustedProxies: n }: the nth entry from the right, past what a client wrote itself', async () => {
    assert.equal((await call('/pay/links', { path: ['links'] }, { clientAddress: { trustedProxies: 1 } }, forwarded)).facts?.clientAddress, '198.51.100.7');
    assert.equal((await call('/pay/links', { path: ['links'] }, { clientAddress: { trustedProxies: 2 } }, forwarded)).facts?.clientAddress, '203.0.113.9');
    // Fewer entries than proxies: the furthest there is, as Express's `trust proxy` does.
    assert.equal((await call('/pay/links', { path: ['links'] }, { clientAddress: { trustedProxies: 3 } }, forwarded)).facts?.clientAddress, '203.0.113.9');
    assert.equal((await call('/pay/links', { path: ['links'] }, { clientAddress: { trustedProxies: 1 } })).facts?.clientAddress, undefined);
  });

  test('a function of the request: the merchant\'s own rule', async () => {
    const options: PayButtonRoutesOptions = { clientAddress: (request) => request.headers.get('cf-connecting-ip') ?? undefined };
    const seen = await call('/pay/links', { path: ['links'] }, options, { headers: { 'cf-connecting-ip': '192.0.2.1' } });
    assert.equal(seen.facts?.clientAddress, '192.0.2.1');
  });

  test('a wrong clientAddress option is refused at once, naming the field', () => {
    for (const clientAddress of [{ trustedProxies: 0 }, { trustedProxies: 1.5 }, { trustedProxies: '1' }, 'x-forwarded-for', null]) {
      assert.throws(
        () => payButtonNext(recordingHandler(), { clientAddress } as unknown as PayButtonRoutesOptions),
        (error: unknown) => error instanceof PayButtonError && error.code === 'config_invalid' && /clientAddress: must be/.test(error.message),
      );
    }
  });
});

describe('payButtonNext(): the handler', () => {
  test('something else than a handler or a function is refused at once, naming it', () => {
    for (const pay of [undefined, null, {}, 'pay', 42]) {
      assert.throws(
        () => payButtonNext(pay as never),
        (error: unknown) => error instanceof PayButtonError && error.code === 'config_invalid' && /pay: must be createPayButton\(\)'s handler/.test(error.message),
      );
    }
  });

  test('given as a function, it is asked for on each request and never before (next build loads the route)', async () => {
    const handler = recordingHandler();
    let asked = 0;
    const routes = payButtonNext(() => (asked++, handler));
    assert.equal(asked, 0);
    await routes.GET(new Request('http://localhost/pay/pay-button.js'), { params: Promise.resolve({ path: ['pay-button.js'] }) });
    await routes.OPTIONS(new Request('http://localhost/pay/links', { method: 'OPTIONS' }), { params: Promise.resolve({ path: ['links'] }) });
    assert.equal(asked, 2);
    assert.deepEqual(handler.seen.map((seen) => seen.method), ['GET', 'OPTIONS']);
  });
});

describe('payButtonNext() over createPayButton()', () => {
  test('serves the plug-in under the catch-all; a catch-all elsewhere than mountPath is said once, with the fix', async () => {
    // The Web Request is what quote() is given under Next.js.
    const options: PayButtonOptions<Request> = { ...validOptions(dir), rateLimit: undefined, quote: () => ({ payMoney: 1000, productDetail: 'x', name: 'y', email: 'a@b.co', phone: '0811' }) };
    const pay = createPayButton(options);
    const warnings: string[] = [];
    pay.on('warning', (warning) => warnings.push(warning.message));
    try {
      const routes = payButtonNext(pay);
      const script = await routes.GET(new Request('http://localhost/pay/pay-button.js'), { params: Promise.resolve({ path: ['pay-button.js'] }) });
      assert.equal(script.status, 200);
      assert.match(script.headers.get('content-type') ?? '', /javascript/);
      const unknown = await routes.GET(new Request('http://localhost/pay/orders/NOSUCHORDER?token=x'), { params: Promise.resolve({ path: ['orders', 'NOSUCHORDER'] }) });
      assert.equal(unknown.status, 404);
      assert.deepEqual(warnings, []);

      const elsewhere = await routes.GET(new Request('http://localhost/shop/pay/pay-button.js'), { params: Promise.resolve({ path: ['pay-button.js'] }) });
      assert.equal(elsewhere.status, 200);
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]!, /mountPath is \/pay but the router is reached at \/shop\/pay; .*pass mountPath: '\/shop\/pay'/);
    } finally {
      await pay.close();
    }
  });

  test('no client address known: the first order creation says once that every customer shares one bucket, and how to fix it', async () => {
    const pay = createPayButton({ ...validOptions(dir), quote: () => ({ payMoney: 1000, productDetail: 'x', name: 'y', email: 'a@b.co', phone: '0811' }) } as PayButtonOptions<Request>);
    const codes: string[] = [];
    const messages: string[] = [];
    pay.on('warning', (warning) => {
      codes.push(warning.code);
      messages.push(warning.message);
    });
    // A body the plug-in refuses (no item): the rate limit has counted it by then, and no gateway is asked.
    const post = (routes: ReturnType<typeof payButtonNext>, headers: Record<string, string> = {}) => routes.POST(
      new Request('http://localhost/pay/links', { method: 'POST', headers: { origin: 'https://shop.example', 'content-type': 'application/json', ...headers }, body: '{"nothing":1}' }),
      { params: Promise.resolve({ path: ['links'] }) },
    );
    try {
      const named = payButtonNext(pay, { clientAddress: { trustedProxies: 1 } });
      const answered = await post(named, { 'x-forwarded-for': '203.0.113.9' });
      assert.ok(answered.headers.get('ratelimit'), 'the request was counted');
      assert.deepEqual(codes, [], 'a client address is known: nothing to say');

      const bare = payButtonNext(pay);
      await post(bare);
      await post(bare);
      assert.deepEqual(codes, ['client_address_unknown'], 'said once');
      assert.match(messages[0]!, /every customer shares one rate-limit bucket \(300 per 60 s for the whole shop\)/);
      assert.match(messages[0]!, /payButtonNext\(getPay, \{ clientAddress: \{ trustedProxies: 1 \} \}\)/);
    } finally {
      await pay.close();
    }
  });
});

describe('inSharedBucket (pure): when every customer would share one rate-limit bucket', () => {
  const limit = { windowMs: 60_000, limit: 300, key: undefined };
  const byKey = { ...limit, key: (request: Request) => request.headers.get('x-session') ?? undefined };
  const request = (session?: string) => new Request('http://localhost/pay/links', session ? { headers: { 'x-session': session } } : {});
  const cases: Array<[string, Parameters<typeof inSharedBucket>[0], Request, string | undefined, boolean]> = [
    ['no address, no key', limit, request(), undefined, true],
    ['an empty address', limit, request(), '', true],
    ['an address', limit, request(), '203.0.113.9', false],
    ['a session key', byKey, request('s1'), undefined, false],
    ['a key function that names nobody', byKey, request(), undefined, true],
    ['no rate limit', false, request(), undefined, false],
  ];
  for (const [name, setting, req, address, shared] of cases) {
    test(`${name} -> ${shared ? 'shared' : 'own bucket'}`, () => assert.equal(inSharedBucket(setting as never, req, address), shared));
  }
});
