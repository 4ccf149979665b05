/**
 * Fenced fulfilment with two real plug-in processes on one store (SQLite; PostgreSQL too when
 * DATABASE_URL is set). Process A runs `onPaid` and is frozen (SIGSTOP) while in it, for longer
 * than the lease; process B takes the lease over and completes; A is resumed (SIGCONT). Exactly
 * one run completes, with its signal not aborted; A's signal is aborted and it emits
 * `fulfilment.lease_lost`; the order is fulfilled once.
 *
 * Every wait is on a state: a line a child printed, a row of the store. No fixed sleeps.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { createStore } from '../src/store/index.ts';
import type { NewOrder } from '../src/store/orders.ts';
import { ENGINES } from './support/engines.ts';
import type { ChildConfig } from './support/fulfilment-child.ts';
import { waitFor } from './support/harness.ts';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const CHILD = fileURLToPath(new URL('./support/fulfilment-child.ts', import.meta.url));
const LEASE_MS = 1_000;
const HEARTBEAT_MS = 200;

interface Line {
  readonly event: string;
  readonly attempt?: number;
  readonly aborted?: boolean;
  readonly reason?: string | null;
  readonly key?: string;
  readonly report?: { fulfilled: number; fulfilmentFailed: number; errors: number };
}

class Child {
  readonly lines: Line[] = [];
  output = '';
  private readonly process: ChildProcess;

  constructor(readonly name: string, config: ChildConfig) {
    this.process = spawn(process.execPath, ['--conditions=tombolbayar-internal', '--import', '@tombolbayar/test-support/loopback-guard-preload', '--import', 'tsx', CHILD], {
      cwd: PACKAGE_DIR,
      env: { ...process.env, TOMBOLBAYAR_CHILD_CONFIG: JSON.stringify(config) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let buffered = '';
    this.process.stdout!.on('data', (chunk: Buffer) => {
      this.output += chunk.toString();
      buffered += chunk.toString();
      let end: number;
      while ((end = buffered.indexOf('\n')) >= 0) {
        const text = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        try {
          this.lines.push(JSON.parse(text) as Line);
        } catch {
          // Not one of ours (a warning printed by Node): kept in `output` only.
        }
      }
    });
    this.process.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
  }

  named(event: string): Line[] {
    return this.lines.filter((line) => line.event === event);
  }

  async waitFor(what: string, check: (lines: readonly Line[]) => boolean): Promise<void> {
    await waitFor(() => check(this.lines), `${this.name}: ${what}\n${this.output}`, 60_000);
  }

  send(command: string): void {
    this.process.stdin!.write(`${command}\n`);
  }

  signal(name: 'SIGSTOP' | 'SIGCONT' | 'SIGKILL'): void {
    this.process.kill(name);
  }

  async end(): Promise<void> {
    if (this.process.exitCode !== null || this.process.signalCode !== null) return;
    const exited = new Promise((resolve) => this.process.once('exit', resolve));
    this.process.kill('SIGCONT');
    this.process.kill('SIGKILL');
    await exited;
  }
}

function paidOrder(): NewOrder {
  return {
    orderNum: `PBFENCE${Math.random().toString(36).slice(2, 10).toUpperCase()}`,
    kind: 'va', idempotencyKey: null, requestHash: null, statusToken: 't'.repeat(43), merchantCode: 'MERCH-TEST-01',
    payMoney: '150000', productDetail: 'Kopi Gayo 250g', name: 'Budi Santoso', email: 'budi@example.com', phone: '081234567890',
    method: 'VA_BCA', expiryPeriod: 60, item: 'kopi', metadata: null, returnTo: null, reference: null, purchaseKey: null,
  };
}

for (const engine of ENGINES) {
  describe(`fenced fulfilment across two processes: ${engine.name}`, () => {
    test('a run frozen past its lease is fenced off: one completion, the stalled run is told', async () => {
      const fresh = await engine.fresh();
      const store = createStore(fresh.option);
      const children: Child[] = [];
      try {
        await store.migrate();
        const now = new Date();
        const order = (await store.orders.insertCreating(paidOrder(), now, new Date(now.getTime() + 30_000))).order!;
        assert.ok(await store.orders.transition(order.orderNum, ['creating'], 'paid', { platOrderNum: 'PLATFENCE1' }, now));

        const config: ChildConfig = { database: fresh.option, fulfilmentLeaseMs: LEASE_MS, fulfilmentHeartbeatMs: HEARTBEAT_MS };
        const a = new Child('A', config);
        const b = new Child('B', config);
        children.push(a, b);
        await a.waitFor('ready', (lines) => lines.some((line) => line.event === 'ready'));
        await b.waitFor('ready', (lines) => lines.some((line) => line.event === 'ready'));

        // A starts onPaid (attempt 1) and is frozen inside it.
        a.send('reconcile');
        await a.waitFor('onPaid entered', (lines) => lines.some((line) => line.event === 'onpaid' && line.attempt === 1));
        a.signal('SIGSTOP');

        // B asks until A's lease has run out and it can take over; its run completes.
        let asked = 0;
        await waitFor(async () => {
          if (b.named('fulfilment.succeeded').length > 0) return true;
          if (b.named('reconcile').length + b.named('reconcile_error').length === asked) {
            asked += 1;
            b.send('reconcile');
          }
          return false;
        }, `B took over and completed\n${b.output}`, 60_000);
        assert.deepEqual(b.named('onpaid').map((line) => line.attempt), [2]);
        assert.deepEqual(b.named('onpaid_end').map((line) => [line.attempt, line.aborted]), [[2, false]], 'B completed with its signal not aborted');
        const fulfilled = (await store.orders.get(order.orderNum))!;
        assert.ok(fulfilled.fulfilledAt, 'fulfilled by B');

        // A wakes up past its lease: its signal aborts, it records nothing, and says so.
        a.signal('SIGCONT');
        await a.waitFor('lease lost', (lines) => lines.some((line) => line.event === 'fulfilment.lease_lost'));
        await a.waitFor('its reconcile ended', (lines) => lines.some((line) => line.event === 'reconcile'));
        const ended = a.named('onpaid_end');
        assert.equal(ended.length, 1);
        assert.equal(ended[0]!.attempt, 1);
        assert.equal(ended[0]!.aborted, true, 'the stalled run saw signal.aborted');
        assert.match(ended[0]!.reason ?? '', /LeaseLostError/);
        assert.deepEqual(a.named('fulfilment.lease_lost').map((line) => line.attempt), [1]);
        assert.equal(a.named('fulfilment.succeeded').length, 0, 'the stalled run never counts as the completion');
        assert.equal(a.named('reconcile')[0]!.report!.fulfilled, 0);
        assert.equal(a.named('onpaid')[0]!.key, b.named('onpaid')[0]!.key, 'one key per order, on every run');

        const after = (await store.orders.get(order.orderNum))!;
        assert.deepEqual(after.fulfilledAt, fulfilled.fulfilledAt, 'fulfilled once: the completion is B\'s');
        assert.equal(after.fulfilAttempts, 2);
        assert.equal(b.named('fulfilment.succeeded').length + a.named('fulfilment.succeeded').length, 1);

        // And never again, from either process.
        a.send('reconcile');
        b.send('reconcile');
        await a.waitFor('a second reconcile', (lines) => lines.filter((line) => line.event === 'reconcile').length === 2);
        await b.waitFor('one more reconcile', (lines) => lines.filter((line) => line.event === 'reconcile').length === asked + 1);
        assert.equal(a.named('onpaid').length + b.named('onpaid').length, 2);
      } finally {
        await Promise.all(children.map((child) => child.end()));
        await store.close();
        await fresh.cleanup();
      }
    });
  });
}
