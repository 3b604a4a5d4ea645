/**
 * Smoke test of the kubelet benchmark: `--quick` (200 nodes, two
 * configurations, a short window) exits 0 and prints every row for both
 * columns. No speed is asserted.
 *
 *   node --test dist/bench/kubelet/main.test.js
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ROW_LABELS } from './report.js';

const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

test('the quick kubelet benchmark exits 0 and prints every row', { timeout: 60_000 }, () => {
  const r = spawnSync(process.execPath, [MAIN, '--quick'], {
    encoding: 'utf8',
    timeout: 55_000,
    killSignal: 'SIGTERM',
  });
  assert.equal(r.error, undefined, `could not run the benchmark: ${r.error?.message}`);
  assert.equal(r.status, 0, `exit ${r.status} ${r.signal ?? ''}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
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
