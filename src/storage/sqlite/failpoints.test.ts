import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { createInterface } from 'node:readline';
import { openSqliteStorage } from './store.js';
import { FAILPOINTS_ENV } from '../../failpoint/index.js';

const child = fileURLToPath(new URL('./testdata/writer_child.js', import.meta.url));

/** Runs the writer child with `failpoints` armed until it dies; returns the keys it saw acknowledged and those stored after. */
async function crashRun(
  failpoints: string,
  env: Record<string, string> = {},
): Promise<{ acked: string[]; stored: Set<string>; signal: string | null }> {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-fp-'));
  try {
    const p = spawn(process.execPath, [child, dir, '20000'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env, [FAILPOINTS_ENV]: failpoints },
    });
    const exited = new Promise<void>((resolve) => p.on('exit', () => resolve()));
    const acked: string[] = [];
    for await (const line of createInterface({ input: p.stdout }))
      if (line.startsWith('ack ')) acked.push(line.slice(4));
    await exited;
    const s = await openSqliteStorage({ dataDir: dir });
    try {
      const { items } = await s.list('/registry/durable/');
      return { acked, stored: new Set(items.map((kv) => kv.key)), signal: p.signalCode };
    } finally {
      await s.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('drop-unsynced truncates the WAL back past the last commit: exactly the acknowledged writes survive', async () => {
  const r = await crashRun('sqlite/afterCommitBeforeFsync=40+drop-unsynced');
  assert.equal(r.signal, 'SIGKILL', 'the failpoint killed the writing process');
  assert.ok(r.acked.length > 40, `writes were acknowledged before the fault (${r.acked.length})`);
  assert.deepEqual(
    r.acked.filter((k) => !r.stored.has(k)),
    [],
    'no acknowledged write is lost',
  );
  // The 41st batch was committed to the WAL, then cut off: none of its (unacknowledged) writes is left.
  assert.equal(r.stored.size, r.acked.length, 'the committed but unsynced batch is gone from disk');
});

test('drop-unsynced cuts the batch even when its commit reached the automatic checkpoint threshold', async () => {
  // A WAL of one page checkpoints at every commit: SQLite would copy the batch into the database file inside the
  // commit, before the failpoint, and the drop would cut nothing.
  const r = await crashRun('sqlite/afterCommitBeforeFsync=40+drop-unsynced', { KSCALE_TEST_WAL_AUTOCHECKPOINT: '1' });
  assert.equal(r.signal, 'SIGKILL');
  assert.deepEqual(
    r.acked.filter((k) => !r.stored.has(k)),
    [],
  );
  assert.equal(r.stored.size, r.acked.length, 'the committed but unsynced batch is gone from disk');
});

test('acknowledging before the fsync that power loss drops loses acknowledged writes (the mutation the checker must catch)', async () => {
  const r = await crashRun('sqlite/ackBeforeFsync=40+on;sqlite/afterCommitBeforeFsync=40+drop-unsynced');
  assert.equal(r.signal, 'SIGKILL');
  const lost = r.acked.filter((k) => !r.stored.has(k));
  assert.ok(lost.length > 0, 'the early acknowledgements name writes the disk no longer holds');
});

test('a panic before the commit kills the process and loses nothing acknowledged', async () => {
  const r = await crashRun('sqlite/beforeCommit=25+panic');
  assert.equal(r.signal, 'SIGKILL');
  assert.ok(r.acked.length > 0);
  assert.deepEqual(
    r.acked.filter((k) => !r.stored.has(k)),
    [],
  );
});
