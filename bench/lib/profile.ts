/**
 * Reading `--cpu-prof` profiles: self time per function and per module, the two views that say
 * where a server's CPU goes (RSA inside `privateEncrypt`, zod, Kysely's query compiler, pino...).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileEntry {
  readonly name: string;
  readonly selfMs: number;
  readonly share: number;
}

export interface ProfileSummary {
  readonly totalMs: number;
  /** Time not idle (the profile's own `(idle)` node excluded). */
  readonly busyMs: number;
  readonly functions: ProfileEntry[];
  readonly modules: ProfileEntry[];
  /** Time with the function anywhere on the stack (the project's own functions and the main libraries). */
  readonly inclusive: ProfileEntry[];
}

/** This repository's root, as profiles name its files (`file:///.../`). */
const REPO_ROOT = new URL('../../', import.meta.url).pathname;

/** Functions whose inclusive time is worth showing: ours, and the big libraries' entry points. */
function isInteresting(url: string): boolean {
  const path = url.replace(/^file:\/\//, '');
  return path.startsWith(REPO_ROOT) && /^(packages|bench)\//.test(path.slice(REPO_ROOT.length)) && !url.includes('node_modules');
}

/** A short, stable name for where a function lives: a package, a repo file, or node's internals. */
export function moduleOf(url: string): string {
  if (!url) return '(native)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1]!;
  const path = url.replace(/^file:\/\//, '');
  if (path.startsWith(REPO_ROOT)) return path.slice(REPO_ROOT.length);
  return url;
}

export function summarizeProfile(file: string, top = 25): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, index) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  const functions = new Map<string, number>();
  const modules = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    total += us;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') {
      idle += us;
      continue;
    }
    const place = url ? `${moduleOf(url)}:${lineNumber + 1}` : '';
    const name = `${functionName || '(anonymous)'}${place ? ` ${place}` : ''}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
    const module = functionName === '(garbage collector)' || functionName === '(program)' ? functionName : moduleOf(url);
    modules.set(module, (modules.get(module) ?? 0) + us);
  }
  const busy = total - idle;
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const inclusive = new Map<string, number>();
  const keyOf = (node: ProfileNode) => `${node.callFrame.functionName || '(anonymous)'} ${moduleOf(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
  const nativeNames = new Set(['privateEncrypt', 'publicDecrypt', 'writev', 'prepare', 'executeQuery']);
  for (const [id, us] of selfUs) {
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parents.get(current)) {
      const node = byId.get(current);
      if (!node) break;
      if (!isInteresting(node.callFrame.url) && !nativeNames.has(node.callFrame.functionName)) continue;
      const key = keyOf(node);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
  }
  const rank = (map: Map<string, number>) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, selfMs: us / 1000, share: busy > 0 ? us / busy : 0 }));
  return { totalMs: total / 1000, busyMs: busy / 1000, functions: rank(functions), modules: rank(modules), inclusive: rank(inclusive) };
}

/** Rough kinds of work, by function and module name: where a request's CPU goes at a glance. */
const CATEGORIES: readonly (readonly [string, RegExp])[] = [
  ['RSA (node:crypto cipher)', /crypto\/cipher|privateEncrypt|publicDecrypt/],
  // The statements run (and commit) in store-kit's group-commit driver: its #query and #run are the better-sqlite3 calls.
  ['SQLite (better-sqlite3 calls)', /^(prepare|executeQuery) .*(better-sqlite3|kysely:60)|better-sqlite3|^#(query|run) .*group-commit/],
  ['PostgreSQL driver (pg)', /\b(pg|pg-pool|pg-protocol|pg-types):/],
  ['Kysely (query building)', /kysely/],
  ['zod', / zod:|protocol\/src\/(fields|issues|schemas)/],
  ['logging (pino)', /pino|sonic-boom|redact|writeString/],
  // The plug-in's package is named express: its files are the project's own code, not Express's.
  ['the project\'s own code', /packages\/express\/(dist|src)\//],
  ['Express, router, body-parser, helmet', /express|router|body-parser|content-type|raw-body|iconv|parseurl|finalhandler|type-is|media-typer|on-finished|statuses|http-errors|helmet|vary|qs:/],
  ['Node HTTP, sockets, streams', /_http|node:net|stream|writev|shutdown|^close|internalConnect|socket|node:events/],
  ['garbage collector', /garbage collector/],
  ['module loading (start-up)', /modules|tsx|esbuild|compileSourceTextModule|wrapSafe|receiveMessageOnPort|waitForWorker|lexer/],
  ['the project\'s own code', /packages\/|bench\//],
];

function categorize(functions: readonly ProfileEntry[]): ProfileEntry[] {
  const totals = new Map<string, number>();
  let busy = 0;
  for (const entry of functions) {
    busy += entry.selfMs;
    const category = CATEGORIES.find(([, pattern]) => pattern.test(entry.name))?.[0] ?? 'other';
    totals.set(category, (totals.get(category) ?? 0) + entry.selfMs);
  }
  return [...totals.entries()].sort((a, b) => b[1] - a[1]).map(([name, selfMs]) => ({ name, selfMs, share: busy > 0 ? selfMs / busy : 0 }));
}

export function formatSummary(title: string, summary: ProfileSummary, top = 15): string {
  const lines = [`${title}: busy ${(summary.busyMs / 1000).toFixed(1)} s of ${(summary.totalMs / 1000).toFixed(1)} s (wall-clock samples: a core taken by another process counts too)`];
  lines.push('  self time by kind of work:');
  for (const entry of categorize(summary.functions)) lines.push(`    ${(entry.share * 100).toFixed(1).padStart(5)}%  ${entry.name}`);
  lines.push('  self time by module:');
  for (const entry of summary.modules.slice(0, top)) lines.push(`    ${(entry.share * 100).toFixed(1).padStart(5)}%  ${entry.name}`);
  lines.push('  self time by function:');
  for (const entry of summary.functions.slice(0, top)) lines.push(`    ${(entry.share * 100).toFixed(1).padStart(5)}%  ${entry.name}`);
  lines.push('  inclusive time (the project\'s functions):');
  for (const entry of summary.inclusive.slice(0, top)) lines.push(`    ${(entry.share * 100).toFixed(1).padStart(5)}%  ${entry.name}`);
  return lines.join('\n');
}
