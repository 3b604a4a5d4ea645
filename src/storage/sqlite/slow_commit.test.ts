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
  const out = (await logged(0, 20)).filter((f) => f.msg !== 'storage writes waited for the writer thread');
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

test('a write that waited for the writer thread as long as a slow commit is logged with why it waited', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-slowqueue-'));
  const out: Record<string, unknown>[] = [];
  const s = await openSqliteStorage({
    dataDir: dir,
    slowCommitMs: 200,
    log: { warn: (fields, msg) => out.push({ ...fields, msg }) },
  });
  try {
    await s.create('/registry/pods/ns/warm', Buffer.from('{}'));
    const write = s.create('/registry/pods/ns/held', Buffer.from('{}'));
    // The write is queued; the event loop is held before the batch can go to the writer thread.
    const until = performance.now() + 300;
    while (performance.now() < until);
    await write;
    const waited = out.filter((f) => f.msg === 'storage writes waited for the writer thread');
    assert.equal(waited.length, 1, JSON.stringify(out));
    assert.ok((waited[0]!.waitMs as number) >= 300, `waitMs ${String(waited[0]!.waitMs)}`);
    assert.equal(waited[0]!.queued, 0);
    assert.equal(typeof waited[0]!.lastCommitMs, 'number');
    assert.equal(typeof waited[0]!.lastAnswerWaitMs, 'number');
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
