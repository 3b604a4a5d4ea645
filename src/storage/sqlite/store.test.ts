import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { FakeClock } from '../../clock/index.js';
import { directObjects, onSharedStore, runObjectConformance } from '../testing/object_tests.js';
import { runConformance, type StoreFactory } from '../testing/store_tests.js';
import { openSqliteStorage, type SqliteStorage } from './store.js';

const dirs: string[] = [];
const stores: SqliteStorage[] = [];
after(async () => {
  for (const s of stores) await s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

runConformance('sqlite', (): StoreFactory => {
  const clock = new FakeClock();
  const progressIntervalMs = 1_000;
  return {
    progressIntervalMs,
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'kscale-sqlite-'));
      dirs.push(dir);
      const s = await openSqliteStorage({ dataDir: dir, clock, progressIntervalMs });
      stores.push(s);
      return s;
    },
    async advance(ms: number) {
      clock.step(ms);
    },
  };
});

// The object-level suite, on one store on the real clock (its watches and reads wait in real time).
runObjectConformance(
  'sqlite',
  onSharedStore(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kscale-sqlite-objects-'));
    dirs.push(dir);
    return openSqliteStorage({ dataDir: dir }).then((s) => (stores.push(s), s));
  }, directObjects),
);
