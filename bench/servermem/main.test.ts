/**
 * Smoke test of the server memory benchmark: `--quick` runs every step against
 * a real `kscale server` and prints a figure for each. No size is asserted;
 * the figures are the script's job.
 *
 *   node --test dist/bench/servermem/main.test.js
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runScript } from '../smoke.js';

const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

test('the quick server memory benchmark exits 0 and prints a figure for every step', { timeout: 120_000 }, () => {
  const r = runScript([MAIN, '--quick'], 110_000);
  for (const step of ['pod created', 'pod status written', 'event created', 'pod deleted']) {
    assert.match(
      r.stdout,
      new RegExp(`^${step}\\s+-?\\d+\\.\\d\\d\\s+\\d+\\s+\\d+\\s+\\d+$`, 'm'),
      `no figure for "${step}":\n${r.stdout}`,
    );
  }
  assert.match(r.stdout, /unforced mark-compact GCs: \d+, longest \d+ ms/);
  assert.match(r.stdout, /machine: \d+ cores, load average/);
});
