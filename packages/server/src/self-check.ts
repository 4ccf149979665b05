/**
 * The start-up check: one signed `/gateway/query` for an order that cannot exist, read for what it
 * proves about the configuration. A gateway of the family answers it `NOTEXIST`, signed; anything
 * else names the mistake (unreachable gateway, a URL that is not a gateway, another platform key,
 * an unknown merchant, a key the gateway does not accept), so the merchant reads it in the terminal
 * when the server starts instead of when the first customer pays.
 *
 * `verdictOf` is the pure reading of the answer, table-tested; `runSelfCheck` asks the gateway with
 * its own event channel, so the probe's call is reported once, by the verdict, not also as a failed
 * `gateway.call`.
 */
import { customAlphabet } from 'nanoid';
import { PayButtonEvents } from './events.ts';
import { isLoopbackHost } from './gateway/channel.ts';
import type { LoggerLike } from './logging/logger.ts';
import { GatewayClient, type CallResult, type GatewayClientConfig } from './gateway/client.ts';
import type { QuerySuccess } from '@tombolbayar/protocol';

export type SelfCheckProblem =
  /** No answer: connection refused, DNS, timeout. */
  | 'gateway_unreachable'
  /** Something answered, but without a platSign: gatewayUrl is not a gateway of the family (or a proxy answered). */
  | 'not_a_gateway'
  /** A platSign that none of the configured platform keys verifies. */
  | 'platform_key_mismatch'
  /** The gateway does not know merchantCode. */
  | 'merchant_unknown'
  /** The gateway refused the signed query: usually privateKey is not the registered key. */
  | 'merchant_key_rejected'
  /** The gateway is up but failing (5xx, 429, ERROR, UNKNOWN, an answer that makes no sense). */
  | 'gateway_failing';

export type SelfCheckReport =
  | { readonly ok: true; readonly gatewayUrl: string; readonly message: string }
  | { readonly ok: false; readonly gatewayUrl: string; readonly problem: SelfCheckProblem; readonly message: string };

/** What one probe answer says about the configuration. */
export function verdictOf(result: CallResult<QuerySuccess>, config: { readonly gatewayUrl: string; readonly merchantCode: string }): SelfCheckReport {
  const { gatewayUrl, merchantCode } = config;
  const fail = (problem: SelfCheckProblem, message: string): SelfCheckReport => ({ ok: false, gatewayUrl, problem, message });
  if (result.ok) return fail('gateway_failing', `the gateway at ${gatewayUrl} reported an order that cannot exist; it is not behaving as a gateway of the family`);
  const { outcome, error } = result;
  switch (outcome.kind) {
    case 'timeout':
    case 'network':
      return fail('gateway_unreachable', `cannot reach the gateway at ${gatewayUrl} (${error.message}); check gatewayUrl and that the gateway is running`);
    case 'http':
      return fail('gateway_failing', `the gateway at ${gatewayUrl} answered HTTP ${outcome.status}; orders will be retried, but check it`);
    case 'invalid_response':
      if (outcome.why === 'unsigned') return fail('not_a_gateway', `${gatewayUrl} answered without a platSign (${error.message}); is gatewayUrl the gateway's API address?`);
      if (outcome.why === 'bad_signature') return fail('platform_key_mismatch', `the gateway's answers do not verify with platformPublicKey; set the platform public key this gateway gave you`);
      return fail('gateway_failing', `the gateway at ${gatewayUrl} answered outside the protocol: ${error.message}`);
    case 'result':
      if (outcome.code === 'NOTEXIST') {
        // NOTEXIST is the expected answer for the probe's order; the family uses the same code for an
        // unknown merchant, which its message names.
        const said = outcome.message ?? '';
        return /merchant/i.test(said) && !/\border/i.test(said)
          ? fail('merchant_unknown', `the gateway does not know merchant ${merchantCode} (it says: ${said}); check merchantCode, and that gatewayUrl is the gateway you registered with`)
          : { ok: true, gatewayUrl, message: `gateway ${gatewayUrl} reachable; merchant ${merchantCode} known, its key accepted; the platform key verifies` };
      }
      if (outcome.code === 'FAIL') {
        return fail('merchant_key_rejected', `the gateway refused a signed query from merchant ${merchantCode} (it says: ${outcome.message ?? error.message}); is privateKey the key whose public half is registered for ${merchantCode}?`);
      }
      return fail('gateway_failing', `the gateway at ${gatewayUrl} could not answer (${outcome.code}): ${error.message}`);
    default:
      return fail('gateway_failing', `the gateway at ${gatewayUrl} answered unexpectedly: ${error.message}`);
  }
}

