import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { createInterface } from 'node:readline';
import { openSqliteStorage } from './store.js';
import { isStorageError } from '../errors.js';

const child = fileURLToPath(new URL('./testdata/writer_child.js', import.meta.url));
const tmp = (): string => mkdtempSync(join(tmpdir(), 'kscale-durable-'));

test('every acknowledged write survives kill -9 of the writing process', async () => {
  const dir = tmp();
  try {
    const p = spawn(process.execPath, [child, dir, '100000'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const acked: string[] = [];
    const rl = createInterface({ input: p.stdout });
    const exited = new Promise((resolve) => p.on('exit', resolve));
    for await (const line of rl) {
      if (line.startsWith('ack ')) acked.push(line.slice(4));
      if (acked.length === 1500) {
        p.kill('SIGKILL');
        break;
      }
    }
    await exited;
    assert.equal(p.signalCode, 'SIGKILL', 'the writer was killed mid-write, not finished');
    const s = await openSqliteStorage({ dataDir: dir });
    try {
      const { items } = await s.list('/registry/durable/');
      const stored = new Set(items.map((kv) => kv.key));
      const lost = acked.filter((k) => !stored.has(k));
      assert.deepEqual(lost, [], 'no acknowledged write is lost');
      assert.ok(items.length >= acked.length);
      // The store is writable after the crash and revisions keep increasing.
      const rev = await s.currentRevision();
      const kv = await s.create('/registry/durable/after-crash', Buffer.from('x'));
      assert.ok(kv.modRevision > rev);
    } finally {
      await s.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every acknowledged group commit is fsynced (counted with strace)', () => {
  const strace = spawnSync('strace', ['-V']);
  assert.equal(strace.error, undefined, 'strace must be installed (npm test installs it)');
  const dir = tmp();
  try {
    const trace = join(dir, 'trace');
    const r = spawnSync(
      'strace',
      ['-f', '-y', '-e', 'trace=fsync,fdatasync', '-o', trace, process.execPath, child, join(dir, 'data'), '2000'],
      {
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    assert.equal(r.status, 0, r.stderr);
    const m = /commits (\d+) writes (\d+)/.exec(r.stdout);
    assert.ok(m !== null, r.stdout);
    const commits = Number(m[1]);
    const writes = Number(m[2]);
    assert.equal(writes, 2000);
    assert.ok(commits < writes, `writes were grouped (${writes} writes in ${commits} commits)`);
    const walSyncs = readFileSync(trace, 'utf8')
      .split('\n')
      .filter((l) => /f(data)?sync\(\d+<[^>]*state\.db-wal>\) = 0/.test(l)).length;
    assert.ok(walSyncs >= commits, `each of ${commits} commits fsynced the WAL (saw ${walSyncs} WAL syncs)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a corrupt database file fails to open with a clear Unavailable error', async () => {
  const dir = tmp();
  try {
    writeFileSync(join(dir, 'state.db'), Buffer.alloc(8192, 'garbage!'));
    await assert.rejects(openSqliteStorage({ dataDir: dir }), (err: unknown) => {
      assert.ok(isStorageError(err, 'Unavailable'));
      assert.match((err as Error).message, /state\.db.*(not a database|malformed)/);
      return true;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
