/**
 * The parts of a gateway that are not its public API but that this repository's own tests and
 * benchmarks reach: the hosted page's dependencies, the domain it runs on, and on a sandbox gateway
 * the sandbox's simulations. Kept beside the object in a WeakMap, so they are neither in the
 * `Gateway` type nor enumerable on it. A production gateway has no simulations here: a test of
 * production mode that needs a paid order composes them itself (`simulationsFor`, `internal.ts`).
 */
import type { DomainContext } from './domain/context.ts';
import type { Gateway, SandboxGateway, Simulations } from './gateway-types.ts';
import type { PaymentPageDeps } from './page/index.ts';

export type { Simulations };

export interface GatewayInternals {
  /** What the hosted page is served from (`page/deps.ts`), as mounted on `app`. */
  readonly pageDeps: PaymentPageDeps;
  /** The domain the gateway runs on (its `hooks` are `PRODUCTION_HOOKS` outside the sandbox). */
  readonly domain: DomainContext;
  /** What a `SandboxGateway` offers: only on one. */
  readonly simulate?: Simulations;
}

export interface SandboxInternals extends GatewayInternals {
  readonly simulate: Simulations;
}

const internals = new WeakMap<Gateway, GatewayInternals>();

export function registerInternals(gateway: Gateway, parts: GatewayInternals): void {
  internals.set(gateway, parts);
}

/** The internals of a gateway made by `createGateway`. */
export function gatewayInternals(gateway: SandboxGateway): SandboxInternals;
export function gatewayInternals(gateway: Gateway): GatewayInternals;
export function gatewayInternals(gateway: Gateway): GatewayInternals {
  const found = internals.get(gateway);
  if (!found) throw new TypeError('not a gateway made by createGateway()');
  return found;
}
