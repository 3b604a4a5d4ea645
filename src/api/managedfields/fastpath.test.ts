import { test } from 'node:test';
import assert from 'node:assert/strict';
import { patchSchemaFor, patchSchemaForObject } from '../strategicpatch/index.js';
import { canonicalFieldsV1Copy, fieldsV1Difference } from './fieldsv1.js';
import { FieldSet, serverSideApply, updateManagedFields } from './index.js';
import { canonicalJSON, jsonEqual } from './json.js';

const T0 = '2025-01-01T00:00:00Z';
const T1 = '2025-01-01T00:01:00Z';

function objects(): Record<string, unknown>[] {
  return [
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'p',
        namespace: 'default',
        uid: 'u',
        resourceVersion: '3',
        labels: { app: 'web', constructor: 'x' },
        finalizers: ['a', 'b', 'a'],
        ownerReferences: [{ uid: 'o', kind: 'ReplicaSet', name: 'rs' }],
      },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'i',
            ports: [{ containerPort: 80 }, { containerPort: 80, protocol: 'TCP' }],
            env: [{ name: 'A', value: '1' }],
            resources: {},
          },
          { name: 'd', image: 'j', args: ['x', 'y'] },
          { image: 'no-name' },
        ],
        volumes: [{ name: 'v', emptyDir: {} }],
        nodeSelector: { os: 'linux' },
        tolerations: [{ key: 'k' }],
        dnsConfig: null,
      },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', generation: 2, annotations: {} },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'd' } },
        template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { ports: [{ port: 80 }, { port: 443, protocol: 'UDP' }], selector: { a: 'b' }, clusterIPs: [] },
    },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1', b: '' } },
    {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { list: [1, { a: 1 }], m: { n: null, e: {}, l: [] } },
    },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'only-stripped-fields' } },
    {},
  ];
}

const resets: (string[][] | undefined)[] = [
  undefined,
  [['status']],
  [['spec'], ['metadata']],
  [['spec', 'containers']],
  [['metadata', 'labels']],
];

test('a create records exactly what the general path records for an empty live object', () => {
  for (const obj of objects()) {
    for (const resetFields of resets) {
      for (const subresource of [undefined, 'status']) {
        const opts = {
          updated: obj,
          manager: 'creator',
          schema: patchSchemaForObject(obj),
          now: T0,
          resetFields,
          subresource,
        };
        const fast = updateManagedFields({ ...opts, live: null });
        const general = updateManagedFields({ ...opts, live: {} });
        assert.equal(
          JSON.stringify(fast.managedFields),
          JSON.stringify(general.managedFields),
          `${String(obj.kind)} ${JSON.stringify(resetFields)}`,
        );
        assert.deepEqual(fast.object, general.object);
        assert.equal(fast.changed, general.changed);
      }
    }
  }
});

test('an update that changes nothing leaves managedFields identical, time included', () => {
  for (const obj of objects()) {
    const schema = patchSchemaForObject(obj);
    const created = updateManagedFields({
      live: null,
      updated: obj,
      manager: 'creator',
      schema,
      now: T0,
      resetFields: [['status']],
    });
    const edited = structuredClone(created.object);
    (edited.metadata as Record<string, unknown>).annotations = { note: 'x' };
    const second = updateManagedFields({
      live: created.object,
      updated: edited,
      manager: 'editor',
      schema,
      now: T1,
      resetFields: [['status']],
    });
    for (const updated of [second.object, structuredClone(second.object)]) {
      const again = updateManagedFields({
        live: second.object,
        updated,
        manager: 'someone',
        schema,
        now: '2025-01-01T00:09:00Z',
        resetFields: [['status']],
      });
      assert.equal(again.changed, false);
      assert.equal(JSON.stringify(again.managedFields), JSON.stringify(second.managedFields));
      assert.deepEqual(again.object, second.object);
    }
  }
});

test("managedFields of untouched managers are copies, never the caller's objects", () => {
  const schema = patchSchemaFor('v1', 'ConfigMap');
  const live = updateManagedFields({
    live: null,
    updated: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } },
    manager: 'm',
    schema,
    now: T0,
  }).object;
  const r = updateManagedFields({ live, updated: live, manager: 'other', schema, now: T1 });
  const before = (live.metadata as { managedFields: { fieldsV1: object }[] }).managedFields[0];
  assert.notEqual(r.managedFields[0].fieldsV1, before.fieldsV1);
  (r.managedFields[0].fieldsV1 as Record<string, unknown>)['f:data'] = {};
  assert.deepEqual(before.fieldsV1, { 'f:data': { '.': {}, 'f:a': {} } });
});

