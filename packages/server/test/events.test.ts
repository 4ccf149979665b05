/** The event emitter: listeners are isolated from each other and from the payment flow. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PayButtonEvents } from '../src/events.ts';

const warning = { code: 'test', message: 'hello' };

describe('PayButtonEvents', () => {
  test('a throwing listener neither stops the others nor reaches the emitter', () => {
    const events = new PayButtonEvents();
    const seen: string[] = [];
    events.on('warning', () => {
      throw new Error('listener bug');
    });
    events.on('warning', (event) => void seen.push(event.code));
    assert.equal(events.emit('warning', warning), true);
    assert.deepEqual(seen, ['test']);
  });

  test('a throwing listener is not silent: its error reaches the warning listeners as the cause', () => {
    const events = new PayButtonEvents();
    const bug = new Error('listener bug');
    const warnings: Array<{ code: string; error?: unknown }> = [];
    events.on('warning', (event) => void warnings.push(event));
    events.on('gateway.call', () => {
      throw bug;
    });
    events.emit('gateway.call', { operation: 'query', orderNum: 'PB1', attempt: 1, durationMs: 1, outcome: 'success' });
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]!.code, 'listener_failed');
    assert.equal(warnings[0]!.error, bug);
  });

  test('a rejecting async listener is not silent either', async () => {
    const events = new PayButtonEvents();
    const bug = new Error('async listener bug');
    const reported = new Promise<{ code: string; error?: unknown }>((resolve) => events.on('warning', resolve));
    events.on('order.transition', async () => {
      throw bug;
    });
    events.emit('order.transition', { orderNum: 'PB1', kind: 'link', from: 'pending', to: 'paid', source: 'query', at: new Date() });
    const warned = await reported;
    assert.deepEqual([warned.code, warned.error], ['listener_failed', bug]);
  });

  test('a failing warning listener goes to the process warning, never back to itself', async () => {
    const events = new PayButtonEvents();
    // Process warnings are delivered on a later tick: an earlier test's may arrive first.
    const processWarning = new Promise<Error>((resolve) => {
      const onWarning = (said: Error) => {
        if (!said.message.includes('warning listener bug')) return;
        process.off('warning', onWarning);
        resolve(said);
      };
      process.on('warning', onWarning);
    });
    events.on('warning', () => {
      throw new Error('warning listener bug');
    });
    events.emit('warning', warning);
    const said = await processWarning;
    assert.match(said.message, /a payButton\(\) "warning" listener failed: Error: warning listener bug/);
  });

  test('a rejecting async listener does not become an unhandled rejection', async () => {
    const events = new PayButtonEvents();
    let unhandled = 0;
    const onUnhandled = () => void (unhandled += 1);
    process.on('unhandledRejection', onUnhandled);
    try {
      events.on('warning', async () => {
        throw new Error('async listener bug');
      });
      events.emit('warning', warning);
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(unhandled, 0);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  test('once listeners run once; emit without listeners says so', () => {
    const events = new PayButtonEvents();
    let calls = 0;
    events.once('warning', () => void (calls += 1));
    events.emit('warning', warning);
    events.emit('warning', warning);
    assert.equal(calls, 1);
    assert.equal(events.listenerCount('warning'), 0);
    assert.equal(events.emit('gateway.call', { operation: 'query', orderNum: 'x', attempt: 1, durationMs: 1, outcome: 'success' }), false);
  });
});
