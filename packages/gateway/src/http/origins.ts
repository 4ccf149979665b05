/**
 * Where the gateway is: the base of the payment links it signs (`url` of create and query
 * answers, the sandbox's order view) and the origins its page's and sandbox's same-origin checks
 * accept. From the configuration and the socket, never from a request's `Host` header (issue 12:
 * a request naming `Host: evil.example` chose the signed `url`, and a DNS-rebinding page passed
 * the same-origin checks).
 *
 * The base of links, in order: `publicUrl`; the URL `listen` bound; and for an app mounted in a
 * server of the operator's without `publicUrl`, the address and port the request's socket was
 * accepted on (`https` when that socket is TLS): where the client really connected, which it
 * cannot name for itself. In every mode; behind a proxy that is the proxy's side of the
 * connection, so set `publicUrl` there.
 */
import { isIPv6 } from 'node:net';
import type { Request } from 'express';
import { gatewayOrigins } from '../page/csp.ts';

/** What the origin of a socket is read from (a `net.Socket` or `tls.TLSSocket`). */
export interface SocketAddress {
  readonly localAddress?: string | undefined;
  readonly localPort?: number | undefined;
  readonly encrypted?: boolean | undefined;
}

/**
 * The origin a connection was accepted at, from its local address and port: pure, table-tested.
 * An IPv4-mapped IPv6 address (a dual-stack server) is written as the IPv4 it carries.
 */
export function socketOrigin(socket: SocketAddress | undefined): string | undefined {
  const address = socket?.localAddress;
  const port = socket?.localPort;
  if (!address || !port) return undefined;
  const scheme = socket.encrypted ? 'https' : 'http';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const host = mapped ? mapped[1]! : isIPv6(address) ? `[${address.split('%')[0]}]` : address;
  const defaultPort = scheme === 'https' ? 443 : 80;
  return `${scheme}://${host}${port === defaultPort ? '' : `:${port}`}`;
}

export interface GatewayOrigins {
  /** Base of payment links, without a trailing slash. */
  baseUrl(req?: Request): string;
  /** The origins a browser's POST to the page or the sandbox may come from. */
  ownOrigins(req?: Request): readonly string[];
}

export function createGatewayOrigins(config: { readonly publicUrl: string | undefined; readonly listenUrl: () => string | undefined }): GatewayOrigins {
  const publicUrl = config.publicUrl?.replace(/\/+$/, '');
  return {
    baseUrl: (req) => publicUrl ?? config.listenUrl() ?? socketOrigin(req?.socket) ?? 'http://127.0.0.1',
    ownOrigins: (req) => gatewayOrigins(publicUrl, config.listenUrl(), socketOrigin(req?.socket)),
  };
}
