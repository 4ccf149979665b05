/**
 * One notification delivery attempt: parse the URL, resolve and check the destination, POST the
 * signed fields, judge the answer. Called by the outbox worker once per attempt; it records the
 * result and asks `nextRetryDelayMs` when to try again.
 */
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { DeliveryConnections } from './connections.ts';
import { postForm, type PostOutcome } from './http-post.ts';
import { classifyError, type AttemptResult } from './outcome.ts';
import { resolveDeliveryAddresses } from './resolve.ts';

export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;

export interface DeliveryOptions {
  /** The whole attempt (DNS, connect, TLS, headers, body) must end within this. Default 10 000. */
  timeoutMs?: number;
  /**
   * False in production: refuse loopback, private, link-local, metadata and other special
   * addresses (see address-policy.ts). True in the sandbox, so `http://127.0.0.1:3000/` works.
   */
  allowPrivateNetworks: boolean;
  /** DNS resolution with `dns.lookup`'s signature; injectable so tests never touch real DNS. */
  lookup?: LookupFunction;
  /**
   * Keep-alive connections to reuse (the worker's); without, the attempt connects afresh and closes
   * its connection. Either way the destination is resolved and checked for this attempt.
   */
  connections?: DeliveryConnections;
  /**
   * Extra request headers: the trace context (`traceparent`, `tracestate`) the worker's span
   * injects. They never replace a header of the POST's own (host, content type, length …).
   */
  headers?: Readonly<Record<string, string>>;
}

function attemptTimeout(timeoutMs: number | undefined): number {
  if (timeoutMs === undefined || !Number.isFinite(timeoutMs) || timeoutMs <= 0) return DEFAULT_DELIVERY_TIMEOUT_MS;
  return Math.min(timeoutMs, 2_147_483_647);
}

function refuse(errorClass: 'invalid-url', detail: string): PostOutcome {
  return { acknowledged: false, httpStatus: null, errorClass, bodyExcerpt: '', detail };
}

async function attempt(url: string, fields: Record<string, string>, options: DeliveryOptions, signal: AbortSignal): Promise<PostOutcome> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return refuse('invalid-url', 'not an absolute URL');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return refuse('invalid-url', 'not an http or https URL');

  // The destination is judged before anything else, so an SSRF attempt is always logged as such.
  const timedOut = new Promise<'timeout'>((resolve) => {
    if (signal.aborted) resolve('timeout');
    else signal.addEventListener('abort', () => resolve('timeout'), { once: true });
  });
  const resolved = await Promise.race([
    resolveDeliveryAddresses(target.hostname, { allowPrivateNetworks: options.allowPrivateNetworks, lookup: options.lookup }),
    timedOut,
  ]);
  if (resolved === 'timeout') {
    return { acknowledged: false, httpStatus: null, errorClass: 'timeout', bodyExcerpt: '', detail: 'DNS did not answer within the timeout' };
  }
  if (!resolved.ok) return { acknowledged: false, httpStatus: null, errorClass: resolved.errorClass, bodyExcerpt: '', detail: resolved.detail };

  // Credentials in a callback URL are refused rather than silently dropped or sent.
  if (target.username !== '' || target.password !== '') return refuse('invalid-url', 'the URL contains a user name or password');

  const agent = options.connections?.agentFor(target, resolved.addresses, { allowPrivateNetworks: options.allowPrivateNetworks });
  return postForm(target, new URLSearchParams(fields).toString(), resolved.addresses, signal, agent, options.headers);
}

/**
 * POST `fields` (already signed: this never signs) as `application/x-www-form-urlencoded` to
 * `url`. Acknowledged only by HTTP 200 with body `SUCCESS` (trimmed). Never throws: every failure
 * is an AttemptResult whose `errorClass` is one of DELIVERY_ERROR_CLASSES.
 */
export async function deliverNotification(url: string, fields: Record<string, string>, options: DeliveryOptions): Promise<AttemptResult> {
  const started = performance.now();
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), attemptTimeout(options?.timeoutMs));
  let outcome: PostOutcome;
  try {
    outcome = await attempt(url, fields, options, deadline.signal);
  } catch (error) {
    outcome = { acknowledged: false, httpStatus: null, errorClass: 'internal', bodyExcerpt: '', detail: `unexpected ${classifyError(error)} error` };
  } finally {
    clearTimeout(timer);
  }
  return { ...outcome, latencyMs: Math.max(0, Math.round(performance.now() - started)) };
}
