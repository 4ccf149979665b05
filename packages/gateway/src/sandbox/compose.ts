/**
 * The sandbox, composed onto a production gateway (issue 33): `createGateway({ sandbox: true })`
 * builds the same core as production and hands it this extension, which brings everything the
 * sandbox is: its fault hooks at the core's seams, its own table and migrations, its JSON API and
 * dashboard, the hosted page's simulate buttons, and the simulations of `SandboxGateway`.
 * Nothing here is built for a production gateway.
 */
import type { GatewayExtension } from '../extension.ts';
import { gatewayInternals, registerInternals } from '../gateway-internals.ts';
import type { SandboxGateway } from '../gateway-types.ts';
import { dashboardRouter } from './dashboard/routes.ts';
import { FAULT_HOOKS } from './fault-hooks.ts';
import { migrateSandbox } from './migrations.ts';
import { sandboxPageActions } from './page-actions.ts';
import { sandboxRouter } from './routes.ts';
import { createSimulations } from './simulate.ts';

export const SANDBOX = Object.freeze<GatewayExtension<SandboxGateway>>({
  hooks: FAULT_HOOKS,
  migrate: migrateSandbox,
  routers: ({ runtime, deliveries, metrics }) => [
    ['/sandbox/dashboard', dashboardRouter(runtime, deliveries, metrics)],
    ['/sandbox', sandboxRouter(runtime, deliveries)],
  ],
  pageActions: sandboxPageActions,
  compose(gateway, { domain, ready }) {
    const simulate = createSimulations(domain, ready);
    // Object.assign keeps the `url` getter of `gateway` working on the same object.
    const sandboxGateway: SandboxGateway = Object.assign(gateway, simulate, { sandbox: true as const });
    registerInternals(sandboxGateway, { ...gatewayInternals(gateway), simulate });
    return sandboxGateway;
  },
});
