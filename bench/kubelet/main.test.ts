/**
 * Smoke test of the kubelet benchmark: `--quick` (200 nodes, two
 * configurations, a short window) exits 0 and prints every row for both
 * columns. No speed is asserted.
 *
 *   node --test dist/bench/kubelet/main.test.js
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ROW_LABELS } from './report.js';
import { runScript } from '../smoke.js';

const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

test('the quick kubelet benchmark exits 0 and prints every row', { timeout: 60_000 }, () => {
  const r = runScript([MAIN, '--quick'], 55_000);
  assert.match(r.stdout, /lease@10s\s+status@1s/);
  for (const label of ROW_LABELS) {
    const row = r.stdout.split('\n').find((l) => l.startsWith(label));
    assert.ok(row !== undefined, `row "${label}" missing:\n${r.stdout}`);
    assert.match(row, /\d\S*\s+\S*\d/, `row "${label}" lacks figures:\n${row}`);
  }
  assert.match(r.stdout, /PUT leases \/s/);
  assert.match(r.stdout, /GET nodes \/s/);
  assert.match(r.stdout, /PATCH nodes\/status \/s/);
});
