/**
 * The sandbox dashboard (mounted only with `sandbox: true`, at `/sandbox/dashboard`): the sandbox
 * API as a page for people. Every route, reads included, answers only requests that come from the
 * gateway itself (the sandbox API's own rule, `isFromGatewayItself`: Host, Origin and
 * Sec-Fetch-Site), so another site can neither drive an order (CSRF) nor read one (DNS
 * rebinding). Every POST answers with a 303 back to a page (POST-redirect-GET), or the page with
 * the refusal named.
 *
 *   GET  /                            find (?number=), pay a number, the clock, figures, orders, merchants
 *   GET  /figures                     the figures as JSON and their fingerprint (the front page's watch)
 *   GET  /orders/:platOrderNum        the order, its timeline and notification attempts
 *   POST /orders/:platOrderNum/pay|expire|fail   {method?}
 *   POST /pay-number                  {number}   pay the order with this VA number / payment code
 *   POST /clock                       {minutes}
 *   POST /deliveries/:id/resend
 *   GET|POST /merchants/:merchantCode {displayName, logo, accentColor, supportContact}
 *   POST /merchants/:merchantCode/notify {notify (repeated): paid, failed, expired}
 */
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Registry } from 'prom-client';
import { DomainError } from '../../domain/errors.ts';
import { readOrder, transition } from '../../domain/transitions.ts';
import type { Deliveries } from '../../notify/deliveries.ts';
import { pageAssets } from '../../page/assets.ts';
import { CONTENT_SECURITY_POLICY, securityHeaders } from '../../page/csp.ts';
import { html, type SafeHtml } from '../../page/html.ts';
import { isLocale, LOCALE_COOKIE, negotiateLocale, type Locale } from '../../page/i18n.ts';
import { cookieValue } from '../../page/routes.ts';
import type { GatewayRuntime } from '../../runtime.ts';
import { findBranding, NO_BRANDING, saveBranding } from '../../store/branding.ts';
import { findMerchant, listMerchants } from '../../store/merchants.ts';
import { MerchantRegistrationError, updateMerchantNotify } from '../../domain/merchants.ts';
import { parseBranding } from '../branding.ts';
import { advanceBodySchema, parseSandboxInput, payBodySchema } from '../input.ts';
import { findOrderByPaymentNumber, findOrdersByNumber, lookupQuerySchema, recentOrders } from '../lookup.ts';
import { isFromGatewayItself } from '../routes.ts';
import { simulatePayment } from '../simulate.ts';
import { dashboardUrls, DASHBOARD_PATH, isNotice, renderDashboardDocument, type DashboardContext, type Notice } from './document.ts';
import { DASHBOARD_MESSAGES } from './messages.ts';
import { renderHome } from './home.ts';
import { formValuesOf, renderMerchant } from './merchant.ts';
import { renderOrder } from './order.ts';
import { deliveriesFingerprint } from './fingerprint.ts';
import { figuresFingerprint, readFigures } from './figures.ts';
import { dashboardScript } from './script.ts';

/** The page's policy, with the merchant's logo (an http(s) URL they chose) allowed as an image. */
export const DASHBOARD_CSP = CONTENT_SECURITY_POLICY.replace("img-src 'self' data:", "img-src 'self' data: http: https:");

/** Logos arrive as data URLs of up to 64 KiB (about 88 KiB of base64, then form-encoded). */
const form = express.urlencoded({ extended: false, limit: '256kb', parameterLimit: 10 });

const ACTIONS = { pay: 'paid', expire: 'expired', fail: 'failed' } as const satisfies Record<string, Notice>;

const YEAR_MS = 365 * 24 * 3600 * 1000;

/**
 * The language of this request, as the hosted page chooses it (`?lang=`, then the cookie a choice
 * left, then Accept-Language), and the links to this page in the others: a read keeps its query
 * (without the one-time notice); the answer to a POST links to the dashboard's front page.
 */
function contextOf(req: Request): DashboardContext {
  const query = typeof req.query.lang === 'string' && isLocale(req.query.lang) ? req.query.lang : undefined;
  const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
  const locale = negotiateLocale({ query, cookie: cookieValue(req.headers.cookie, LOCALE_COOKIE), acceptLanguage: single(req.headers['accept-language']), fallback: 'en' });
  const here = new URL(req.originalUrl, 'http://dashboard.invalid');
  here.searchParams.delete('notice');
  const languageHref = (other: Locale) => {
    const target = req.method === 'GET' ? new URL(here) : new URL(DASHBOARD_PATH, here);
    target.searchParams.set('lang', other);
    return `${target.pathname}${target.search}`;
  };
  return { locale, t: DASHBOARD_MESSAGES[locale], languageHref };
}

