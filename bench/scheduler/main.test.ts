/**
 * Smoke test of the scheduler benchmark: `--quick` (100 nodes, a few hundred
 * pods, every case) exits 0, binds every pod and prints a row per case. No
 * speed is asserted.
 *
 *   node --test dist/bench/scheduler/main.test.js
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { COLUMNS } from './report.js';
import { runScript } from '../smoke.js';

const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

test('the quick scheduler benchmark exits 0 and binds every pod in every case', { timeout: 180_000 }, () => {
  const r = runScript([MAIN, '--quick', '--pods', '200'], 170_000);
  const header = r.stdout.split('\n').find((l) => l.startsWith('case '));
  assert.deepEqual(header?.split(/\s{2,}/), COLUMNS, r.stdout);
  for (const kase of ['reference', 'plain', 'anti-affinity', 'gang8']) {
    const row = r.stdout.split('\n').find((l) => l.startsWith(`${kase} `));
    assert.ok(row !== undefined, `row ${kase} missing:\n${r.stdout}`);
    const [, , pods, bound] = row.split(/\s+/);
    assert.equal(bound, pods, `every pod bound in ${kase}: ${row}`);
  }
});
