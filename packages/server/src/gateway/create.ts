/**
 * Registering one order at the gateway, exactly once, through an unreliable network:
 * bounded retries with full-jitter backoff on network errors, timeouts, 5xx and 429; after
 * anything that may have reached the gateway (a timeout, a dropped connection, a 5xx, `UNKNOWN`,
 * `ERROR`, an answer that does not verify) the next step asks the gateway and only sends the
 * create again when the gateway says the order does not exist. The `orderNum` never changes, and
 * the gateway refuses a repeated `orderNum`, so even a wrong guess cannot make a second order.
 *
 * Asking is not done here: the loop is given `confirm`, which is `confirmOrder` of
 * `orders/confirm.ts` (the one "ask the gateway" of the plug-in). So the create path shares the
 * query in flight with a notification or a poll for the same order, and a verified answer that
 * disagrees with the order (another amount) follows the one mismatch policy: reported once as a
 * `gateway_mismatch` warning, never adopted, the order left in `creating`.
 */
import { PayButtonError } from '../errors.ts';
import type { Confirmation, ConfirmedAnswer } from '../orders/confirm.ts';
import type { CreateFields, GatewayClient } from './client.ts';
import { backoffDelay, decideAfterCreate, decideAfterQuery, type BackoffPolicy, type QueryOutcome } from './retry.ts';

export interface CreatePolicy extends BackoffPolicy {
  readonly maxRetries: number;
  readonly timeoutMs: number;
  readonly totalTimeoutMs: number;
}

/** Asks the gateway about the order being created (`confirmOrder`); `attempt` counts the queries. */
export type ConfirmCreating = (attempt: number, timeoutMs: number) => Promise<Confirmation>;

/** How the order got registered: the create's own answer, or found by asking after an uncertain try. */
export type Registered =
  | {
      readonly adopted: false;
      readonly platOrderNum: string;
      readonly url?: string | undefined;
      readonly vaNumber?: string | undefined;
      readonly payFee?: string | undefined;
      readonly method?: string | undefined;
    }
  /** An earlier try did reach the gateway: the confirmation is applied like any other (it may be paid). */
  | { readonly adopted: true; readonly confirmation: ConfirmedAnswer };

/** Thrown with `definitive: true` when the gateway certainly did not take the order. */
export class CreateFailure extends Error {
  readonly definitive: boolean;

  constructor(readonly error: PayButtonError, { definitive }: { readonly definitive: boolean }) {
    super(error.message);
    this.definitive = definitive;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A confirmation as the loop's pure decision reads it. */
export function queryOutcome(confirmation: Confirmation): QueryOutcome {
  if (confirmation.kind === 'confirmed') return { kind: 'found' };
  if (confirmation.kind === 'not_found') return { kind: 'not_found' };
  if (confirmation.reason === 'mismatch') return { kind: 'mismatch' };
  return { kind: 'undetermined', retryAfterMs: confirmation.retryAfterMs };
}

export async function registerAtGateway(
  client: GatewayClient,
  kind: 'link' | 'va',
  fields: CreateFields,
  policy: CreatePolicy,
  options: { readonly resumed: boolean; readonly confirm: ConfirmCreating },
): Promise<Registered> {
  const deadline = performance.now() + policy.totalTimeoutMs;
  const remaining = () => deadline - performance.now();
  const callTimeout = () => Math.max(1, Math.min(policy.timeoutMs, remaining()));
  // A resumed order may have reached the gateway in an earlier request: ask before sending.
  let queryFirst = options.resumed;
  let maybeSent = options.resumed;
  let retries = 0;
  let createTries = 0;
  let queryTries = 0;
  let last: PayButtonError | undefined;

  const ask = (): Promise<Confirmation> => {
    queryTries += 1;
    return options.confirm(queryTries, callTimeout());
  };

  /** One more round, if the budget allows; otherwise end with the last failure. */
  const waitForRetry = async (retryAfterMs?: number): Promise<void> => {
    if (retries >= policy.maxRetries || remaining() <= 0) {
      throw new CreateFailure(last ?? new PayButtonError('gateway_unavailable', 'The gateway could not be reached.'), { definitive: false });
    }
    const delay = backoffDelay(retries, policy, Math.random, retryAfterMs);
    retries += 1;
    if (delay >= remaining()) {
      throw new CreateFailure(last ?? new PayButtonError('gateway_timeout', 'The gateway did not answer in time.'), { definitive: false });
    }
    await sleep(delay);
  };

  for (;;) {
    if (queryFirst) {
      const confirmation = await ask();
      const decision = decideAfterQuery(queryOutcome(confirmation));
      if (decision.action === 'adopt' && confirmation.kind === 'confirmed') return { adopted: true, confirmation };
      if (decision.action === 'send_create') {
        queryFirst = false;
        continue;
      }
      if (decision.action === 'abandon' && confirmation.kind === 'undetermined') throw new CreateFailure(confirmation.error, { definitive: false });
      if (confirmation.kind === 'undetermined') last = confirmation.error;
      await waitForRetry(confirmation.kind === 'undetermined' ? confirmation.retryAfterMs : undefined);
      continue;
    }

    createTries += 1;
    const timeoutMs = callTimeout();
    const created =
      kind === 'link'
        ? await client.createPaymentLink(fields, createTries, timeoutMs)
        : await client.createVa({ ...fields, method: fields.method ?? '' }, createTries, timeoutMs);
    if (created.ok) {
      const value = created.value;
      return {
        adopted: false,
        platOrderNum: value.platOrderNum,
        url: 'url' in value ? value.url : undefined,
        vaNumber: 'vaNumber' in value ? value.vaNumber : undefined,
        payFee: 'payFee' in value ? value.payFee : undefined,
        method: 'method' in value ? value.method : undefined,
      };
    }
    last = created.error;
    const decision = decideAfterCreate(created.outcome);
    if (decision.action === 'give_up') {
      // A refusal after an uncertain earlier try may just be "duplicate orderNum": the first try
      // did register it. One question tells; otherwise the refusal stands.
      if (maybeSent && created.outcome.kind === 'result' && created.outcome.code === 'FAIL' && created.error.code === 'gateway_refused') {
        const confirmation = await ask();
        const found = decideAfterQuery(queryOutcome(confirmation));
        if (found.action === 'adopt' && confirmation.kind === 'confirmed') return { adopted: true, confirmation };
        if (found.action === 'abandon' && confirmation.kind === 'undetermined') throw new CreateFailure(confirmation.error, { definitive: false });
        if (confirmation.kind !== 'not_found') throw new CreateFailure(created.error, { definitive: false });
      }
      throw new CreateFailure(created.error, { definitive: true });
    }
    if (decision.action === 'retry') {
      queryFirst = decision.queryFirst;
      maybeSent ||= decision.queryFirst;
      await waitForRetry(created.outcome.kind === 'http' ? created.outcome.retryAfterMs : undefined);
    }
  }
}