/** 16 characters no order number of ours has (it has its prefix and its own alphabet). */
const probeId = customAlphabet('0123456789', 16);

/** Ask the gateway once; never throws (a crash in the check is reported as its verdict). */
export async function runSelfCheck(config: Omit<GatewayClientConfig, 'events'>): Promise<SelfCheckReport> {
  const gatewayUrl = config.gatewayUrl.href.replace(/\/+$/, '');
  const client = new GatewayClient({ ...config, events: new PayButtonEvents() });
  try {
    const result = await client.query(`SELFCHECK${probeId()}`, 1);
    return verdictOf(result, { gatewayUrl, merchantCode: config.merchantCode });
  } catch (error) {
    return { ok: false, gatewayUrl, problem: 'gateway_failing', message: `the start-up check could not run: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** A configuration mistake that no request would reveal until a payment goes missing. */
export interface ConfigurationWarning {
  readonly code: 'public_url_unreachable';
  readonly message: string;
}

/** Pure, table-tested: what is wrong with where notifications will be sent. */
export function configurationWarnings(options: { readonly gatewayUrl: URL; readonly publicUrl: URL; readonly mountPath: string }): ConfigurationWarning[] {
  const warnings: ConfigurationWarning[] = [];
  if (isLoopbackHost(options.publicUrl.hostname) && !isLoopbackHost(options.gatewayUrl.hostname)) {
    warnings.push({
      code: 'public_url_unreachable',
      message: `publicUrl ${options.publicUrl.origin} is this machine, but the gateway at ${options.gatewayUrl.origin} is not: ` +
        `it cannot deliver notifications to ${options.publicUrl.origin}${options.mountPath === '/' ? '' : options.mountPath}/notify nor return customers there. ` +
        'Set publicUrl to the https address the gateway and your customers reach (a tunnel while you develop)',
    });
  }
  return warnings;
}

/**
 * The start-up check as `payButton()` runs it: on the next turn of the event loop (after the app
 * attached its listeners), the configuration warnings, then the gateway probe; a good verdict is
 * logged, a bad one is a `self_check_failed` warning (logged as an error). Nothing is reported once
 * `signal` aborts (the router closed). Resolves with the verdict, or `undefined` when closed first.
 */
export function startSelfCheck(
  options: { readonly gatewayUrl: URL; readonly publicUrl: URL; readonly mountPath: string; readonly logger: LoggerLike },
  probe: Omit<GatewayClientConfig, 'events'>,
  events: PayButtonEvents,
  signal: AbortSignal,
): Promise<SelfCheckReport | undefined> {
  return new Promise<void>((resolve) => setImmediate(resolve))
    .then(() => {
      if (signal.aborted) return undefined;
      for (const warning of configurationWarnings(options)) events.emit('warning', warning);
      return runSelfCheck(probe);
    })
    .then((report) => {
      // Closed meanwhile: the answer (probably a socket closed under it) says nothing.
      if (!report || signal.aborted) return undefined;
      if (report.ok) options.logger.info({ event: 'self_check', ok: true, gatewayUrl: report.gatewayUrl }, report.message);
      else events.emit('warning', { code: 'self_check_failed', message: `start-up check: ${report.message}` });
      return report;
    });
}
