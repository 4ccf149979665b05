/**
 * The two ceilings every result is compared with, measured in the same run with the same
 * generator: a bare Express 5 JSON echo in its own process (the most an Express server does on
 * this machine per second), and RSA-1024 operations per second on one core (what the signatures
 * allow).
 */
import { startChild } from '../lib/children.ts';
import type { BenchContext } from '../lib/context.ts';
import { linkBodies } from '../lib/fixtures.ts';
import { formatLoad, load, type LoadResult } from '../lib/load.ts';
import { cpuPerRequest } from './throughput.ts';
import { measureRsa, type RsaRates } from '../lib/rsa.ts';

export async function measureEcho(context: BenchContext): Promise<LoadResult & { cpuMsPerRequest: number }> {
  const echo = await startChild(new URL('../servers/echo.ts', import.meta.url).pathname);
  try {
    // The body of a `POST /links`: what the plug-in's route receives.
    const body = linkBodies(1, context.tag)[0]!;
    await load({ url: echo.url, body, durationSeconds: context.seconds.warmUp, connections: context.connections });
    const { result, cpuMsPerRequest } = await cpuPerRequest({ echo }, () =>
      load({ url: echo.url, body, durationSeconds: context.seconds.max, connections: context.connections }),
    );
    context.log(`  echo: ${formatLoad(result)}; CPU ms per request: ${cpuMsPerRequest.echo!.toFixed(3)}`);
    return { ...result, cpuMsPerRequest: cpuMsPerRequest.echo! };
  } finally {
    await echo.stop();
  }
}

export function measureCrypto(context: BenchContext): RsaRates {
  const rates = measureRsa(2_000);
  context.log(
    `  RSA-1024: ${rates.privatePerSecond.toFixed(0)} private/s, ${rates.publicPerSecond.toFixed(0)} public/s, ` +
      `${rates.privateWithPemParsePerSecond.toFixed(0)} private/s when the PEM is parsed per call`,
  );
  return rates;
}
