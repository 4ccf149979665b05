/**
 * Issue 12's amplification: does an unauthenticated request cost the gateway more when it is
 * longer? A 404 used to sign its message, which repeated the path, so a 16 KB unknown path cost
 * ~137 RSA blocks. Two runs against one gateway (SQLite, production mode): GET of a short unknown
 * path, then of a 16 KB one, each at the maximum rate, while a bystander merchant sends signed
 * `POST /gateway/pay` at a steady 40 req/s; for each: 404s per second, the RSA blocks of each
 * answer's `platSign`, the gateway's CPU per answer, and the bystander's latency.
 */
import { gatewayDatabase, type BenchContext } from '../lib/context.ts';
import { createVaFields } from '../lib/fixtures.ts';
import { formatLoad, load, type LoadResult } from '../lib/load.ts';
import { paced } from '../lib/paced.ts';
import { signBodies } from '../lib/sign-pool.ts';
import { startGateway, type PathStats } from './links.ts';

/** Node's default 16 KB header limit holds the request line too: the longest path that still reaches the gateway. */
const LONG_PATH_CHARS = 15_900;
const SHORT_PATH_CHARS = 16;
const BYSTANDER_RATE = 40;

export interface UnknownPathRun {
  readonly pathChars: number;
  readonly attack: LoadResult;
  /** RSA blocks of the `platSign` of each 404 (one private operation each when it is made). */
  readonly platSignBlocks: number;
  /** Gateway CPU ms per answer (the 404s and the bystander's creates together). */
  readonly cpuMsPerAnswer: number;
  readonly bystander: LoadResult;
}

export interface UnknownPathResult {
  readonly runs: readonly UnknownPathRun[];
  readonly problems: string[];
}

export async function runUnknownPath(context: BenchContext): Promise<UnknownPathResult> {
  const gateway = await startGateway(context, 'gateway-unknown-path', {
    database: gatewayDatabase(context, 'sqlite', 'unknown_path'),
    platformPrivateKey: context.keys.platformPrivateKey,
    merchantPublicKey: context.keys.merchantPublicKey,
    sandbox: false,
    worker: false,
  });
  const problems: string[] = [];
  const runs: UnknownPathRun[] = [];
  try {
    let taken = 0;
    for (const pathChars of [SHORT_PATH_CHARS, LONG_PATH_CHARS]) {
      const path = `/${'a'.repeat(pathChars - 1)}`;
      const url = `${gateway.url}${path}`;
      const warmUp = await load({ url, method: 'GET', durationSeconds: context.seconds.warmUp, connections: context.connections, expectStatus: 404 });
      context.log(`  ${pathChars}-character path warm-up: ${formatLoad(warmUp)}`);
      const count = BYSTANDER_RATE * context.seconds.max + 20;
      const bodies = await signBodies(createVaFields(count, `U${context.tag}`, taken), context.keys.merchantPrivateKey);
      taken += count;
      await gateway.command({ cmd: 'reset' });
      const cpuBefore = await gateway.cpuSeconds();
      const [attack, bystander] = await Promise.all([
        load({ url, method: 'GET', durationSeconds: context.seconds.max, connections: context.connections, expectStatus: 404 }),
        paced({ url: `${gateway.url}/gateway/pay`, bodies, rate: BYSTANDER_RATE, durationSeconds: context.seconds.max }),
      ]);
      const cpuMs = ((await gateway.cpuSeconds()) - cpuBefore) * 1000;
      const stats = (await gateway.command<Record<string, PathStats>>({ cmd: 'stats' }))[path];
      const platSignBlocks = stats && stats.requests > 0 ? stats.responseSignBlocks / stats.requests : Number.NaN;
      if (attack.failed > 0) problems.push(`${pathChars}-character path: ${attack.failed} answers were not 404`);
      if (bystander.failed > 0) problems.push(`${pathChars}-character path: ${bystander.failed} bystander creates failed`);
      const run = { pathChars, attack, platSignBlocks, cpuMsPerAnswer: cpuMs / Math.max(1, attack.ok + bystander.ok), bystander };
      context.log(
        `  ${pathChars}-character path: ${formatLoad(attack)}; ${platSignBlocks.toFixed(2)} platSign blocks per 404; ` +
          `gateway CPU ${run.cpuMsPerAnswer.toFixed(2)} ms per answer; bystander at ${BYSTANDER_RATE} req/s: ${formatLoad(bystander)}`,
      );
      runs.push(run);
    }
  } finally {
    await gateway.stop();
  }
  return { runs, problems };
}

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

/** The report's section for this benchmark. */
export function unknownPathLines(result: UnknownPathResult): string[] {
  return [
    '## Unknown paths: cost against length (issue 12)',
    '',
    `GET of an unknown path at the maximum rate (autocannon), while a bystander merchant sends signed \`POST /gateway/pay\` at ${BYSTANDER_RATE} req/s (open loop). ` +
      'Refusals before authentication are fixed texts signed once per process, so the 404 should cost the same at any length.',
    '',
    '| Path | 404s | platSign blocks per 404 | Gateway CPU per answer | Bystander creates |',
    '|---|---|---|---|---|',
    ...result.runs.map(
      (run) =>
        `| ${run.pathChars.toLocaleString('en-US')} characters | ${Math.round(run.attack.requestsPerSecond).toLocaleString('en-US')} req/s, p50 ${fixed(run.attack.p50Ms, 1)} ms | ${fixed(run.platSignBlocks, 2)} (made once, then reused) | ` +
        `${fixed(run.cpuMsPerAnswer, 2)} ms | p50 ${fixed(run.bystander.p50Ms, 1)} ms, p99 ${fixed(run.bystander.p99Ms, 1)} ms |`,
    ),
    '',
  ];
}
