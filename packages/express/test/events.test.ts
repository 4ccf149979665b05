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
