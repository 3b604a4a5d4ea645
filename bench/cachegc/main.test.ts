/**
 * Smoke test of the cache churn benchmark: `--quick` runs both shapes of the
 * cached bytes in child processes and prints a row for each. No figure is
 * asserted (that is the script's job), only that each row has one.
 *
 *   node --test dist/bench/cachegc/main.test.js
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runScript } from '../smoke.js';

const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

test('the quick cache churn benchmark exits 0 and prints a row per shape', { timeout: 120_000 }, () => {
  const r = runScript([MAIN, '--quick'], 110_000);
  const row = (label: string): RegExp =>
    new RegExp(`^${label}\\s+\\d+\\s+[\\d.]+\\s+\\d+\\s+[\\d.]+\\s+\\d+\\s+\\d+$`, 'm');
  assert.match(r.stdout, row('string \\(kscale\\)'), r.stdout);
  assert.equal(r.stdout.match(new RegExp(row('ArrayBuffer \\(reference\\)').source, 'gm'))?.length, 2, r.stdout);
  assert.match(r.stdout, /machine: \d+ cores, load average/);
});
