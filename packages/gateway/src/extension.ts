/**
 * The seam a mode is composed onto the production gateway through (issue 33). `createGateway`
 * builds the production core; with `sandbox: true` it hands the core's parts to the sandbox's
 * extension (`sandbox/compose.ts`), which supplies its hooks, tables, routes, page actions and
 * simulations. Without it, none of those exist in the gateway's objects or its database.
 */
import type { Router } from 'express';
import type { Registry } from 'prom-client';
import type { DomainContext } from './domain/context.ts';
import type { GatewayHooks } from './domain/hooks.ts';
import type { Gateway } from './gateway-types.ts';
import type { Deliveries } from './notify/deliveries.ts';
import type { PaymentPageDeps } from './page/index.ts';
import type { GatewayRuntime } from './runtime.ts';
import type { Database } from './store/database.ts';

/** What the core hands to an extension. */
export interface GatewayParts {
  readonly domain: DomainContext;
  readonly runtime: GatewayRuntime;
  readonly deliveries: Deliveries;
  /** The gateway's metrics Registry (what `GET /metrics` serves); undefined with `metrics: false`. */
  readonly metrics: Registry | undefined;
  /** Resolves once the database is migrated (the extension's tables included). */
  readonly ready: Promise<void>;
}

export interface GatewayExtension<G extends Gateway = Gateway> {
  /** The core's seams as this mode fills them (`domain/hooks.ts`). */
  readonly hooks: GatewayHooks;
  /** Its own tables, migrated after the gateway's. */
  migrate(database: Database): Promise<void>;
  /** Its routers by mount path, mounted after the signed API and before the hosted page. */
  routers(parts: GatewayParts): ReadonlyArray<readonly [path: string, router: Router]>;
  /** The hosted page's actions of this mode (`PaymentPageDeps.sandbox`: its simulate buttons). */
  pageActions(domain: DomainContext): NonNullable<PaymentPageDeps['sandbox']>;
  /** The finished gateway with what this mode adds to it. */
  compose(gateway: Gateway, parts: GatewayParts): G;
}
