import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FakeClock } from '../../clock/index.js';
import { openSqliteStorage } from '../../storage/index.js';
import type { Obj } from '../object.js';
import { decodeRangeAllocation, StoredOffsets } from '../registry/allocator_storage.js';
import { AllocationRepair, REPAIRS_BEFORE_LEAK_CLEANUP, type RepairTarget } from './allocation_repair.js';

const KEY = '/registry/ranges/servicenodeports';
/** A 10-port range whose Services hold the nodePorts of their spec.ports. */
const PORTS: RepairTarget = {
  key: KEY,
  size: 10,
  range: '0-9',
  offsetsOf: (svc) => ((svc.spec as Obj).ports as Obj[]).map((p) => p.nodePort as number),
};

test('repair marks what Services hold, and frees a leak only after it stayed leaked for three passes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-repair-'));
  const s = await openSqliteStorage({ dataDir: dir });
  try {
    const services: Obj[] = [{ spec: { ports: [{ nodePort: 3 }] } }, { spec: { ports: [{ nodePort: 5 }] } }];
    const repair = new AllocationRepair({
      storage: s,
      listServices: () => Promise.resolve(services),
      clock: new FakeClock(),
      targets: [PORTS],
    });
    const first = (await repair.runOnce()).get(KEY)!;
    assert.deepEqual(first, { marked: 2, leaks: 0, freed: 0, written: true });
    // An allocation no Service holds (a create that died after allocating): a leak.
    const offsets = new StoredOffsets(s, KEY, 10, '0-9');
    assert.equal(await offsets.allocate(7), true);
    const used = async (): Promise<number[]> => [...decodeRangeAllocation(await s.get(KEY), 10).offsets()];
    for (let pass = 1; pass < REPAIRS_BEFORE_LEAK_CLEANUP; pass++) {
      assert.deepEqual((await repair.runOnce()).get(KEY), { marked: 0, leaks: 1, freed: 0, written: false });
      assert.deepEqual(await used(), [3, 5, 7], 'a young leak is kept: its create may still be in flight');
    }
    assert.deepEqual((await repair.runOnce()).get(KEY), { marked: 0, leaks: 0, freed: 1, written: true });
    assert.deepEqual(await used(), [3, 5]);
    // The allocator's cached copy is stale now; its next swap conflicts, re-reads and still never duplicates.
    assert.equal(await offsets.allocate(3), false);
    assert.equal(await offsets.allocate(7), true);
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a repair pass that races an allocation loses its swap instead of overwriting it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-repair-'));
  const s = await openSqliteStorage({ dataDir: dir });
  try {
    const offsets = new StoredOffsets(s, KEY, 10, '0-9');
    await offsets.allocate(1);
    const repair = new AllocationRepair({
      storage: s,
      // The list is read after the snapshot; an allocation lands in between.
      listServices: async () => {
        await offsets.allocate(2);
        return [{ spec: { ports: [{ nodePort: 1 }, { nodePort: 4 }] } }];
      },
      clock: new FakeClock(),
      targets: [PORTS],
    });
    assert.equal((await repair.runOnce()).get(KEY)!.written, false);
    assert.deepEqual([...decodeRangeAllocation(await s.get(KEY), 10).offsets()], [1, 2]);
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
