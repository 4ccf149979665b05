/**
 * Whether the shop's return address answers at all, asked just before the page sends the customer
 * there (`GET /pay/leave`): a shop that is down at that moment would leave the customer on a
 * browser error page ("This site can't be reached") instead of their receipt.
 *
 * One `HEAD`, under the notifications' address policy (resolve once, check every address, connect
 * only to those: `notify/delivery/resolve.ts`), so the probe reaches nothing a notification could
 * not. Only a definite "down" keeps the customer here: no connection, no answer within the time,
 * or a 502/503/504 from the shop's proxy. Anything else, an answer of any other status, or a
 * destination the policy will not probe, lets the customer go, as without the probe.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { pinnedLookup, resolveDeliveryAddresses } from '../notify/delivery/resolve.ts';

export interface ShopProbeOptions {
  readonly allowPrivateNetworks: boolean;
  /** Same signature as `dns.lookup`, as for notifications. */
  readonly lookup?: LookupFunction | undefined;
  /** The whole probe: DNS, connect and the answer's head. Default 3000 ms. */
  readonly timeoutMs?: number;
}

export const SHOP_PROBE_TIMEOUT_MS = 3_000;

/** What one probe found: `down` only when the shop definitely did not answer. */
export type ShopProbe = 'up' | 'down' | 'unknown';

/** The pure judgement of an answer's status: a gateway error of the shop's own proxy is "down". */
export function judgeStatus(status: number): ShopProbe {
  return status === 502 || status === 503 || status === 504 ? 'down' : 'up';
}

export async function probeShop(url: string, options: ShopProbeOptions): Promise<ShopProbe> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return 'unknown';
  }
  if ((target.protocol !== 'http:' && target.protocol !== 'https:') || target.username || target.password) return 'unknown';
  const deadline = AbortSignal.timeout(options.timeoutMs ?? SHOP_PROBE_TIMEOUT_MS);
  const hostname = target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname;
  const resolved = await Promise.race([
    resolveDeliveryAddresses(hostname, options),
    new Promise<undefined>((resolve) => deadline.addEventListener('abort', () => resolve(undefined), { once: true })),
  ]);
  if (!resolved) return 'down';
  // A name that does not resolve is as unreachable for the browser; a refused address is not ours to judge.
  if (!resolved.ok) return resolved.errorClass === 'dns' ? 'down' : 'unknown';
  return new Promise<ShopProbe>((resolve) => {
    const request = (target.protocol === 'https:' ? https : http).request({
      method: 'HEAD',
      protocol: target.protocol,
      hostname,
      port: target.port === '' ? undefined : Number(target.port),
      path: `${target.pathname}${target.search}`,
      headers: { host: target.host, 'user-agent': 'tombolbayar-gateway-return-check/0.1', connection: 'close' },
      agent: false,
      lookup: pinnedLookup(resolved.addresses),
      signal: deadline,
    });
    request.on('response', (response) => {
      resolve(judgeStatus(response.statusCode ?? 0));
      request.destroy();
    });
    // Refused, reset, unreachable, a bad certificate, or the deadline: the browser would fail too.
    request.on('error', () => resolve('down'));
    request.end();
  });
}
