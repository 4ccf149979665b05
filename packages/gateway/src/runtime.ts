/** What the HTTP routers share: the domain, the platform signer and where the gateway is reachable. */
import type { Request } from 'express';
import type { DomainContext } from './domain/context.ts';
import type { PlatformSigner } from './notify/notification.ts';

export interface GatewayRuntime {
  readonly domain: DomainContext;
  readonly sign: PlatformSigner;
  readonly sandbox: boolean;
  /** Base of hosted-page links, without a trailing slash (`http/origins.ts`: never from the Host). */
  publicBaseUrl(req: Request): string;
  /** The origins the gateway is served at, from its configuration and the socket (never the Host). */
  ownOrigins(req: Request): readonly string[];
  /** Expire overdue orders now (after the sandbox clock moved). */
  sweepNow(): Promise<number>;
}

/** The payment link of an order: `{base}/pay?orderNum=<platOrderNum>` (spec 2.3). */
export function paymentLinkUrl(base: string, platOrderNum: string): string {
  return `${base}/pay?orderNum=${encodeURIComponent(platOrderNum)}`;
}
