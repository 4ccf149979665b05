/**
 * `npm run test:under-load`: the whole `npm test`, several times in a row, with a CPU burner
 * beside it (issue 21: a suite that waits on states passes on a busy machine, only slower). The
 * burner is worker threads that spin; each run's wall time, result and load average are printed,
 * and the exit code is 1 when any run failed.
 *
 *   npm run test:under-load [-- --runs 3] [--burners 1] [--command "npm test"]
 *
 * `--burners 0` runs the same loop without the burner (a plain timing of the suite).
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';

function parseArgs(argv: readonly string[]): { runs: number; burners: number; command: string } {
  let runs = 3;
  let burners = 1;
  let command = 'npm test';
  for (let index = 0; index < argv.length; index++) {
    const value = argv[index + 1];
    if (argv[index] === '--runs') runs = Number(value);
    else if (argv[index] === '--burners') burners = Number(value);
    else if (argv[index] === '--command') command = value ?? command;
    else throw new Error(`unknown option ${argv[index]}: npm run test:under-load -- [--runs 3] [--burners 1] [--command "npm test"]`);
    index++;
  }
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a whole number of at least 1');
  if (!Number.isInteger(burners) || burners < 0) throw new Error('--burners must be a whole number of at least 0');
  return { runs, burners, command };
}

/** A thread that keeps one core busy until it is terminated. */
function startBurner(): Worker {
  return new Worker('for (;;) Math.sqrt(Math.random());', { eval: true });
}

function runOnce(command: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, { shell: true, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code) => resolve(code));
  });
}

const load = (): string => loadavg().map((value) => value.toFixed(2)).join(' ');

const { runs, burners, command } = parseArgs(process.argv.slice(2));
const workers = Array.from({ length: burners }, startBurner);
const results: string[] = [];
let failed = 0;
try {
  for (let run = 1; run <= runs; run++) {
    const loadBefore = load();
    const started = Date.now();
    const code = await runOnce(command);
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    if (code !== 0) failed += 1;
    results.push(`run ${run}/${runs}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds} s; load average ${loadBefore} before, ${load()} after`);
    console.log(`\n[under-load] ${results.at(-1)}\n`);
  }
} finally {
  await Promise.all(workers.map((worker) => worker.terminate()));
}
console.log(`[under-load] \`${command}\` beside ${burners} CPU burner(s):\n${results.map((line) => `  ${line}`).join('\n')}`);
process.exitCode = failed ? 1 : 0;
