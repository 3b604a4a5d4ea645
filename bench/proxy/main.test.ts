/**
 * Smoke test of the proxy benchmark: `--quick` (100 services, 50 connects)
 * exits 0 and prints every row with figures for the kernel modes. No speed
 * is asserted.
 *
 *   node --test dist/bench/proxy/main.test.js
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ROW_LABELS } from './report.js';
import { runScript } from '../smoke.js';

const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

test('the quick proxy benchmark exits 0 and prints every row', { timeout: 90_000 }, () => {
  const r = runScript([MAIN, '--quick'], 85_000);
  assert.match(r.stdout, /iptables-legacy\s+iptables-nft\s+nftables\s+ipvs/);
  for (const label of ROW_LABELS) {
    const row = r.stdout.split('\n').find((l) => l.startsWith(label));
    assert.ok(row !== undefined, `row "${label}" missing:\n${r.stdout}`);
    // The three kernel modes must all have figures in every row.
    const cells = row
      .slice(label.length)
      .trim()
      .split(/\s{2,}/);
    for (const c of cells.slice(0, 3)) assert.match(c, /\d/, `row "${label}" lacks figures:\n${row}`);
  }
});
