/**
 * Whether `gatewayUrl` is a channel whose answers may move money.
 *
 * A notification proves nothing (`orders/confirm.ts`): the plug-in moves an order only on the
 * gateway's answer to its own query. The family's signature does not make that answer the
 * gateway's word either (its blocks can be spliced), so what does is the channel: TLS to the
 * gateway's name. Plain `http:` to anything but this machine lets whoever sits on the path answer
 * "PAID" for any order, so it is refused at start-up unless the merchant says, in
 * `allowInsecureGatewayUrl`, that the network in between is theirs (a private link, a sidecar).
 * Loopback is allowed without it: nothing else is on that path (the local sandbox, a TLS-
 * terminating sidecar on the same host).
 */

/** `https`, `loopback` (plain http to this machine) or `insecure` (plain http to anything else). */
export type GatewayChannel = 'https' | 'loopback' | 'insecure';

/**
 * True for the hosts that name this machine: `localhost`, 127.0.0.0/8 and `::1`. Takes a WHATWG
 * `URL.hostname`, which already wrote every IPv4 form (`127.1`, `0x7f000001`, `2130706433`) as a
 * dotted quad and IPv6 in brackets, compressed and lower-case. Anything else (`*.localhost`,
 * `::ffff:127.0.0.1`, a name that happens to resolve to 127.0.0.1) is not taken on trust: DNS
 * decides those, not the configuration.
 */
export function isLoopbackHost(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true;
  const quad = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(hostname);
  return quad !== null && quad[1] === '127' && quad.slice(2).every((part) => Number(part) <= 255);
}

/** The pure decision, table-tested: which kind of channel `url` is. */
export function gatewayChannel(url: URL): GatewayChannel {
  if (url.protocol === 'https:') return 'https';
  return isLoopbackHost(url.hostname) ? 'loopback' : 'insecure';
}

/** The start-up error for an insecure `gatewayUrl` without the opt-in. */
export const INSECURE_GATEWAY_URL =
  'uses plain http to a host that is not this machine: the gateway\'s answers decide which orders are paid, ' +
  'and over http anyone on the path can forge them. Use https; plain http is accepted only to localhost, ' +
  '127.0.0.0/8 or [::1], or with allowInsecureGatewayUrl: true when the network in between is your own';

/** The warning emitted at start-up when the opt-in is used. */
export function insecureGatewayWarning(url: URL): string {
  return `gatewayUrl ${url.origin} is plain http to another host (allowInsecureGatewayUrl: true): ` +
    'anyone on that network path can answer the plug-in\'s queries and get orders marked paid; use https unless the path is your own';
}
