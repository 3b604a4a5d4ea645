import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FakeClock } from '../clock/index.js';
import { Compactor, type CompactorLogger } from './compactor.js';
import { isStorageError } from './errors.js';
import type { Storage } from './interface.js';
import { openSqliteStorage, type SqliteStorage } from './sqlite/index.js';

const INTERVAL = 5 * 60_000;
const buf = (s: string): Buffer => Buffer.from(s);

/** Opens a real embedded store on a fake clock in a temp dir, and removes both afterwards. */
async function withStore(fn: (s: SqliteStorage, clock: FakeClock) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-compactor-'));
  const clock = new FakeClock();
  const s = await openSqliteStorage({ dataDir: dir, clock });
  try {
    await fn(s, clock);
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Rewrites one key `n` times, so every write leaves a superseded version behind. */
async function churn(s: Storage, key: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await s.guaranteedUpdate(key, () => ({ value: buf(`v${Math.random()}`) }), { ignoreNotFound: true });
  }
}

test('after two ticks the store is compacted to the revision seen at the first tick', async () => {
  await withStore(async (s, clock) => {
    const c = new Compactor(s, { clock, intervalMs: INTERVAL });
    using _handle = c.start();
    await churn(s, '/registry/pods/ns/a', 5);
    const first = await s.currentRevision();

    clock.step(INTERVAL);
    await c.idle();
    assert.equal(c.stats.compactions, 0, 'the first tick only records the revision');
    assert.equal((await s.status()).compactedRevision, 0);

    await churn(s, '/registry/pods/ns/a', 5);
    const latest = await s.currentRevision();
    clock.step(INTERVAL);
    await c.idle();
    assert.equal(c.stats.compactions, 1);
    assert.equal(c.stats.errors, 0);
    assert.equal(c.stats.checkpoints, 1, 'the WAL is checkpointed after the compaction');
    assert.equal(c.stats.compactedRevision, first);
    assert.equal((await s.status()).compactedRevision, first);

    // Below the compacted revision: Expired, for reads and for watches.
    await assert.rejects(s.get('/registry/pods/ns/a', { revision: first - 1 }), (e) => isStorageError(e, 'Expired'));
    await assert.rejects(s.list('/registry/pods/', { revision: first - 1 }), (e) => isStorageError(e, 'Expired'));
    const stale = s.watch('/registry/pods/', { fromRevision: first - 1 });
    await assert.rejects(stale[Symbol.asyncIterator]().next(), (e) => isStorageError(e, 'Expired'));
    // At and above it: history is still there.
    const atFirst = await s.get('/registry/pods/ns/a', { revision: first });
    assert.equal(atFirst.modRevision, first);
    const listed = await s.list('/registry/pods/', { revision: first + 1 });
    assert.equal(listed.items.length, 1);
    assert.equal(listed.items[0].modRevision, first + 1);
    assert.equal((await s.get('/registry/pods/ns/a')).modRevision, latest);
  });
});

test('each tick compacts to the previous tick, keeping one interval of history', async () => {
  await withStore(async (s, clock) => {
    const c = new Compactor(s, { clock, intervalMs: INTERVAL });
    const handle = c.start();
    const seen: number[] = [];
    for (let i = 0; i < 4; i++) {
      await churn(s, '/registry/pods/ns/b', 3);
      seen.push(await s.currentRevision());
      clock.step(INTERVAL);
      await c.idle();
    }
    handle.stop();
    assert.equal(c.stats.compactions, 3);
    assert.equal((await s.status()).compactedRevision, seen[2]);
    // Stopped: later ticks do nothing.
    await churn(s, '/registry/pods/ns/b', 3);
    clock.step(3 * INTERVAL);
    await c.idle();
    assert.equal(c.stats.compactions, 3);
    assert.equal(clock.pending(), 2, 'only the store’s own timers remain');
  });
});

test('interval 0 disables compaction', async () => {
  await withStore(async (s, clock) => {
    const before = clock.pending();
    const c = new Compactor(s, { clock, intervalMs: 0 });
    using _handle = c.start();
    assert.equal(clock.pending(), before, 'no timer was started');
    await churn(s, '/registry/pods/ns/c', 3);
    clock.step(10 * INTERVAL);
    await c.idle();
    assert.equal(c.stats.compactions, 0);
    assert.equal((await s.status()).compactedRevision, 0);
  });
});

test('a failing compaction is logged and counted, never thrown, and the next tick goes on', async () => {
  await withStore(async (s, clock) => {
    let fail = true;
    const flaky: Storage = Object.create(s, {
      compact: { value: async (rev: number) => (fail ? Promise.reject(new Error('disk on fire')) : s.compact(rev)) },
    });
    const logged: string[] = [];
    const log: CompactorLogger = { warn: (_fields, msg) => logged.push(msg) };
    const c = new Compactor(flaky, { clock, intervalMs: INTERVAL, log });
    using _handle = c.start();
    await churn(s, '/registry/pods/ns/d', 3);
    clock.step(INTERVAL);
    await c.idle();
    await churn(s, '/registry/pods/ns/d', 3);
    clock.step(INTERVAL);
    await c.idle();
    assert.equal(c.stats.errors, 1);
    assert.deepEqual(logged, ['storage compaction failed']);
    assert.equal(c.stats.compactions, 0);

    fail = false;
    clock.step(INTERVAL);
    await c.idle();
    assert.equal(c.stats.compactions, 1);
    assert.equal(c.stats.errors, 1);
    assert.ok((await s.status()).compactedRevision > 0);
  });
});

test('a tick that finds the previous one still running is skipped', async () => {
  await withStore(async (s, clock) => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    let calls = 0;
    const slow: Storage = Object.create(s, {
      compact: {
        value: async (rev: number) => {
          calls++;
          await gate;
          return s.compact(rev);
        },
      },
    });
    const c = new Compactor(slow, { clock, intervalMs: INTERVAL });
    using _handle = c.start();
    await churn(s, '/registry/pods/ns/e', 2);
    clock.step(INTERVAL);
    await c.idle();
    await churn(s, '/registry/pods/ns/e', 2);
    clock.step(INTERVAL); // starts a compaction that waits on the gate
    await new Promise((r) => setImmediate(r));
    clock.step(INTERVAL); // overlaps: skipped
    clock.step(INTERVAL);
    release();
    await c.idle();
    assert.equal(calls, 1);
    assert.equal(c.stats.compactions, 1);
  });
});

test('each compaction is logged with its revision and how long compaction and checkpoint took', async () => {
  await withStore(async (s, clock) => {
    const infos: Record<string, unknown>[] = [];
    const log: CompactorLogger = {
      warn: () => assert.fail('no failure expected'),
      info: (fields) => infos.push(fields),
    };
    const c = new Compactor(s, { clock, intervalMs: INTERVAL, log });
    using _handle = c.start();
    await churn(s, '/registry/pods/ns/e', 3);
    const first = await s.currentRevision();
    clock.step(INTERVAL);
    await c.idle();
    assert.equal(infos.length, 0, 'the first tick only records a revision, so nothing is compacted or logged');
    await churn(s, '/registry/pods/ns/e', 3);
    clock.step(INTERVAL);
    await c.idle();
    assert.equal(c.stats.compactions, 1);
    assert.equal(infos.length, 1);
    const [info] = infos;
    assert.equal(info!.revision, first);
    for (const k of ['compactMs', 'checkpointMs', 'afterTickMs'])
      assert.ok(typeof info![k] === 'number' && info![k] >= 0, `${k}: ${String(info![k])}`);
  });
});
