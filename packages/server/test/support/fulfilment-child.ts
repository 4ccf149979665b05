/**
 * One plug-in process of the fenced-fulfilment test (`fenced-fulfilment.test.ts`): `payButton()`
 * on the shared store named by TOMBOLBAYAR_CHILD_CONFIG, driven through stdin and reporting on
 * stdout, one JSON object per line:
 *
 * - in: `reconcile` runs `router.reconcile()`; out: `{ "event": "reconcile", "report": … }`.
 * - out: `ready`; `onpaid` (entered, with `attempt`); `onpaid_end` (`attempt`, `aborted`);
 *   `fulfilment.succeeded`, `fulfilment.lease_lost`, `fulfilment.failed` with their `attempt`.
 *
 * `onPaid`'s first attempt is the slow one: it works until its `signal` aborts (and never returns
 * otherwise, so a fence that failed to abort it shows as a test that times out, never as a pass).
 * Any later attempt returns at once.
 */
import { createInterface } from 'node:readline';
import { payButton } from '../../src/adapters/express.ts';
import type { DatabaseOption } from '../../src/store/database.ts';
import { MERCHANT_CODE, merchantKeys, platformKeys } from './keys.ts';

export interface ChildConfig {
  readonly database: DatabaseOption;
  readonly fulfilmentLeaseMs: number;
  readonly fulfilmentHeartbeatMs: number;
}

const config = JSON.parse(process.env.TOMBOLBAYAR_CHILD_CONFIG!) as ChildConfig;
const say = (line: Record<string, unknown>): void => void process.stdout.write(`${JSON.stringify(line)}\n`);

const router = payButton({
  // Its standard output is the test's protocol: no log lines there, and no gateway to check.
  logger: false,
  selfCheck: false,
  // Never called: reconcile() finds only a paid order, whose onPaid it runs.
  gatewayUrl: 'http://127.0.0.1:9',
  merchantCode: MERCHANT_CODE,
  privateKey: merchantKeys().privateKey,
  platformPublicKey: platformKeys().publicKey,
  publicUrl: 'http://127.0.0.1:9',
  database: config.database,
  fulfilmentLeaseMs: config.fulfilmentLeaseMs,
  fulfilmentHeartbeatMs: config.fulfilmentHeartbeatMs,
  quote: () => {
    throw new Error('not used');
  },
  onPaid: async (order, { attempt, signal, key }) => {
    say({ event: 'onpaid', orderNum: order.orderNum, attempt, key });
    if (attempt === 1 && !signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    say({ event: 'onpaid_end', orderNum: order.orderNum, attempt, aborted: signal.aborted, reason: signal.aborted ? String(signal.reason) : null });
  },
});
for (const name of ['fulfilment.succeeded', 'fulfilment.lease_lost', 'fulfilment.failed'] as const) {
  router.on(name, (event) => say({ event: name, orderNum: event.orderNum, attempt: event.attempt }));
}
router.on('warning', (event) => say({ event: 'warning', code: event.code, message: event.message }));

await router.ready();
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() !== 'reconcile') return;
  router.reconcile().then((report) => say({ event: 'reconcile', report }), (error: unknown) => say({ event: 'reconcile_error', message: String(error) }));
});
process.stdin.on('end', () => void router.close().then(() => process.exit(0)));
say({ event: 'ready' });
