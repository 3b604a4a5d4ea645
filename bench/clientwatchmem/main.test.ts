/**
 * Smoke test of the client watch memory benchmark: `--quick` runs kscale's reference watches and the bare
 * Node streams against a real `kscale server` and prints a figure for each. No size is asserted (that is
 * the script's job), but every reference must have been listed with its object and every bare watch
 * answered 200.
 *
 *   node --test dist/bench/clientwatchmem/main.test.js
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runScript } from '../smoke.js';

const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

test(
  'the quick client watch memory benchmark exits 0 with a figure per client, every watch served',
  { timeout: 120_000 },
  () => {
    const r = runScript([MAIN, '--quick'], 110_000);
    assert.match(r.stdout, /^kscale reference watch\s+-?\d+\s+200 synced$/m, r.stdout);
    assert.match(r.stdout, /^bare Node HTTP\/2 \(reference\)\s+-?\d+\s+200 answered 200$/m, r.stdout);
    assert.match(r.stdout, /machine: \d+ cores, load average/);
  },
);
