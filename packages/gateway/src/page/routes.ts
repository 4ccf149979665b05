/**
 * HTTP routes of the hosted page, all under `/pay`:
 *
 * | route | what |
 * |---|---|
 * | `GET /pay?orderNum=` | the page (HTML) |
 * | `GET /pay/status?orderNum=` | `{status, method, remainingMs}` for the client script |
 * | `POST /pay/method` | fix the method, then 303 back to the page |
 * | `POST /pay/method/change` | take the method back (payment links only), then 303 back to the picker |
 * | `GET /pay/leave?orderNum=` | back to the shop (`redirectUrl`) once it answers, else 303 back to the page with a notice |
 * | `GET /pay/assets/brand.css?accent=rrggbb` | the merchant's accent colour as a stylesheet |
 * | `POST /pay/sandbox` | sandbox only: pay / expire / fail, then 303 back to the page |
 * | `GET /pay/assets/page.css`, `/pay/assets/page.js` | the stylesheet and the script |
 *
 * Every response carries the strict security headers of `csp.ts`. Any other path under `/pay`
 * gets the 404 page, so in production `/pay/sandbox` does not exist.
 */
import { databaseFault, retryAfterSeconds } from '@tombolbayar/store-kit';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { describeIssue, parseWith } from '@tombolbayar/protocol';
import { PageActionError, type PageNotice, type PaymentPageDeps } from './deps.ts';
import { CONTENT_SECURITY_POLICY, isSameOriginPost, securityHeaders } from './csp.ts';
import { brandStylesheet, logoOrigin, parseHexColor } from './brand.ts';
import { LOCALE_COOKIE, messagesFor, negotiateLocale, type Locale } from './i18n.ts';
import { changeMethodBodySchema, chooseMethodBodySchema, langQuerySchema, pageQuerySchema, sandboxBodySchema, statusQuerySchema } from './input.ts';
import { pageAssets, type PageAssets } from './assets.ts';
import { qrImage } from './qr.ts';
import { pageUrls, type RenderContext } from './render/context.ts';
import { renderErrorPage, type ErrorKind } from './render/errors.ts';
import { safeHttpUrl } from './html.ts';
import { renderOrderPage } from './render/page.ts';
import type { ShopProbe } from './shop-probe.ts';

export interface PaymentPageOptions {
  /** Sandbox mode: the page is marked SANDBOX and gets the simulate buttons. Needs `deps.sandbox`. */
  readonly sandbox: boolean;
  /** Language when neither the customer's choice nor Accept-Language names one we have. */
  readonly defaultLocale?: Locale;
  /** Seconds between the paid confirmation and the automatic return to `redirectUrl` (default 5). */
  readonly redirectDelaySeconds?: number;
  /** Where unexpected errors go (the customer sees a generic 500 page). Default: `console.error`. */
  readonly onError?: (error: unknown) => void;
  /**
   * The origins the page is served at, for this request (see `isSameOriginPost`; the gateway's
   * come from `http/origins.ts`, never from the Host header); the page's forms must come from one.
   */
  readonly ownOrigins: (req: Request) => readonly string[];
  /**
   * Whether the shop's `redirectUrl` answers, asked by `GET /pay/leave` before sending the customer
   * there (the gateway's: `shop-probe.ts`, under the notifications' address policy). `down` keeps
   * the customer on this page with a notice and the link to try again. Absent: never asked.
   */
  readonly probeShop?: (url: string) => Promise<ShopProbe>;
}

const YEAR_SECONDS = 365 * 24 * 3600;

