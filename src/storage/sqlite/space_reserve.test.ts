import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { noSpace, unavailable } from '../errors.js';
import { ensureReserve, isDiskFull, releaseReserve, reserveFile, RESERVE_BYTES } from './space_reserve.js';

test('the reserve is made once, with real bytes, and released once', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-reserve-'));
  try {
    assert.equal(ensureReserve(dir), true);
    const st = statSync(reserveFile(dir));
    assert.equal(st.size, RESERVE_BYTES);
    assert.ok(st.blocks * 512 >= RESERVE_BYTES, 'its blocks are allocated, not sparse');
    assert.equal(ensureReserve(dir), true, 'an existing reserve is kept');
    assert.equal(releaseReserve(dir), true);
    assert.equal(releaseReserve(dir), false, 'nothing left to release');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a full disk is recognised from SQLite, the filesystem and a wrapping StorageError', () => {
  assert.ok(isDiskFull(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })));
  assert.ok(isDiskFull(Object.assign(new Error('write'), { code: 'ENOSPC' })));
  assert.ok(isDiskFull(unavailable('cannot lock data dir /x: database or disk is full')));
  assert.ok(isDiskFull(unavailable('cannot open', Object.assign(new Error('x'), { code: 'SQLITE_FULL' }))));
  assert.ok(isDiskFull(noSpace()));
  assert.equal(isDiskFull(unavailable('data dir /x is in use by another kscale server')), false);
  assert.equal(isDiskFull(new Error('file is not a database')), false);
});
