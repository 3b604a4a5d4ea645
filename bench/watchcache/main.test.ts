/**
 * Smoke test of the watch cache benchmark: `--quick` runs both sides to the
 * end, exits 0 and prints every row with a figure in each column. No speed is
 * asserted; the figures are the script's job.
 *
 *   node --test dist/bench/watchcache/main.test.js
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ROW_LABELS } from './report.js';
import { runScript } from '../smoke.js';

const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

test('the quick watch cache benchmark exits 0 and prints every row for both sides', { timeout: 120_000 }, () => {
  const r = runScript([MAIN, '--quick'], 110_000);
  for (const label of ROW_LABELS) {
    const row = r.stdout.split('\n').find((l) => l.startsWith(label));
    assert.ok(row !== undefined, `row "${label}" missing:\n${r.stdout}`);
    assert.doesNotMatch(row, /skipped|n\/a/, `row "${label}" has a missing figure:\n${row}`);
    assert.match(row, /PASS|FAIL|info/, `row "${label}" has no result:\n${row}`);
  }
  assert.match(r.stdout, /--watch-cache=true\s+--watch-cache=false/);
  assert.match(r.stdout, /machine: /);
});
