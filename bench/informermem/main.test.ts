/**
 * Smoke test of the informer memory benchmark: a small run against a real
 * `kscale server`, `kscale scheduler` and `kscale controller-manager` prints a
 * figure for both components and their heap snapshot classes. No size is
 * asserted; the figures are the script's job.
 *
 *   node --test dist/bench/informermem/main.test.js
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runScript } from '../smoke.js';

const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

test(
  'a small informer memory run exits 0 and prints heap per pod and snapshot classes for both components',
  { timeout: 240_000 },
  () => {
    const r = runScript([MAIN, '--quick', '--pods', '200', '--nodes', '10'], 230_000);
    for (const c of ['scheduler', 'controller-manager']) {
      assert.match(
        r.stdout,
        new RegExp(`^${c}\\s+\\d+\\s+\\d+\\s+-?\\d+\\.\\d\\d\\s+\\d+\\s+\\d+\\s+-$`, 'm'),
        `no figure for ${c}:\n${r.stdout}`,
      );
      assert.match(r.stdout, new RegExp(`^${c}: heap snapshot classes that grew most, per pod$`, 'm'));
    }
    assert.match(r.stdout, /pods stored at the end: 200$/m, 'no pod was deleted under the components');
    assert.match(r.stdout, /^ {2}Object\s+\d+\.\d\d\s+\d+$/m, 'plain objects are among the classes');
  },
);
