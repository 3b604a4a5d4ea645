import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RESOURCES } from '../../api/index.js';
import { IPAllocator, PortAllocator } from './ipallocator.js';
import { DEFINITIONS, definitionFor, tableFor } from './index.js';
import { columnDefinitions, defaultTable, printRow } from './printers/index.js';

const cfg = {
  eventTTLSeconds: 3600,
  serviceIPs: new IPAllocator('10.96.0.0/12'),
  nodePorts: new PortAllocator('30000-32767'),
};

test('every scheme entry has exactly one registry folder, and every folder serves a scheme entry', () => {
  for (const info of RESOURCES) assert.equal(definitionFor(info).resource, info.resource);
  const served = new Set(RESOURCES.map((r) => `${r.group}/${r.resource}`));
  for (const d of DEFINITIONS) assert.ok(served.has(`${d.group}/${d.resource}`), `${d.resource} is not in the scheme`);
  assert.equal(new Set(DEFINITIONS.map((d) => `${d.group}/${d.resource}`)).size, DEFINITIONS.length);
});

test('a resource without a folder is refused', () => {
  assert.throws(
    () => definitionFor({ group: 'example.com', resource: 'widgets' }),
    /no registry folder serves widgets.example.com/,
  );
});

test("every folder's Table has one cell per column, and a resource without columns gets Name and Age", () => {
  const now = Date.parse('2025-06-01T12:00:00Z');
  const obj = { metadata: { name: 'x', namespace: 'ns', creationTimestamp: new Date(now - 45_000).toISOString() } };
  for (const info of RESOURCES) {
    const table = tableFor(info);
    assert.equal(table, definitionFor(info).table ?? defaultTable);
    assert.equal(printRow(table, obj, now).cells.length, columnDefinitions(table).length, info.resource);
  }
  assert.equal(tableFor({ group: 'example.com', resource: 'widgets' }), defaultTable);
  assert.equal(tableFor({ group: 'scheduling.x-k8s.io', resource: 'podgroups' }), defaultTable);
});

test('each folder handles only subresources its scheme entry serves, and never status', () => {
  for (const info of RESOURCES) {
    for (const name of Object.keys(definitionFor(info).subresources ?? {})) {
      assert.notEqual(name, 'status');
      assert.ok(
        info.subresources.some((s) => s.name === name),
        `${info.resource}/${name} is not in the scheme`,
      );
    }
  }
});

test('the strategies carry upstream’s per-resource rules', () => {
  const rules = (resource: string) => {
    const info = RESOURCES.find((r) => r.resource === resource)!;
    const s = definitionFor(info).strategy(info, cfg);
    return {
      gen: s.tracksGeneration,
      createOnUpdate: s.allowCreateOnUpdate,
      keepsStatus: s.keepsStatusOnCreate,
      status: s.hasStatusSubresource,
    };
  };
  assert.deepEqual(rules('deployments'), { gen: true, createOnUpdate: false, keepsStatus: false, status: true });
  assert.deepEqual(rules('leases'), { gen: false, createOnUpdate: true, keepsStatus: false, status: false });
  assert.deepEqual(rules('nodes'), { gen: false, createOnUpdate: false, keepsStatus: true, status: true });
  assert.deepEqual(rules('configmaps'), { gen: false, createOnUpdate: false, keepsStatus: false, status: false });
});

test('defaulting gives Go-struct specs and statuses as {}', () => {
  const info = RESOURCES.find((r) => r.resource === 'poddisruptionbudgets')!;
  const obj: Record<string, unknown> = { metadata: { name: 'x' } };
  definitionFor(info)
    .strategy(info, cfg)
    .applyDefaults?.(obj as never);
  assert.deepEqual(obj.status, {});
  assert.ok(obj.spec !== undefined);
  const cm = RESOURCES.find((r) => r.resource === 'configmaps')!;
  const o2: Record<string, unknown> = { metadata: { name: 'x' } };
  definitionFor(cm)
    .strategy(cm, cfg)
    .applyDefaults?.(o2 as never);
  assert.equal(o2.spec, undefined);
});
