/**
 * Smoke test of the received-bytes GC benchmark: `--quick` reads the ConfigMap through kscale's client and
 * a bare node:http2 stream from a real `kscale server`, and makes the same ArrayBuffers in JavaScript. No
 * GC count is asserted (that is the script's job), but each reader must have read every byte it asked for.
 *
 *   node --test dist/bench/recvgc/main.test.js
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runScript } from '../smoke.js';

const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

test(
  'the quick received-bytes GC benchmark exits 0 with a row per reader, every byte read',
  { timeout: 120_000 },
  () => {
    const r = runScript([MAIN, '--quick', '--size', '10000'], 110_000);
    // 2,000 GETs of a 10,000-byte value: the client rows count the value (kscale) or the whole body (bare).
    assert.match(r.stdout, /^kscale RESTClient \(HTTP\/2\)\s+20\s+[\d.]+\s+[\d.]+\s+[\d.]+$/m, r.stdout);
    assert.match(r.stdout, /^bare Node HTTP\/2 \(reference\)\s+2[01]\s+[\d.]+\s+[\d.]+\s+[\d.]+$/m, r.stdout);
    assert.match(r.stdout, /^JS ArrayBuffers, dropped \(floor\)\s+20\s+[\d.]+\s+[\d.]+\s+[\d.]+$/m, r.stdout);
    assert.match(r.stdout, /machine: \d+ cores, load average/);
  },
);
