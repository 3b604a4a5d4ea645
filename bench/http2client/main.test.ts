/**
 * Smoke test of the HTTP/2 client request benchmark: `--quick` opens its GETs both ways and every answer is read
 * whole. No CPU figure is asserted (that is the script's job).
 *
 *   node --test dist/bench/http2client/main.test.js
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runScript } from '../smoke.js';

const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

test('the quick HTTP/2 client request benchmark exits 0 with a row per way of opening, every answer read', () => {
  const r = runScript([MAIN, '--quick'], 60_000);
  assert.match(r.stdout, /^node session\.request \(reference\)\s+1\s+[\d.]+\s+\d+\s+\d+\s+\d+ ok$/m, r.stdout);
  assert.match(r.stdout, /^kscale openStream\s+1\s+[\d.]+\s+\d+\s+\d+\s+\d+ ok$/m, r.stdout);
  assert.match(r.stdout, /machine: \d+ cores, load average/);
});
