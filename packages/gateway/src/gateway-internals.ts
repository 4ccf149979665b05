/**
 * The parts of a gateway that are not its public API but that this repository's own tests and
 * benchmarks reach: the hosted page's dependencies, and the sandbox's simulations on a
 * production-mode gateway (tests of production mode need a paid order too). Kept beside the
 * object in a WeakMap, so they are neither in the `Gateway` type nor enumerable on it.
 */
import type { Gateway, SandboxGateway } from './gateway.ts';
import type { PaymentPageDeps } from './page/index.ts';

export type Simulations = Pick<SandboxGateway, 'pay' | 'expire' | 'fail' | 'chooseMethod' | 'clock'>;

export interface GatewayInternals {
  /** What the hosted page is served from (`page/deps.ts`), as mounted on `app`. */
  readonly pageDeps: PaymentPageDeps;
  /** What a `SandboxGateway` offers, whatever the mode. */
  readonly simulate: Simulations;
}

const internals = new WeakMap<Gateway, GatewayInternals>();

export function registerInternals(gateway: Gateway, parts: GatewayInternals): void {
  internals.set(gateway, parts);
}

/** The internals of a gateway made by `createGateway`. */
export function gatewayInternals(gateway: Gateway): GatewayInternals {
  const found = internals.get(gateway);
  if (!found) throw new TypeError('not a gateway made by createGateway()');
  return found;
}