test('client-sent FieldsV1 out of canonical form is normalized, as by decoding and encoding', () => {
  const schema = patchSchemaFor('v1', 'ConfigMap');
  const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1', b: '2' } };
  const sent = [
    { 'f:data': { 'f:b': {}, 'f:a': {} } },
    { 'f:data': { 'f:a': {}, '.': {} } },
    { 'f:data': { 'f:a': { '.': {} } } },
    { 'f:data': { 'f:a': null } },
    { '.': {}, 'f:data': {} },
  ];
  for (const fieldsV1 of sent) {
    const managedFields = [
      { manager: 'm', operation: 'Update', apiVersion: 'v1', time: T0, fieldsType: 'FieldsV1', fieldsV1 },
    ];
    const updated = { ...obj, metadata: { ...obj.metadata, managedFields } };
    const r = updateManagedFields({ live: updated, updated, manager: 'x', schema, now: T1 });
    assert.deepEqual(r.managedFields[0].fieldsV1, FieldSet.fromFieldsV1(fieldsV1).toFieldsV1());
    assert.equal(
      JSON.stringify(r.managedFields[0].fieldsV1),
      JSON.stringify(FieldSet.fromFieldsV1(fieldsV1).toFieldsV1()),
    );
  }
});

test('a re-apply of the same config changes neither the object nor managedFields', () => {
  const schema = patchSchemaFor('apps/v1', 'Deployment');
  const cfg = objects()[1];
  const first = serverSideApply({ live: null, applied: cfg, manager: 'kubectl', force: false, schema, now: T0 });
  const again = serverSideApply({
    live: first.object,
    applied: cfg,
    manager: 'kubectl',
    force: false,
    schema,
    now: T1,
  });
  assert.equal(again.changed, false);
  assert.equal(JSON.stringify(again.object), JSON.stringify(first.object));
  // The result owns its values: changing it leaves the live object alone.
  (again.object.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0].image =
    'changed';
  assert.equal(
    (first.object.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0]
      .image,
    'nginx',
  );
});

test('jsonEqual agrees with canonicalJSON, also on values that are not plain JSON', () => {
  const values: unknown[] = [
    null,
    0,
    -0,
    1,
    NaN,
    Infinity,
    '',
    '1',
    true,
    false,
    undefined,
    [],
    {},
    [undefined],
    [null],
    [1, 2],
    [2, 1],
    { a: 1, b: 2 },
    { b: 2, a: 1 },
    { a: undefined },
    { a: null },
    { a: [1] },
    { a: [1, undefined] },
    new Date(0),
    { a: { b: {} } },
    { a: { b: [] } },
  ];
  for (const a of values)
    for (const b of values)
      assert.equal(jsonEqual(a, b), canonicalJSON(a) === canonicalJSON(b), `${String(a)} vs ${String(b)}`);
});

test("FieldsV1 edited in place matches the decoded set's algebra", () => {
  const v1 = {
    'f:metadata': { 'f:labels': { '.': {}, 'f:a': {}, 'f:b': {} } },
    'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {} } }, 'f:replicas': {} },
  };
  assert.deepEqual(canonicalFieldsV1Copy(v1), v1);
  assert.equal(canonicalFieldsV1Copy({ 'f:b': {}, 'f:a': {} }), undefined);
  assert.equal(canonicalFieldsV1Copy({ 'f:a': { '.': {} } }), undefined);
  const cuts = [
    { 'f:metadata': { 'f:labels': { 'f:a': {} } } },
    { 'f:metadata': { 'f:labels': { 'f:a': {}, 'f:b': {} } } },
    { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {}, 'f:b': {} } } },
    { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { 'f:image': {} } }, 'f:replicas': {} } },
    { 'f:spec': {} },
  ];
  for (const cut of cuts) {
    const set = FieldSet.fromFieldsV1(cut);
    assert.equal(
      JSON.stringify(fieldsV1Difference(v1, set)),
      JSON.stringify(FieldSet.fromFieldsV1(v1).difference(set).toFieldsV1()),
    );
  }
});
