/**
 * Registering one order at the gateway, exactly once, through an unreliable network:
 * bounded retries with full-jitter backoff on network errors, timeouts, 5xx and 429; after
 * anything that may have reached the gateway (a timeout, a dropped connection, a 5xx, `UNKNOWN`,
 * `ERROR`, an answer that does not verify) the next step asks `/gateway/query` and only sends the
 * create again when the gateway says the order does not exist. The `orderNum` never changes, and
 * the gateway refuses a repeated `orderNum`, so even a wrong guess cannot make a second order.
 */
import { PayButtonError } from '../errors.ts';
import { interpretQuery, type Confirmation, type ConfirmedFacts, type GatewayStatus } from '../orders/confirm.ts';
import type { CallFailure, CreateFields, GatewayClient } from './client.ts';
import { backoffDelay, decideAfterCreate, decideAfterQuery, type BackoffPolicy, type QueryOutcome } from './retry.ts';

export interface CreatePolicy extends BackoffPolicy {
  readonly maxRetries: number;
  readonly timeoutMs: number;
  readonly totalTimeoutMs: number;
}

/** What the gateway holds for the order once it is registered. */
export interface Registered {
  readonly platOrderNum: string;
  readonly url?: string | undefined;
  readonly vaNumber?: string | undefined;
  readonly payFee?: string | undefined;
  readonly method?: string | undefined;
  /** The gateway's state when it was found by a query (an order may be paid already). */
  readonly status: GatewayStatus;
  readonly paidAt?: Date | undefined;
  /** When the gateway expires it (known when found by a query). */
  readonly expiresAt?: Date | undefined;
  /** True when it was found by a query after an uncertain try, not answered by the create itself. */
  readonly adopted: boolean;
}

/** Thrown with `definitive: true` when the gateway certainly did not take the order. */
export class CreateFailure extends Error {
  constructor(readonly error: PayButtonError, readonly definitive: boolean) {
    super(error.message);
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * What a confirmation means for the loop. A verified answer that disagrees with the order we are
 * creating ends the attempt (never adopted, never re-sent: the order stays `creating` for
 * `reconcile()` and a person to look at).
 */
function queryOutcome(confirmation: Confirmation, orderNum: string): QueryOutcome {
  if (confirmation.kind === 'confirmed') return { kind: 'found' };
  if (confirmation.kind === 'not_found') return { kind: 'not_found' };
  if (confirmation.reason === 'mismatch') {
    throw new CreateFailure(new PayButtonError('gateway_response_invalid', `Order ${orderNum} was left unchanged: ${confirmation.message}.`), false);
  }
  return { kind: 'undetermined', retryAfterMs: confirmation.retryAfterMs };
}

export async function registerAtGateway(
  client: GatewayClient,
  kind: 'link' | 'va',
  fields: CreateFields,
  policy: CreatePolicy,
  options: { readonly resumed: boolean },
): Promise<Registered> {
  const deadline = performance.now() + policy.totalTimeoutMs;
  const remaining = () => deadline - performance.now();
  // A resumed order may have reached the gateway in an earlier request: ask before sending.
  let queryFirst = options.resumed;
  let maybeSent = options.resumed;
  let retries = 0;
  let createTries = 0;
  let queryTries = 0;
  let last: CallFailure | undefined;

  const expected = { orderNum: fields.orderNum, payMoney: fields.payMoney, platOrderNum: null };
  const fromQuery = (status: GatewayStatus, facts: ConfirmedFacts): Registered => ({ ...facts, status, adopted: true });

  /** One more round, if the budget allows; otherwise end with the last failure. */
  const waitForRetry = async (retryAfterMs?: number): Promise<void> => {
    if (retries >= policy.maxRetries || remaining() <= 0) {
      const error = last?.error ?? new PayButtonError('gateway_unavailable', 'The gateway could not be reached.');
      throw new CreateFailure(error, false);
    }
    const delay = backoffDelay(retries, policy, Math.random, retryAfterMs);
    retries += 1;
    if (delay >= remaining()) {
      throw new CreateFailure(last?.error ?? new PayButtonError('gateway_timeout', 'The gateway did not answer in time.'), false);
    }
    await sleep(delay);
  };

  for (;;) {
    if (queryFirst) {
      queryTries += 1;
      const found = await client.query(fields.orderNum, queryTries, Math.max(1, Math.min(policy.timeoutMs, remaining())));
      const confirmation = interpretQuery(expected, found);
      const decision = decideAfterQuery(queryOutcome(confirmation, fields.orderNum));
      if (decision.action === 'adopt' && confirmation.kind === 'confirmed') return fromQuery(confirmation.status, confirmation.facts);
      if (decision.action === 'send_create') {
        queryFirst = false;
        continue;
      }
      last = found.ok ? last : found;
      await waitForRetry(!found.ok && found.outcome.kind === 'http' ? found.outcome.retryAfterMs : undefined);
      continue;
    }

    createTries += 1;
    const timeoutMs = Math.max(1, Math.min(policy.timeoutMs, remaining()));
    const created =
      kind === 'link'
        ? await client.createPaymentLink(fields, createTries, timeoutMs)
        : await client.createVa({ ...fields, method: fields.method ?? '' }, createTries, timeoutMs);
    if (created.ok) {
      const value = created.value;
      return {
        platOrderNum: value.platOrderNum,
        url: 'url' in value ? value.url : undefined,
        vaNumber: 'vaNumber' in value ? value.vaNumber : undefined,
        payFee: 'payFee' in value ? value.payFee : undefined,
        method: 'method' in value ? value.method : undefined,
        status: 'PENDING',
        adopted: false,
      };
    }
    last = created;
    const decision = decideAfterCreate(created.outcome);
    if (decision.action === 'give_up') {
      // A refusal after an uncertain earlier try may just be "duplicate orderNum": the first try
      // did register it. One query tells; otherwise the refusal stands.
      if (maybeSent && created.outcome.kind === 'result' && created.outcome.code === 'FAIL' && created.error.code === 'gateway_refused') {
        queryTries += 1;
        const found = interpretQuery(expected, await client.query(fields.orderNum, queryTries, Math.max(1, Math.min(policy.timeoutMs, remaining()))));
        if (queryOutcome(found, fields.orderNum).kind === 'found' && found.kind === 'confirmed') return fromQuery(found.status, found.facts);
        if (found.kind !== 'not_found') throw new CreateFailure(created.error, false);
      }
      throw new CreateFailure(created.error, true);
    }
    if (decision.action === 'retry') {
      queryFirst = decision.queryFirst;
      maybeSent ||= decision.queryFirst;
      await waitForRetry(created.outcome.kind === 'http' ? created.outcome.retryAfterMs : undefined);
    }
  }
}
