/**
 * The storage conformance suite, unchanged, against the cacher: a
 * CacherRegistry over the embedded store that caches every resource prefix
 * on first use, so each test's fresh prefix gets its own Cacher.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { FakeClock } from '../../clock/index.js';
import { openSqliteStorage, type SqliteStorage } from '../sqlite/index.js';
import { cachedObjects, onSharedStore, runObjectConformance } from '../testing/object_tests.js';
import { runConformance, type StoreFactory } from '../testing/store_tests.js';
import { Cacher, CacherRegistry } from './index.js';

const dirs: string[] = [];
const stores: CacherRegistry[] = [];
const cachers: Cacher[] = [];
const plain: SqliteStorage[] = [];
after(async () => {
  for (const c of cachers) await c.close();
  for (const s of plain) await s.close();
  for (const s of stores) await s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

runConformance('cacher over sqlite', (): StoreFactory => {
  const clock = new FakeClock();
  const progressIntervalMs = 1_000;
  return {
    progressIntervalMs,
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'kscale-cacher-'));
      dirs.push(dir);
      const storage = await openSqliteStorage({ dataDir: dir, clock, progressIntervalMs });
      const registry = new CacherRegistry({ storage, cacheUnknownPrefixes: true, defaults: { clock } });
      stores.push(registry);
      return registry;
    },
    async advance(ms: number) {
      clock.step(ms);
    },
  };
});

// The suite must exercise the cache, not pass by falling through to storage.
after(() => {
  const m = stores.flatMap((s) => s.metrics());
  const sum = (k: 'listTotal' | 'getTotal' | 'storageReads' | 'eventsDispatched'): number =>
    m.reduce((a, x) => a + x[k], 0);
  process.stdout.write(
    `# cacher: lists ${sum('listTotal')}, gets ${sum('getTotal')}, storage reads ${sum('storageReads')}, events dispatched ${sum('eventsDispatched')}\n`,
  );
  assert.ok(
    sum('listTotal') > 0 && sum('getTotal') > 0 && sum('eventsDispatched') > 0,
    'reads and watches were served from the cache',
  );
});

// The object-level suite, on one store on the real clock, each test's resource with a Cacher of its own.
runObjectConformance(
  'cacher over sqlite',
  onSharedStore(
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'kscale-cacher-objects-'));
      dirs.push(dir);
      return openSqliteStorage({ dataDir: dir }).then((s) => (plain.push(s), s));
    },
    (s) => cachedObjects(s, cachers),
  ),
);
