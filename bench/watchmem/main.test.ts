/**
 * Smoke test of the watch memory benchmark: `--quick` opens watches on a real
 * `kscale server` and on the bare Node reference and prints a figure for
 * each. No size is asserted; the figures are the script's job, but every
 * watch must have been answered 200.
 *
 *   node --test dist/bench/watchmem/main.test.js
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runScript } from '../smoke.js';

const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

test(
  'the quick watch memory benchmark exits 0 and prints a figure per server, every watch answered 200',
  { timeout: 120_000 },
  () => {
    const r = runScript([MAIN, '--quick'], 110_000);
    for (const label of ['kscale server', 'bare Node HTTP/2 \\(reference\\)'])
      assert.match(
        r.stdout,
        new RegExp(`^${label}\\s+-?\\d+\\s+-?\\d+\\s+200×200$`, 'm'),
        `no figure for ${label}:\n${r.stdout}`,
      );
    assert.match(r.stdout, /machine: \d+ cores, load average/);
  },
);