/** `metrics`: the gateway's Registry, the front page's figures; undefined with `metrics: false`. */
export function dashboardRouter(runtime: GatewayRuntime, deliveries: Deliveries, metrics: Registry | undefined): Router {
  const { domain } = runtime;
  const db = domain.database.db;
  const router = express.Router();

  async function send(req: Request, res: Response, status: number, title: string, body: SafeHtml, problem?: string, mainAttributes?: SafeHtml): Promise<void> {
    const [{ css }, js] = await Promise.all([pageAssets(), dashboardScript()]);
    const notice = isNotice(req.query.notice) && status < 400 ? req.query.notice : undefined;
    const ctx = contextOf(req);
    if (req.query.lang === ctx.locale) {
      // A language picked with the switch is remembered; the cookie grants nothing.
      res.cookie(LOCALE_COOKIE, ctx.locale, { path: DASHBOARD_PATH, maxAge: YEAR_MS, sameSite: 'lax', httpOnly: true, secure: req.secure });
    }
    const script = js ? dashboardUrls.script(js.version) : undefined;
    const page = renderDashboardDocument(ctx, { title, stylesheet: `/pay/assets/page.css?v=${css.version}`, script, mainAttributes, body, notice, problem });
    res.status(status).set('Cache-Control', 'no-store').type('html').send(page);
  }
  const wordsOf = (req: Request) => contextOf(req).t;
  const refusal = (req: Request, res: Response, status: number, message: string) => {
    const t = wordsOf(req);
    return send(req, res, status, t.refusedHeading, html`<h1>${t.refusedHeading}</h1><p><a href="${dashboardUrls.home()}">${t.back}</a></p>`, message);
  };

  router.use(securityHeaders, (req, res, next) => {
    res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
    if (isFromGatewayItself(runtime, req)) return next();
    refusal(req, res, 403, wordsOf(req).crossSite).catch(next);
  });
  for (const name of ['platOrderNum', 'id', 'merchantCode']) {
    router.param(name, (req, res, next, value: unknown) => {
      if (typeof value === 'string' && value.includes('\u0000')) return void refusal(req, res, 400, `${name}: must not contain U+0000`).catch(next);
      next();
    });
  }

  router.get('/assets/dashboard.js', async (req, res, next) => {
    const js = await dashboardScript();
    if (!js) return next();
    res.set('Cache-Control', req.query.v === js.version ? 'public, max-age=31536000, immutable' : 'no-cache');
    res.type('text/javascript; charset=utf-8').send(js.body);
  });

  router.get('/', async (req, res) => {
    const asked = req.query.number === undefined || req.query.number === '' ? undefined : parseSandboxInput(lookupQuerySchema, { number: req.query.number });
    if (asked && !asked.ok) return refusal(req, res, 400, asked.message);
    const number = asked?.value.number;
    const [orders, merchants, figures] = await Promise.all([
      number ? findOrdersByNumber(domain, number) : recentOrders(domain),
      listMerchants(db),
      metrics ? readFigures(metrics) : undefined,
    ]);
    const clock = { now: domain.clock.now(), offsetMinutes: domain.clock.offsetMs / 60_000 };
    const t = wordsOf(req);
    // The page reloads itself when the figures move (an order made, paid or ended, a notification attempted).
    const watch = figures ? html` data-watch="${dashboardUrls.figuresJson}" data-fingerprint="${figuresFingerprint(figures)}"` : undefined;
    await send(req, res, 200, t.ordersTitle, renderHome(t, { number, orders, merchants, clock, figures }), undefined, watch);
  });

  router.get('/figures', async (_req, res, next) => {
    if (!metrics) return next();
    const figures = await readFigures(metrics);
    res.set('Cache-Control', 'no-store').json({ figures, fingerprint: figuresFingerprint(figures) });
  });

  async function showOrder(req: Request, res: Response, platOrderNum: string, status = 200, problem?: string): Promise<void> {
    const order = await readOrder(domain, platOrderNum);
    if (!order) return refusal(req, res, 404, 'platOrderNum: no such order');
    const [list, merchant, branding] = await Promise.all([
      deliveries.list({ platOrderNum }),
      findMerchant(db, order.merchantCode),
      findBranding(db, order.merchantCode),
    ]);
    const label = branding?.displayName ?? merchant?.name ?? order.merchantCode;
    const t = wordsOf(req);
    const watch = html` data-watch="${dashboardUrls.deliveriesJson(order.platOrderNum)}" data-fingerprint="${deliveriesFingerprint(list)}"`;
    await send(req, res, status, t.orderHeading(order.orderNum), renderOrder(t, order, list, `${label} (${order.merchantCode})`), problem, watch);
  }
  router.get('/orders/:platOrderNum', (req, res) => showOrder(req, res, req.params.platOrderNum!));

  /** Runs a simulation; a domain refusal shows the order again with the refusal named. */
  async function simulate(req: Request, res: Response, platOrderNum: string, notice: Notice, action: () => Promise<unknown>) {
    try {
      await action();
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      if (error.code === 'order-not-found') return refusal(req, res, 404, error.message);
      return showOrder(req, res, platOrderNum, error.code === 'amount-out-of-range' ? 400 : 409, error.message);
    }
    res.redirect(303, dashboardUrls.order(platOrderNum, notice));
  }

  router.post('/orders/:platOrderNum/:action', form, async (req, res, next) => {
    const platOrderNum = req.params.platOrderNum!;
    const action = req.params.action;
    if (action !== 'pay' && action !== 'expire' && action !== 'fail') return next();
    if (action === 'expire') return simulate(req, res, platOrderNum, 'expired', () => transition(domain, platOrderNum, 'EXPIRED', { force: true }));
    if (action === 'fail') return simulate(req, res, platOrderNum, 'failed', () => transition(domain, platOrderNum, 'FAILED'));
    const body = parseSandboxInput(payBodySchema, { ...req.body });
    if (!body.ok) return refusal(req, res, 400, body.message);
    await simulate(req, res, platOrderNum, ACTIONS.pay, () => simulatePayment(domain, platOrderNum, body.value.method));
  });

  router.post('/pay-number', form, async (req, res) => {
    const body = parseSandboxInput(lookupQuerySchema, { ...req.body });
    if (!body.ok) return refusal(req, res, 400, body.message);
    const order = await findOrderByPaymentNumber(domain, body.value.number);
    if (!order) return refusal(req, res, 404, 'number: no order has this VA number or payment code');
    await simulate(req, res, order.platOrderNum, 'paid', () => simulatePayment(domain, order.platOrderNum));
  });

  router.post('/clock', form, async (req, res) => {
    const minutes = typeof req.body?.minutes === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(req.body.minutes) ? Number(req.body.minutes) : req.body?.minutes;
    const body = parseSandboxInput(advanceBodySchema, { minutes });
    if (!body.ok) return refusal(req, res, 400, body.message);
    domain.clock.advance(Math.round(body.value.minutes * 60_000));
    await runtime.sweepNow();
    res.redirect(303, `${dashboardUrls.home()}?notice=clock-advanced`);
  });

  router.post('/deliveries/:id/resend', async (req, res) => {
    const delivery = await deliveries.resend(req.params.id!);
    if (!delivery) return refusal(req, res, 404, 'id: no such notification');
    res.redirect(303, dashboardUrls.order(delivery.platOrderNum, 'resent'));
  });

  async function merchantOr404(req: Request, res: Response) {
    const merchant = await findMerchant(db, String(req.params.merchantCode));
    if (!merchant) await refusal(req, res, 404, 'merchantCode: no such merchant');
    return merchant;
  }
  router.get('/merchants/:merchantCode', async (req, res) => {
    const merchant = await merchantOr404(req, res);
    if (!merchant) return;
    const saved = (await findBranding(db, merchant.merchantCode)) ?? NO_BRANDING;
    const t = wordsOf(req);
    await send(req, res, 200, t.merchantHeading(merchant.merchantCode), renderMerchant(t, merchant, saved, formValuesOf(saved)));
  });
  router.post('/merchants/:merchantCode', form, async (req, res) => {
    const merchant = await merchantOr404(req, res);
    if (!merchant) return;
    const branding = parseBranding({ ...req.body });
    if (!branding.ok) {
      const saved = (await findBranding(db, merchant.merchantCode)) ?? NO_BRANDING;
      const typed = (name: string) => (typeof req.body?.[name] === 'string' ? (req.body[name] as string) : '');
      const values = { displayName: typed('displayName'), logo: typed('logo'), accentColor: typed('accentColor'), supportContact: typed('supportContact') };
      const t = wordsOf(req);
      return send(req, res, 400, t.merchantHeading(merchant.merchantCode), renderMerchant(t, merchant, saved, values), branding.message);
    }
    await saveBranding(db, merchant.merchantCode, branding.value, domain.clock.now());
    res.redirect(303, dashboardUrls.merchant(merchant.merchantCode, 'saved'));
  });

  router.post('/merchants/:merchantCode/notify', form, async (req, res) => {
    const merchant = await merchantOr404(req, res);
    if (!merchant) return;
    const given: unknown = req.body?.notify;
    try {
      await updateMerchantNotify(db, merchant.merchantCode, Array.isArray(given) ? given : typeof given === 'string' ? [given] : [], domain.clock.now());
    } catch (error) {
      if (error instanceof MerchantRegistrationError) return refusal(req, res, 400, error.message);
      throw error;
    }
    res.redirect(303, dashboardUrls.merchant(merchant.merchantCode, 'saved'));
  });

  router.use((req, res, next) => {
    refusal(req, res, 404, wordsOf(req).noSuchPage).catch(next);
  });
  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const status = (error as { status?: unknown }).status;
    // body-parser's refusals (too large, too many fields, bad encoding): the person's input, not our fault.
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return void refusal(req, res, status === 413 ? 413 : 400, status === 413 ? 'body: too large' : 'body: could not be read as a form').catch(next);
    }
    next(error);
  });
  return router;
}
