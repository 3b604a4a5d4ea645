/**
 * Smoke test of the controllers benchmark: `--quick` (30 nodes, 6 small
 * Deployments, a 40-pod rolling update) exits 0 and prints every figure. No
 * speed is asserted.
 *
 *   node --test dist/bench/controllers/main.test.js
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runScript } from '../smoke.js';

const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

test('the quick controllers benchmark exits 0 and prints every figure', { timeout: 120_000 }, () => {
  const r = runScript([MAIN, '--quick'], 115_000);
  assert.match(r.stdout, /pods created\s+30\b/);
  assert.match(r.stdout, /time until all available\s+\d/);
  assert.match(r.stdout, /controller-manager CPU\s+\d/);
  assert.match(r.stdout, /POST pods\s+\d/);
  assert.match(r.stdout, /Endpoints watch bytes per watcher\s+\d/);
  assert.match(r.stdout, /EndpointSlice watch bytes per watcher\s+\d/);
  assert.match(r.stdout, /placement: (kscale scheduler|round-robin binder)/);
});
