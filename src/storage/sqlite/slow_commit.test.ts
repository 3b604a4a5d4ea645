import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openSqliteStorage } from './store.js';

/** Opens a store that logs commits of `slowCommitMs` or more, runs `n` concurrent creates, returns what was logged. */
async function logged(slowCommitMs: number, n: number): Promise<Record<string, unknown>[]> {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-slowcommit-'));
  const out: Record<string, unknown>[] = [];
  const s = await openSqliteStorage({
    dataDir: dir,
    slowCommitMs,
    log: { warn: (fields, msg) => out.push({ ...fields, msg }) },
  });
  try {
    await Promise.all(
      Array.from({ length: n }, (_, i) => s.create(`/registry/pods/ns/p${i}`, Buffer.from(`{"i":${i}}`))),
    );
    assert.equal(s.writerStats.writes, n);
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

test('every commit at or over the slow threshold is logged with its duration and its writes', async () => {
  const out = await logged(0, 20);
  assert.ok(out.length >= 1);
  assert.equal(
    out.reduce((a, f) => a + (f.writes as number), 0),
    20,
    'the logged commits hold every write once',
  );
  for (const f of out) {
    assert.equal(f.msg, 'storage commit slow: every write waited behind it');
    assert.ok(typeof f.commitMs === 'number' && f.commitMs >= 0);
  }
});

test('commits under the threshold are not logged', async () => {
  assert.deepEqual(await logged(60 * 60_000, 20), []);
});
