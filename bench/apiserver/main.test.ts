/**
 * Smoke test of the API server benchmark: `--quick` runs to the end, exits 0
 * and prints every row. No speed is asserted; the figures are the script's job.
 *
 *   node --test dist/bench/apiserver/main.test.js
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ROW_LABELS } from './report.js';

const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));
const AB = fileURLToPath(new URL('./ab.js', import.meta.url));
const REPO = fileURLToPath(new URL('../../..', import.meta.url));

test('the quick benchmark exits 0 and prints every row', { timeout: 90_000 }, () => {
  const r = spawnSync(process.execPath, [MAIN, '--quick'], {
    encoding: 'utf8',
    timeout: 80_000,
    killSignal: 'SIGTERM',
  });
  assert.equal(r.error, undefined, `could not run the benchmark: ${r.error?.message}`);
  assert.equal(r.status, 0, `exit ${r.status} ${r.signal ?? ''}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  for (const label of ROW_LABELS) {
    const row = r.stdout.split('\n').find((l) => l.startsWith(label));
    assert.ok(row !== undefined, `row "${label}" missing:\n${r.stdout}`);
    assert.doesNotMatch(row, /skipped/, `row "${label}" was skipped:\n${row}`);
    assert.match(row, /PASS|FAIL/, `row "${label}" has no verdict:\n${row}`);
  }
  assert.match(r.stdout, /--storage-sync full/);
  assert.match(r.stdout, /machine: /);
});

test(
  'the quick A/B comparison of a build with itself exits 0 and reports CPU per op for both sides',
  { timeout: 90_000 },
  () => {
    const r = spawnSync(process.execPath, [AB, REPO, REPO, '--quick'], {
      encoding: 'utf8',
      timeout: 80_000,
      killSignal: 'SIGTERM',
    });
    assert.equal(r.error, undefined, `could not run the comparison: ${r.error?.message}`);
    assert.equal(r.status, 0, `exit ${r.status} ${r.signal ?? ''}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    for (const op of ['get', 'create', 'update']) {
      for (const side of ['A', 'B'])
        assert.match(r.stdout, new RegExp(`^${op} +${side}: server CPU/op median \\d+ µs .* errors 0$`, 'm'), r.stdout);
    }
  },
);