export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of header?.split(';') ?? []) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function createPageRoutes(deps: PaymentPageDeps, options: PaymentPageOptions): Router {
  const sandbox = options.sandbox;
  const sandboxDeps = deps.sandbox;
  if (sandbox && !sandboxDeps) throw new TypeError('createPaymentPageRouter: options.sandbox is true but deps.sandbox is missing');
  const fallback = options.defaultLocale ?? 'en';
  const redirectDelaySeconds = options.redirectDelaySeconds ?? 5;
  const onError = options.onError ?? ((error: unknown) => console.error('payment page error', error));
  // Read the built assets now, so the first customer does not wait for the disk.
  pageAssets().catch(() => undefined);

  function localeOf(req: Request, explicit?: Locale): Locale {
    return negotiateLocale({
      query: explicit,
      cookie: cookieValue(req.headers.cookie, LOCALE_COOKIE),
      acceptLanguage: single(req.headers['accept-language']),
      fallback,
    });
  }

  function contextFor(req: Request, locale: Locale, assets: PageAssets): RenderContext {
    return {
      locale,
      t: messagesFor(locale),
      sandbox,
      urls: pageUrls(req.baseUrl.replace(/\/pay$/, ''), { css: assets.css.version, js: assets.js?.version }),
      redirectDelaySeconds,
    };
  }

  function sendHtml(res: Response, status: number, body: string): void {
    res.status(status).set('Cache-Control', 'no-store').type('html').send(body);
  }

  async function sendError(req: Request, res: Response, status: number, kind: ErrorKind, problems?: readonly string[], orderNum?: string): Promise<void> {
    const explicit = parseWith(langQuerySchema, req.query);
    const ctx = contextFor(req, localeOf(req, explicit.ok ? explicit.value.lang : undefined), await pageAssets());
    const languageHref = orderNum === undefined ? undefined : (locale: Locale) => ctx.urls.page(orderNum, locale);
    sendHtml(res, status, renderErrorPage({ kind, ...(problems ? { problems } : {}), ...(languageHref ? { languageHref } : {}) }, ctx));
  }

  /**
   * 303 back to the page (POST-redirect-GET), in the language the form was read in (so a `?lang=`
   * the shop opened the page with survives every step, cookie or not), with the reason when the
   * action was refused.
   */
  function backToPage(req: Request, res: Response, platOrderNum: string, lang: Locale | undefined, notice?: PageNotice, next?: string): void {
    const url = pageUrls(req.baseUrl.replace(/\/pay$/, ''), { css: '', js: undefined }).page(platOrderNum, lang);
    res.redirect(303, notice ? `${url}&notice=${notice}` : next ? `${url}#${next}` : url);
  }

  const pay = express.Router();
  pay.use(securityHeaders);

  pay.get('/', async (req, res) => {
    const query = parseWith(pageQuerySchema, req.query);
    if (!query.ok) return sendError(req, res, 400, 'bad-request', query.issues.map(describeIssue));
    const { orderNum, lang, notice } = query.value;
    if (lang) {
      res.cookie(LOCALE_COOKIE, lang, { path: `${req.baseUrl}`, maxAge: YEAR_SECONDS * 1000, sameSite: 'lax', httpOnly: true, secure: req.secure });
    }
    const order = await deps.findOrder(orderNum);
    if (!order) return sendError(req, res, 404, 'not-found', undefined, orderNum);
    const ctx = contextFor(req, localeOf(req, lang), await pageAssets());
    const qr = order.status === 'PENDING' && order.method === 'QRIS' && order.vaNumber ? await qrImage(order.vaNumber) : undefined;
    // A logo at a URL is fetched from the merchant's own origin: that one origin, for this page only.
    const logoFrom = order.brand.logo ? logoOrigin(order.brand.logo) : undefined;
    if (logoFrom) res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY.replace("img-src 'self' data:", `img-src 'self' data: ${logoFrom}`));
    sendHtml(res, 200, renderOrderPage({ order, now: deps.now(), notice, qr }, ctx));
  });

  pay.get('/status', async (req, res) => {
    res.set('Cache-Control', 'no-store');
    const query = parseWith(statusQuerySchema, req.query);
    if (!query.ok) return void res.status(400).json({ error: query.message });
    const order = await deps.findOrder(query.value.orderNum);
    if (!order) return void res.status(404).json({ error: 'orderNum: no such order' });
    res.json({ status: order.status, method: order.method, remainingMs: Math.max(0, order.expiresAt - deps.now()) });
  });

  const form = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 });

  function sameOrigin(req: Request, res: Response, next: NextFunction): void {
    const allowed = isSameOriginPost({
      secFetchSite: single(req.headers['sec-fetch-site']),
      origin: single(req.headers.origin),
      host: req.headers.host,
      ownOrigins: options.ownOrigins(req),
    });
    if (allowed) return next();
    sendError(req, res, 403, 'forbidden').catch(next);
  }

  /** Runs a page action; a refusal becomes a notice on the page (or the 404 page), never a 500. */
  /**
   * Runs a page action, then 303s back to the page; on success at `next` (a fragment: the next
   * thing to do, where the page's script puts focus and the keyboard goes on from).
   */
  async function act(req: Request, res: Response, platOrderNum: string, lang: Locale | undefined, action: () => Promise<unknown>, next?: string): Promise<void> {
    try {
      await action();
    } catch (error) {
      if (!(error instanceof PageActionError)) throw error;
      if (error.reason === 'not-found') return sendError(req, res, 404, 'not-found', undefined, platOrderNum);
      return backToPage(req, res, platOrderNum, lang, error.reason);
    }
    backToPage(req, res, platOrderNum, lang, undefined, next);
  }

  /**
   * The way back to the shop (the page's links and its automatic return): to `redirectUrl`,
   * exactly as the merchant sent it, once the shop answers; when it is down, back to this page
   * with `shop-unreachable` (the receipt, the order number, and this link to try again), never a
   * browser error page.
   */
  pay.get('/leave', async (req, res) => {
    const query = parseWith(pageQuerySchema, req.query);
    if (!query.ok) return sendError(req, res, 400, 'bad-request', query.issues.map(describeIssue));
    const { orderNum, lang } = query.value;
    const order = await deps.findOrder(orderNum);
    if (!order) return sendError(req, res, 404, 'not-found', undefined, orderNum);
    const target = safeHttpUrl(order.redirectUrl);
    if (!target) return backToPage(req, res, orderNum, lang);
    if ((await options.probeShop?.(target)) === 'down') return backToPage(req, res, orderNum, lang, 'shop-unreachable');
    res.set('Cache-Control', 'no-store').redirect(303, target);
  });

  pay.post('/method', sameOrigin, form, async (req, res) => {
    const body = parseWith(chooseMethodBodySchema, req.body ?? {});
    if (!body.ok) return sendError(req, res, 400, 'bad-request', body.issues.map(describeIssue));
    const { orderNum, method, lang } = body.value;
    // After choosing, the next thing to do is the instructions (the number to copy, the steps).
    await act(req, res, orderNum, lang, () => deps.chooseMethod(orderNum, method), 'method-heading');
  });

  // Back to the picker: `method` is the one the customer's page showed (an older page is refused).
  pay.post('/method/change', sameOrigin, form, async (req, res) => {
    const body = parseWith(changeMethodBodySchema, req.body ?? {});
    if (!body.ok) return sendError(req, res, 400, 'bad-request', body.issues.map(describeIssue));
    const { orderNum, method, lang } = body.value;
    await act(req, res, orderNum, lang, () => deps.changeMethod(orderNum, method));
  });

  if (sandbox && sandboxDeps) {
    pay.post('/sandbox', sameOrigin, form, async (req, res) => {
      const body = parseWith(sandboxBodySchema, req.body ?? {});
      if (!body.ok) return sendError(req, res, 400, 'bad-request', body.issues.map(describeIssue));
      const { orderNum, action, lang } = body.value;
      await act(req, res, orderNum, lang, () => sandboxDeps[action](orderNum));
    });
  }

  pay.get('/assets/page.css', async (req, res) => {
    const { css } = await pageAssets();
    sendAsset(req, res, 'text/css; charset=utf-8', css.body, css.version);
  });

  // The merchant's accent colour (see brand.ts): derived from the query alone, so cacheable for good.
  pay.get('/assets/brand.css', (req, res) => {
    // One value, a colour: a repeated parameter is refused like any other bad value.
    const rgb = parseHexColor(req.query.accent);
    if (!rgb) return void res.status(400).type('text/plain').send('accent: must be a colour as rrggbb');
    res.set('Cache-Control', 'public, max-age=31536000, immutable');
    res.type('text/css; charset=utf-8').send(brandStylesheet(rgb));
  });

  pay.get('/assets/page.js', async (req, res, next) => {
    const { js } = await pageAssets();
    if (!js) return next();
    sendAsset(req, res, 'text/javascript; charset=utf-8', js.body, js.version);
  });

  pay.use((req, res, next) => {
    sendError(req, res, 404, 'not-found').catch(next);
  });

  pay.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const status = (error as { status?: unknown }).status;
    const type = (error as { type?: unknown }).type;
    // body-parser's own errors: too large, too many fields, bad encoding. The customer's input, not our fault.
    if (typeof type === 'string' && typeof status === 'number' && status >= 400 && status < 500) {
      return void sendError(req, res, status === 413 ? 413 : 400, 'bad-request', [`body: ${type.replace(/^(entity|parameters|request)\./, '').replace(/\./g, ' ')}`]).catch(next);
    }
    onError(error);
    // The database failed under this request: the customer may simply try again shortly.
    const fault = databaseFault(error);
    if (fault) res.set('Retry-After', String(retryAfterSeconds(fault)));
    sendError(req, res, fault ? 503 : 500, 'internal').catch(next);
  });

  const router = express.Router();
  router.use('/pay', pay);
  return router;
}

function sendAsset(req: Request, res: Response, type: string, body: string, version: string): void {
  const cacheable = req.query.v === version;
  res.set('Cache-Control', cacheable ? 'public, max-age=31536000, immutable' : 'no-cache');
  res.type(type).send(body);
}
