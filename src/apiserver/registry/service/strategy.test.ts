import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { RESOURCES } from '../../../api/index.js';
import { FakeClock } from '../../../clock/index.js';
import { openSqliteStorage } from '../../../storage/sqlite/index.js';
import type { Obj } from '../../object.js';
import { MemoryOffsets } from '../allocator_storage.js';
import { IPAllocator, PortAllocator } from '../ipallocator.js';
import { GenericStore } from '../store.js';
import { serviceStrategy } from './strategy.js';

const NOW = Date.UTC(2026, 0, 1);

/** Offsets whose releases finish only once `want` of them (across every allocator sharing `gate`) have begun. */
class GatedOffsets extends MemoryOffsets {
  constructor(
    size: number,
    private readonly gate: { want: number; begun: number; open: () => void; opened: Promise<void> },
  ) {
    super(size);
  }

  override async release(offset: number): Promise<void> {
    if (++this.gate.begun === this.gate.want) this.gate.open();
    await this.gate.opened;
    await super.release(offset);
  }
}

test('a service delete releases its ClusterIP and every NodePort together, not one after another', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-service-'));
  const storage = await openSqliteStorage({ dataDir: dir, clock: new FakeClock() });
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const gate = { want: 3, begun: 0, open, opened };
  const cfg = {
    eventTTLSeconds: 3600,
    serviceIPs: new IPAllocator('10.96.0.0/24', (n) => new GatedOffsets(n, gate)),
    nodePorts: new PortAllocator('30000-30010', (n) => new GatedOffsets(n, gate)),
  };
  const info = RESOURCES.find((r) => r.resource === 'services')!;
  const store = new GenericStore(info, serviceStrategy(info, cfg), { storage });
  try {
    const svc: Obj = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'ns' },
      spec: {
        type: 'NodePort',
        ports: [
          { name: 'http', port: 80 },
          { name: 'https', port: 443 },
        ],
      },
    };
    const { obj } = await store.create(svc, { now: NOW, dryRun: false });
    const spec = obj.spec as Obj;
    const nodePorts = (spec.ports as Obj[]).map((p) => p.nodePort as number);
    assert.equal(nodePorts.length, 2);
    // Sequential releases would wait forever on the first; a timer turns that into a failure.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`only ${gate.begun} of 3 releases began`)), 5_000);
    });
    try {
      const { deleted } = await Promise.race([store.delete('ns', 'web', { now: NOW, dryRun: false }), late]);
      assert.equal(deleted, true);
    } finally {
      clearTimeout(timer);
    }
    assert.equal(gate.begun, 3);
    // Everything came back: the same address and ports can be taken again.
    await cfg.serviceIPs.allocate(spec.clusterIP as string);
    for (const [i, p] of nodePorts.entries()) await cfg.nodePorts.allocate(p, `spec.ports[${i}].nodePort`);
  } finally {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
