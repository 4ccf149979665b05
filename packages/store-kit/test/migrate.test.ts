import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MigrationResultSet, Migrator } from 'kysely';
import { runMigrator } from '../src/index.ts';

const schemaDropped = Object.assign(new Error('schema "pbx_other" does not exist'), { code: '3F000' });
const otherFailure = Object.assign(new Error('permission denied for schema pay'), { code: '42501' });
const done: MigrationResultSet = { results: [] };

/** A Migrator that answers each call with the next of `answers`, counting the calls. */
function scripted(answers: MigrationResultSet[]): { migrator: Migrator; calls: string[] } {
  const calls: string[] = [];
  const next = (name: string) => async () => {
    calls.push(name);
    return answers[calls.length - 1] ?? done;
  };
  return { migrator: { migrateToLatest: next('latest'), migrateTo: next('to') } as unknown as Migrator, calls };
}

describe('runMigrator: a schema dropped by someone else mid-listing is asked again, nothing else is', () => {
  const table: Array<[string, MigrationResultSet[], number, unknown]> = [
    ['succeeds at once', [done], 1, undefined],
    ['another schema dropped once, then succeeds', [{ error: schemaDropped }, done], 2, undefined],
    ['dropped three times: the third failure is the answer', [{ error: schemaDropped }, { error: schemaDropped }, { error: schemaDropped }, done], 3, schemaDropped],
    ['any other failure is returned at once', [{ error: otherFailure }, done], 1, otherFailure],
  ];
  for (const [name, answers, expectedCalls, expectedError] of table) {
    it(name, async () => {
      const { migrator, calls } = scripted(answers);
      const result = await runMigrator(migrator);
      assert.equal(calls.length, expectedCalls);
      assert.equal(result.error, expectedError);
    });
  }

  it('migrateTo(upTo) when a target is named', async () => {
    const { migrator, calls } = scripted([{ error: schemaDropped }, done]);
    await runMigrator(migrator, '2026_11_001_reference');
    assert.deepEqual(calls, ['to', 'to']);
  });
});
