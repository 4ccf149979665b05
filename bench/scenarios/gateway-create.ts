/**
 * The gateway's create-order endpoint alone: signed `POST /gateway/pay` (Create VA, VA_BCA)
 * requests with distinct orderNums, signed before each run with the merchant key (in forked
 * signers), sent to the gateway in its own child process, production mode.
 */
import { childFlags, gatewayDatabase, type BenchContext, type Engine } from '../lib/context.ts';
import { createVaFields } from '../lib/fixtures.ts';
import type { LoadResult } from '../lib/load.ts';
import { signBodies } from '../lib/sign-pool.ts';
import { startGateway, type CryptoCount, type PathStats } from './links.ts';
import { maxAndHalf, type Throughput } from './throughput.ts';

export interface GatewayCreateResult {
  readonly engine: Engine;
  readonly throughput: Throughput;
  readonly crypto: CryptoCount;
  /** Blocks of the request signatures the generator made beforehand (not part of the measured work). */
  readonly requestSignBlocks: number;
  readonly problems: string[];
}

export async function runGatewayCreate(context: BenchContext, engine: Engine): Promise<GatewayCreateResult> {
  const gateway = await startGateway(context, `gateway-create_${engine}`, {
    database: gatewayDatabase(context, engine, 'create'),
    platformPrivateKey: context.keys.platformPrivateKey,
    merchantPublicKey: context.keys.merchantPublicKey,
    sandbox: false,
    worker: true,
  });
  try {
    let taken = 0;
    const prefix = `B${context.tag}${engine[0]!.toUpperCase()}`;
    const source = {
      costly: true,
      take: async (count: number) => {
        const started = performance.now();
        const bodies = await signBodies(createVaFields(count, prefix, taken), context.keys.merchantPrivateKey);
        taken += count;
        context.log(`  signed ${count} /gateway/pay bodies in ${((performance.now() - started) / 1000).toFixed(1)} s (before the run)`);
        return bodies;
      },
    };
    const problems: string[] = [];
    let pathStats: PathStats | undefined;
    const check = async (run: string, result: LoadResult) => {
      const stats = (await gateway.command<Record<string, PathStats>>({ cmd: 'stats' }))['/gateway/pay'];
      if (result.failed > 0) problems.push(`${run}: ${result.failed} requests failed`);
      if (!stats || stats.success < result.ok) problems.push(`${run}: ${result.ok} answers but ${stats?.success ?? 0} SUCCESS`);
      return stats;
    };
    const throughput = await maxAndHalf(context, `gateway create ${engine}`, { url: `${gateway.url}/gateway/pay` }, source, { gateway }, {
      beforeMax: async () => {
        await gateway.command({ cmd: 'reset' });
      },
      afterMax: async (result) => {
        pathStats = await check('max', result);
        await gateway.command({ cmd: 'reset' });
      },
      afterHalf: async (result) => {
        await check('half rate', result);
      },
    });
    const requests = Math.max(1, pathStats?.success ?? 0);
    const requestBlocks = (pathStats?.requestSignBlocks ?? 0) / requests;
    const responseBlocks = (pathStats?.responseSignBlocks ?? 0) / requests;
    return {
      engine,
      throughput,
      crypto: {
        privateOps: responseBlocks,
        publicOps: requestBlocks,
        detail: `${responseBlocks.toFixed(2)} blocks of platSign made; the request's ${requestBlocks.toFixed(2)}-block sign is verified (made beforehand by the generator)`,
      },
      requestSignBlocks: requestBlocks,
      problems,
    };
  } finally {
    await gateway.stop();
  }
}
