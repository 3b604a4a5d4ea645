import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isStorageError } from '../errors.js';
import { lockDataDir } from './dir_lock.js';
import { openSqliteStorage } from './store.js';

test('a second opener of one data dir fails at once with Unavailable naming the dir', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-lock-'));
  try {
    const first = await openSqliteStorage({ dataDir: dir });
    const t0 = Date.now();
    await assert.rejects(
      () => openSqliteStorage({ dataDir: dir }),
      (err: unknown) =>
        isStorageError(err, 'Unavailable') && /data dir .* is in use by another kscale server/.test(String(err)),
    );
    assert.ok(Date.now() - t0 < 2_000, 'it does not wait out a busy timeout');
    await first.close();
    // Closing releases the lock: the next opener gets in.
    const second = await openSqliteStorage({ dataDir: dir });
    await second.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a lock held by a process killed with SIGKILL does not block the next opener', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-lock-'));
  try {
    const url = new URL('./dir_lock.js', import.meta.url).href;
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { lockDataDir } = await import(${JSON.stringify(url)}); globalThis.lock = lockDataDir(${JSON.stringify(dir)}); console.log('locked'); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (b: Buffer) => {
        if (b.toString().includes('locked')) resolve();
      });
      child.on('exit', () => reject(new Error('the locking child exited')));
    });
    try {
      assert.throws(() => lockDataDir(dir), /in use by another kscale server/);
    } finally {
      child.kill('SIGKILL');
    }
    await new Promise((resolve) => child.once('exit', resolve));
    const lock = lockDataDir(dir);
    lock.release();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
