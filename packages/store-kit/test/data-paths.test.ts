/**
 * A default data path renamed from `.paybutton` to `.tombolbayar`: the new one unless only the old
 * one exists (then the old one, said once as a process warning naming both), never moved.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { currentOrLegacyPath } from '../src/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'tb-data-paths-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The warnings `run` emitted (process warnings arrive on the next tick). */
async function warningsOf(run: () => void): Promise<Array<Error & { code?: string }>> {
  const seen: Array<Error & { code?: string }> = [];
  const listener = (warning: Error) => seen.push(warning);
  process.on('warning', listener);
  try {
    run();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', listener);
  }
  return seen;
}

describe('currentOrLegacyPath', () => {
  const current = join(dir, '.tombolbayar', 'gateway');
  const legacy = join(dir, '.paybutton', 'gateway');

  it('is the current path when neither exists, and says nothing', async () => {
    let chosen = '';
    assert.deepEqual(await warningsOf(() => (chosen = currentOrLegacyPath(current, legacy, 'the data'))), []);
    assert.equal(chosen, current);
  });

  it('is the earlier path while only it exists, said with both paths, and moves nothing', async () => {
    mkdirSync(legacy, { recursive: true });
    let chosen = '';
    const warnings = await warningsOf(() => (chosen = currentOrLegacyPath(current, legacy, 'the data')));
    assert.equal(chosen, legacy);
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]!.code, 'TOMBOLBAYAR_OLD_DATA_PATH');
    assert.ok(warnings[0]!.message.includes(legacy) && warnings[0]!.message.includes(current), warnings[0]!.message);
    assert.ok(existsSync(legacy) && !existsSync(current), 'nothing moved');
  });

  it('is the current path once it exists, even beside the earlier one', async () => {
    mkdirSync(current, { recursive: true });
    let chosen = '';
    assert.deepEqual(await warningsOf(() => (chosen = currentOrLegacyPath(current, legacy, 'the data'))), []);
    assert.equal(chosen, current);
  });
});
