/**
 * The transition table (`orders/transitions.ts`): which moves exist, what each starts, and that
 * the README prints the table the code runs. Also: the plug-in's modules import no circle.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { ORDER_STATUSES, type OrderStatus } from '../src/store/schema.ts';
import { allowedFrom, findTransition, isTerminal, PAYABLE_STATES, TRANSITIONS, transitionTableMarkdown, type Cause } from '../src/orders/transitions.ts';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

describe('the transition table', () => {
  // [from, to, cause, allowed, starts onPaid]
  const cases: Array<[OrderStatus | null, OrderStatus, Cause, boolean, boolean]> = [
    [null, 'creating', 'stored', true, false],
    [null, 'pending', 'registered', false, false],
    ['creating', 'pending', 'registered', true, false],
    ['creating', 'failed', 'refused', true, false],
    ['pending', 'failed', 'refused', false, false],
    ['creating', 'paid', 'confirmed', true, true],
    ['creating', 'expired', 'confirmed', true, false],
    ['pending', 'paid', 'confirmed', true, true],
    ['pending', 'expired', 'confirmed', true, false],
    ['pending', 'failed', 'confirmed', true, false],
    ['expired', 'paid', 'confirmed', true, true],
    ['failed', 'paid', 'confirmed', true, true],
    ['paid', 'expired', 'confirmed', false, false],
    ['paid', 'failed', 'confirmed', false, false],
    ['paid', 'pending', 'registered', false, false],
    ['expired', 'failed', 'confirmed', false, false],
    ['failed', 'expired', 'confirmed', false, false],
    ['expired', 'pending', 'registered', false, false],
    ['pending', 'creating', 'stored', false, false],
    ['pending', 'paid', 'registered', false, false],
  ];
  for (const [from, to, cause, allowed, startsOnPaid] of cases) {
    test(`${from ?? '(new)'} -> ${to} (${cause}): ${allowed ? 'allowed' : 'refused'}${startsOnPaid ? ', starts onPaid' : ''}`, () => {
      const transition = findTransition(from, to, cause);
      assert.equal(transition !== undefined, allowed);
      if (transition) assert.equal(transition.startsOnPaid, startsOnPaid);
    });
  }

  test('every move to paid, and only those, starts onPaid', () => {
    for (const transition of TRANSITIONS) assert.equal(transition.startsOnPaid, transition.to === 'paid');
  });

  test('the compare-and-set of each final state names exactly the states the table allows', () => {
    assert.deepEqual(allowedFrom('paid', 'confirmed'), ['creating', 'pending', 'expired', 'failed']);
    assert.deepEqual(allowedFrom('expired', 'confirmed'), ['creating', 'pending']);
    assert.deepEqual(allowedFrom('failed', 'confirmed'), ['creating', 'pending']);
    assert.deepEqual(allowedFrom('failed', 'refused'), ['creating']);
    assert.deepEqual(allowedFrom('pending', 'registered'), ['creating']);
  });

  test('paid is the only end: nothing leaves it; expired and failed may still turn paid', () => {
    assert.deepEqual(ORDER_STATUSES.filter(isTerminal), ['paid']);
  });

  test('payable states are the ones a customer can still pay, and no move re-enters them from an end', () => {
    assert.deepEqual(PAYABLE_STATES, ['creating', 'pending']);
    for (const transition of TRANSITIONS) {
      if (transition.from !== null && !PAYABLE_STATES.includes(transition.from)) assert.ok(!PAYABLE_STATES.includes(transition.to), `${transition.from} -> ${transition.to}`);
    }
  });

  test('no move is listed twice', () => {
    const keys = TRANSITIONS.map((transition) => `${transition.from}>${transition.to}>${transition.cause}`);
    assert.equal(new Set(keys).size, keys.length);
  });

  test('the README prints the table the code runs', () => {
    const readme = readFileSync(join(PACKAGE_DIR, 'README.md'), 'utf8');
    assert.ok(readme.includes(transitionTableMarkdown()), 'packages/server/README.md lists transitionTableMarkdown() verbatim');
  });
});

/** Relative imports of every source file, resolved to files. */
function importGraph(root: string): Map<string, string[]> {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) files.push(path);
    }
  };
  walk(root);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?from\s+'(\.{1,2}\/[^']+)'/g)].map((match) => relative(root, resolve(dirname(file), match[1]!)));
    graph.set(relative(root, file), targets);
  }
  return graph;
}

describe('module graph', () => {
  test('src/ has no import circle (type-only imports included)', () => {
    const graph = importGraph(join(PACKAGE_DIR, 'src'));
    const state = new Map<string, 'visiting' | 'done'>();
    const circles: string[] = [];
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'visiting') {
        circles.push([...path.slice(path.indexOf(file)), file].join(' -> '));
        return;
      }
      state.set(file, 'visiting');
      for (const target of graph.get(file) ?? []) visit(target, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    assert.deepEqual(circles, []);
  });
});

describe('one writer', () => {
  /** The store's writes (everything of `OrderStore` that is not a read). */
  const WRITES = [
    'insertCreating', 'claimCreateLease', 'releaseCreateLease', 'markCreated', 'recordFacts', 'markCreateFailed', 'transition', 'updateReturnTo',
    'claimCheck', 'claimFulfilment', 'renewFulfilment', 'completeFulfilment', 'failFulfilment',
  ];
  /** The order's state: the lifecycle; the fulfilment lease columns: the fenced runner it starts. */
  const WRITERS: Record<string, readonly string[]> = {
    'orders/lifecycle.ts': WRITES.filter((name) => !/Fulfilment$/.test(name)),
    'orders/fulfilment.ts': ['claimFulfilment', 'renewFulfilment', 'completeFulfilment', 'failFulfilment'],
  };

  test('every write of an order outside the store is in the lifecycle (or the fulfilment runner it starts)', () => {
    const root = join(PACKAGE_DIR, 'src');
    const found: string[] = [];
    for (const file of importGraph(root).keys()) {
      if (file.startsWith('store/')) continue;
      const text = readFileSync(join(root, file), 'utf8');
      for (const match of text.matchAll(/\borders\.(\w+)\(/g)) {
        if (WRITES.includes(match[1]!) && !(WRITERS[file] ?? []).includes(match[1]!)) found.push(`${file}: orders.${match[1]}`);
      }
    }
    assert.deepEqual(found, []);
  });
});

