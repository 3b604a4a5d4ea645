/**
 * Smoke test of the API server benchmark: `--quick` runs to the end, exits 0
 * and prints every row. No speed is asserted; the figures are the script's job.
 *
 *   node --test dist/bench/apiserver/main.test.js
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ROW_LABELS } from './report.js';
import { runScript } from '../smoke.js';

const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));
const AB = fileURLToPath(new URL('./ab.js', import.meta.url));
const REPO = fileURLToPath(new URL('../../..', import.meta.url));

test(
  'the quick benchmark over two whole runs exits 0 and prints every row of each run and of their median',
  { timeout: 170_000 },
  () => {
    const r = runScript([MAIN, '--quick', '--runs', '2'], 160_000);
    assert.match(r.stdout, /^run 1 of 2:$/m);
    assert.match(r.stdout, /^run 2 of 2:$/m);
    const median = r.stdout.slice(r.stdout.indexOf('median of 2 whole runs:'));
    assert.ok(median.length > 0 && r.stdout.includes('median of 2 whole runs:'), r.stdout);
    for (const label of ROW_LABELS) {
      assert.equal(r.stdout.split('\n').filter((l) => l.startsWith(label)).length, 3, `row "${label}" thrice`);
      const row = median.split('\n').find((l) => l.startsWith(label));
      assert.ok(row !== undefined, `row "${label}" missing:\n${r.stdout}`);
      assert.doesNotMatch(row, /skipped/, `row "${label}" was skipped:\n${row}`);
      assert.match(row, /PASS|FAIL/, `row "${label}" has no verdict:\n${row}`);
    }
    assert.match(
      median.split('\n').find((l) => l.startsWith(ROW_LABELS[0]))!,
      /≥ 50% of bare .*% of bare\)/,
    );
    for (const label of [ROW_LABELS[1], ROW_LABELS[2]])
      assert.match(
        median.split('\n').find((l) => l.startsWith(label))!,
        /≥ 35% of bare PUT .*% of bare PUT\)/,
      );
    assert.match(r.stdout, /--storage-sync full/);
    assert.match(r.stdout, /machine: /);
  },
);

test(
  'the quick A/B comparison of a build with itself exits 0 and reports CPU per op for both sides',
  { timeout: 90_000 },
  () => {
    const r = runScript([AB, REPO, REPO, '--quick'], 80_000);
    for (const op of ['get', 'create', 'update']) {
      for (const side of ['A', 'B'])
        assert.match(r.stdout, new RegExp(`^${op} +${side}: server CPU/op median \\d+ µs .* errors 0$`, 'm'), r.stdout);
    }
  },
);
