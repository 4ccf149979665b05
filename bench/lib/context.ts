/** What every scenario of `run.ts` shares: keys, where to put files, the engines, the run's knobs. */
import { join } from 'node:path';
import type { DatabaseConfig } from '@tombolbayar/gateway/internal';
import type { DatabaseOption } from '@tombolbayar/express';
import type { BenchKeys } from './fixtures.ts';
import type { SchemaSet } from './postgres.ts';
import type { RsaRates } from './rsa.ts';

export type Engine = 'sqlite' | 'postgres';

export interface BenchContext {
  readonly keys: BenchKeys;
  /** Unique per run: order numbers, idempotency keys and schema names carry it. */
  readonly tag: string;
  /** Temporary directory of this run (SQLite files). */
  readonly dir: string;
  readonly postgres: { readonly url: string; readonly schemas: SchemaSet } | undefined;
  /** Where children write `--cpu-prof` profiles; undefined: no profiling. */
  readonly profileDir: string | undefined;
  readonly seconds: { readonly warmUp: number; readonly max: number; readonly half: number };
  readonly connections: number;
  log(line: string): void;
}

/** The node flags of a server child: profiling when asked for. */
export function childFlags(context: BenchContext, label: string, extra: readonly string[] = []): string[] {
  const flags = [...extra];
  // One directory per child, so each child's profiles stay apart.
  if (context.profileDir) flags.push('--cpu-prof', `--cpu-prof-dir=${join(context.profileDir, label)}`);
  return flags;
}

export function gatewayDatabase(context: BenchContext, engine: Engine, name: string): DatabaseConfig {
  if (engine === 'sqlite') return { kind: 'sqlite', file: join(context.dir, `gateway-${name}.sqlite`) };
  const postgres = context.postgres!;
  return { kind: 'postgres', url: postgres.url, schema: postgres.schemas.name(`gw_${name}`) };
}

export function shopDatabase(context: BenchContext, engine: Engine, name: string): DatabaseOption {
  if (engine === 'sqlite') return { kind: 'sqlite', file: join(context.dir, `shop-${name}.sqlite`) };
  const postgres = context.postgres!;
  return { kind: 'postgres', url: postgres.url, schema: postgres.schemas.name(`pb_${name}`) };
}

export const ENGINE_NAMES: Record<Engine, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

/** The ceilings every result is divided by, measured in the same run. */
export interface Ceilings {
  /** Bare Express 5 JSON echo, requests per second (mean of the measurements of this run). */
  readonly httpPerSecond: number;
  readonly httpRuns: readonly number[];
  /** CPU time the echo process used per request (mean of the runs), ms. */
  readonly httpCpuMsPerRequest: number;
  readonly rsa: RsaRates;
  readonly rsaRuns: readonly RsaRates[];
}
