/**
 * `npm run bench`: every benchmark in one run, each result divided by the two ceilings measured
 * in the same run, printed as a markdown table and written to bench/results.md.
 *
 *   npm run bench -- [--only ceilings,links,create,unknown-path,notify,drain,memory,observability,element]
 *                                  [--engines sqlite,postgres] [--quick] [--profile] [--no-write]
 *
 * PostgreSQL runs when DATABASE_URL is set or postgres://postgres@127.0.0.1:5432/test answers.
 * Load goes to 127.0.0.1 only; every run is bounded in time (about 6 minutes in all).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchContext, Ceilings, Engine } from './lib/context.ts';
import { elementSizes } from './lib/element.ts';
import { generateBenchKeys, runTag } from './lib/fixtures.ts';
import { findPostgres, schemaSet } from './lib/postgres.ts';
import { formatSummary, summarizeProfile } from './lib/profile.ts';
import { renderReport, type ReportData } from './lib/report.ts';
import type { RsaRates } from './lib/rsa.ts';
import { measureCrypto, measureEcho } from './scenarios/ceilings.ts';
import { runDrain, type DrainResult } from './scenarios/drain.ts';
import { runGatewayCreate, type GatewayCreateResult } from './scenarios/gateway-create.ts';
import { runLinks, type LinkResult } from './scenarios/links.ts';
import { runMemory, type MemoryResult } from './scenarios/memory.ts';
import { runNotify, type NotifyResult } from './scenarios/notify.ts';
import { runObservability, type ObservabilityResult } from './scenarios/observability.ts';
import { runUnknownPath, type UnknownPathResult } from './scenarios/unknown-path.ts';

const SCENARIOS = ['ceilings', 'links', 'create', 'unknown-path', 'notify', 'drain', 'memory', 'observability', 'element'] as const;
type Scenario = (typeof SCENARIOS)[number];

const HELP = `npm run bench [-- options]
  --only a,b        run only these: ${SCENARIOS.join(', ')} (the ceilings always run)
  --engines a,b     sqlite, postgres (default: both when PostgreSQL answers)
  --quick           shorter runs and smaller data sets (for trying things out)
  --profile         children run with --cpu-prof; profiles and summaries in bench/profiles/
  --no-write        print the table without writing bench/results.md
`;

function parseArgs(argv: readonly string[]) {
  const options = { only: new Set<Scenario>(SCENARIOS), engines: undefined as Engine[] | undefined, quick: false, profile: false, write: true };
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    if (arg === '--help' || arg === '-h') {
      console.log(HELP);
      process.exit(0);
    } else if (arg === '--only') {
      const names = (argv[++index] ?? '').split(',');
      for (const name of names) if (!SCENARIOS.includes(name as Scenario)) throw new Error(`--only: unknown scenario ${name}\n${HELP}`);
      options.only = new Set(names as Scenario[]);
    } else if (arg === '--engines') {
      options.engines = (argv[++index] ?? '').split(',') as Engine[];
      for (const engine of options.engines) if (engine !== 'sqlite' && engine !== 'postgres') throw new Error(`--engines: unknown engine ${engine}`);
    } else if (arg === '--quick') options.quick = true;
    else if (arg === '--profile') options.profile = true;
    else if (arg === '--no-write') options.write = false;
    else throw new Error(`unknown option ${arg}\n${HELP}`);
  }
  return options;
}

const load = () => loadavg().map((value) => value.toFixed(2)).join(' ');

function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

function meanRates(runs: readonly RsaRates[]): RsaRates {
  return {
    privatePerSecond: mean(runs.map((r) => r.privatePerSecond)),
    publicPerSecond: mean(runs.map((r) => r.publicPerSecond)),
    privateWithPemParsePerSecond: mean(runs.map((r) => r.privateWithPemParsePerSecond)),
  };
}

const README_START = '<!-- results: written by bench/run.ts -->';
const README_END = '<!-- /results -->';

/** The README shows the latest run's header and main table (the rest is in results.md). */
function updateReadme(file: string, report: string): void {
  const readme = readFileSync(file, 'utf8');
  const start = readme.indexOf(README_START);
  const end = readme.indexOf(README_END);
  if (start < 0 || end < start) return;
  const summary = report.split('\n## ')[0]!.replace(/^# Benchmark results\n\n/, '').trim();
  writeFileSync(file, `${readme.slice(0, start + README_START.length)}\n${summary}\n\nDetails (ceilings, RSA and CPU per request, every missed goal with its reason, set-up): [results.md](results.md).\n${readme.slice(end)}`);
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const startedAt = new Date();
  const started = performance.now();
  const loadStart = load();
  const benchDir = fileURLToPath(new URL('./', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'tombolbayar-bench-'));
  const tag = runTag();
  const profileDir = options.profile ? join(benchDir, 'profiles', startedAt.toISOString().replace(/[:.]/g, '-')) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });

  const skipped: string[] = [];
  let engines: Engine[] = options.engines ?? ['sqlite', 'postgres'];
  const postgresUrl = engines.includes('postgres') ? await findPostgres() : undefined;
  if (engines.includes('postgres') && !postgresUrl) {
    skipped.push('PostgreSQL: no server answered (set DATABASE_URL)');
    engines = engines.filter((engine) => engine !== 'postgres');
  }
  const schemas = postgresUrl ? schemaSet(postgresUrl, tag) : undefined;
  const context: BenchContext = {
    keys: generateBenchKeys(),
    tag,
    dir,
    postgres: postgresUrl && schemas ? { url: postgresUrl, schemas } : undefined,
    profileDir,
    seconds: options.quick ? { warmUp: 1, max: 4, half: 4 } : { warmUp: 2, max: 8, half: 8 },
    connections: 16,
    log: (line) => console.log(line),
  };

  let cleaned = false;
  const cleanUp = async () => {
    if (cleaned) return;
    cleaned = true;
    await schemas?.dropAll().catch((error: unknown) => console.error('could not drop the PostgreSQL schemas:', error));
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('SIGINT', () => {
    void cleanUp().finally(() => process.exit(130));
  });

  const links: LinkResult[] = [];
  const creates: GatewayCreateResult[] = [];
  const drains: DrainResult[] = [];
  const notifies: NotifyResult[] = [];
  let memory: MemoryResult | undefined;
  const observability: ObservabilityResult[] = [];
  let unknownPaths: UnknownPathResult | undefined;
  const httpRuns: number[] = [];
  const httpCpuRuns: number[] = [];
  const rsaRuns: RsaRates[] = [];
  try {
    console.log(`tombolbayar benchmarks · ${cpus().length} cores · load average ${loadStart} · engines ${engines.join(', ')}${profileDir ? ` · profiling to ${profileDir}` : ''}`);
    console.log('ceilings (start of run)');
    rsaRuns.push(measureCrypto(context));
    const echoStart = await measureEcho(context);
    httpRuns.push(echoStart.requestsPerSecond);
    httpCpuRuns.push(echoStart.cpuMsPerRequest);

    for (const engine of engines) {
      if (options.only.has('links')) {
        console.log(`link creation, ${engine}`);
        links.push(await runLinks(context, engine));
      }
      if (options.only.has('create')) {
        console.log(`gateway create-order, ${engine}`);
        creates.push(await runGatewayCreate(context, engine));
      }
    }
    if (options.only.has('unknown-path')) {
      console.log('unknown paths, short and 16 KB (SQLite)');
      unknownPaths = await runUnknownPath(context);
    }
    if (options.only.has('notify')) {
      for (const engine of engines) {
        console.log(`plug-in notification path, ${engine}`);
        notifies.push(await runNotify(context, engine, options.quick ? 1_500 : 6_000));
      }
    }
    if (options.only.has('drain')) {
      for (const engine of engines) {
        console.log(`notification drain, ${engine}`);
        drains.push(await runDrain(context, engine, options.quick ? 2_000 : 10_000));
      }
    }
    if (options.only.has('memory')) {
      console.log('memory');
      memory = await runMemory(context, options.quick ? 10_000 : 100_000);
    }
    if (options.only.has('observability')) {
      // SQLite only: the cost is the packages' own, the same on either engine.
      console.log('metrics and traces: with and without, interleaved (SQLite)');
      observability.push(await runObservability(context, 'sqlite', { rounds: options.quick ? 2 : 4, notifications: options.quick ? 1_500 : 10_000 }));
    }
    console.log('ceilings (end of run)');
    rsaRuns.push(measureCrypto(context));
    const echoEnd = await measureEcho(context);
    httpRuns.push(echoEnd.requestsPerSecond);
    httpCpuRuns.push(echoEnd.cpuMsPerRequest);
  } finally {
    await cleanUp();
  }

  let element: ReportData['element'];
  if (options.only.has('element')) {
    const sizes = elementSizes('pay-button.js');
    if (sizes) element = { sizes, builtAt: statSync(fileURLToPath(new URL('../packages/pay-button/dist/pay-button.js', import.meta.url))).mtime };
    else skipped.push('element: packages/pay-button/dist/pay-button.js is missing (`npm run build -w @tombolbayar/pay-button`)');
  }

  const ceilings: Ceilings = { httpPerSecond: mean(httpRuns), httpRuns, httpCpuMsPerRequest: mean(httpCpuRuns), rsa: meanRates(rsaRuns), rsaRuns };
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const report = renderReport({
    startedAt,
    seconds: (performance.now() - started) / 1000,
    machine: { cores: cpus().length, cpu, node: process.versions.node, openssl: process.versions.openssl, loadStart, loadEnd: load() },
    settings: { connections: context.connections, warmUp: context.seconds.warmUp, max: context.seconds.max, half: context.seconds.half, profiled: Boolean(profileDir) },
    ceilings,
    links,
    creates,
    drains,
    notifies,
    memory,
    observability,
    unknownPaths,
    element,
    skipped,
  });
  console.log(`\n${report}`);
  if (options.write && !profileDir && !options.quick) {
    writeFileSync(join(benchDir, 'results.md'), report);
    updateReadme(join(benchDir, 'README.md'), report);
    console.log('written to bench/results.md and the table in bench/README.md');
  }
  if (profileDir) {
    // Per child, the busiest thread's profile (its main thread).
    const summaries = readdirSync(profileDir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => {
        const files = readdirSync(join(profileDir, entry.name)).filter((file) => file.endsWith('.cpuprofile'));
        const busiest = files
          .map((file) => summarizeProfile(join(profileDir, entry.name, file), 100_000))
          .sort((a, b) => b.busyMs - a.busyMs)[0];
        return busiest ? formatSummary(entry.name, busiest) : `${entry.name}: no profile written`;
      });
    writeFileSync(join(profileDir, 'summary.txt'), `${summaries.join('\n\n')}\n`);
    console.log(`\n${summaries.join('\n\n')}\n\nprofiles and summary.txt in ${profileDir}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
