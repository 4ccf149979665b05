import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  MAX_DELIVERY_ATTEMPTS,
  nextRetryDelayMs,
  RETRY_JITTER_FRACTION,
  RETRY_SCHEDULE_SECONDS,
} from '../src/notify/delivery/index.ts';

const noJitter = () => 0;
const maxJitter = () => 0.999999999;

/** Delays the worker would wait, attempt after attempt, until the schedule says "dead". */
function wholeRun(timeScale: number, random: () => number): number[] {
  const delays: number[] = [];
  for (let attempts = 1; ; attempts += 1) {
    const delay = nextRetryDelayMs(attempts, { timeScale, random });
    if (delay === null) return delays;
    delays.push(delay);
  }
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

describe('retry schedule', () => {
  it('documents 10 retries, 11 attempts in all', () => {
    assert.equal(RETRY_SCHEDULE_SECONDS.length, 10);
    assert.equal(MAX_DELIVERY_ATTEMPTS, 11);
    assert.ok(Object.isFrozen(RETRY_SCHEDULE_SECONDS));
  });

  it('grows strictly from one retry to the next', () => {
    const delays = wholeRun(1, noJitter);
    for (let i = 1; i < delays.length; i += 1) assert.ok(delays[i]! > delays[i - 1]!, `delay ${i}`);
    assert.deepEqual(delays.slice(0, 3), [15_000, 60_000, 300_000]);
  });

  it('adds up to about a day at time scale 1, never more than 24 h', () => {
    const longest = sum(wholeRun(1, noJitter));
    const shortest = sum(wholeRun(1, maxJitter));
    assert.equal(longest, 85_875_000);
    assert.ok(longest <= 24 * 3600_000);
    assert.ok(shortest >= 19 * 3600_000, `${shortest}`);
  });

  it('takes under 90 s at time scale 0.001, whatever the jitter', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 10, maxLength: 10 }), (draws) => {
        let i = 0;
        const total = sum(wholeRun(0.001, () => draws[i++ % draws.length]!));
        return total > 0 && total < 90_000;
      }),
    );
  });

  it('delivers at once before the first attempt', () => {
    assert.equal(nextRetryDelayMs(0, { timeScale: 1 }), 0);
  });

  it('gives up after the last attempt', () => {
    assert.notEqual(nextRetryDelayMs(MAX_DELIVERY_ATTEMPTS - 1, { timeScale: 1, random: noJitter }), null);
    assert.equal(nextRetryDelayMs(MAX_DELIVERY_ATTEMPTS, { timeScale: 1 }), null);
    assert.equal(nextRetryDelayMs(MAX_DELIVERY_ATTEMPTS + 5, { timeScale: 0.001 }), null);
  });

  it('keeps jitter within 0-20 % below the scheduled delay', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: RETRY_SCHEDULE_SECONDS.length }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.constantFrom(1, 0.5, 0.001),
        (attempts, draw, timeScale) => {
          const nominal = RETRY_SCHEDULE_SECONDS[attempts - 1]! * 1000 * timeScale;
          const delay = nextRetryDelayMs(attempts, { timeScale, random: () => draw })!;
          return delay <= Math.round(nominal) && delay >= Math.round(nominal * (1 - RETRY_JITTER_FRACTION)) - 1;
        },
      ),
    );
    assert.equal(nextRetryDelayMs(1, { timeScale: 1, random: () => 0.5 }), 13_500);
  });

  it('treats a misbehaving random source as no jitter or full jitter, never beyond', () => {
    assert.equal(nextRetryDelayMs(1, { timeScale: 1, random: () => Number.NaN }), 15_000);
    assert.equal(nextRetryDelayMs(1, { timeScale: 1, random: () => -3 }), 15_000);
    assert.equal(nextRetryDelayMs(1, { timeScale: 1, random: () => 7 }), 12_000);
  });

  it('refuses nonsense inputs as programming errors', () => {
    for (const attempts of [-1, 1.5, Number.NaN]) {
      assert.throws(() => nextRetryDelayMs(attempts, { timeScale: 1 }), RangeError);
    }
    for (const timeScale of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => nextRetryDelayMs(1, { timeScale }), RangeError);
    }
  });
});
