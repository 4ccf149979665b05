/**
 * The sandbox's simulations composed by a caller onto a gateway of either mode: tests and
 * benchmarks of production mode need a paid order, and a production gateway holds no simulation
 * (issue 33). Only `./internal` exports this; the gateway itself never calls it.
 */
import { gatewayInternals } from '../gateway-internals.ts';
import type { Gateway, Simulations } from '../gateway-types.ts';
import { createSimulations } from './simulate.ts';

export function simulationsFor(gateway: Gateway): Simulations {
  const internals = gatewayInternals(gateway);
  return internals.simulate ?? createSimulations(internals.domain, gateway.ready);
}
