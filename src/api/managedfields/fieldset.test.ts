import { test } from 'node:test';
import assert from 'node:assert/strict';
import { patchSchemaFor } from '../strategicpatch/index.js';
import { FieldSet, pathToString, rootContext, serverSideApply, toFieldSet } from './index.js';

test('FieldsV1 round-trips, with "." marking members that have children', () => {
  const v1 = {
    'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
    'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {} } } },
  };
  const set = FieldSet.fromFieldsV1(v1);
  assert.equal(set.has(['f:metadata', 'f:labels']), true);
  assert.equal(set.has(['f:metadata']), false);
  assert.deepEqual(set.toFieldsV1(), v1);
});

test('set algebra follows fieldpath.Set', () => {
  const a = FieldSet.fromFieldsV1({ 'f:a': {}, 'f:b': { 'f:c': {}, 'f:d': {} } });
  const b = FieldSet.fromFieldsV1({ 'f:b': { 'f:c': {} }, 'f:e': {} });
  assert.deepEqual(a.difference(b).toFieldsV1(), { 'f:a': {}, 'f:b': { 'f:d': {} } });
  assert.deepEqual(a.intersection(b).toFieldsV1(), { 'f:b': { 'f:c': {} } });
  assert.deepEqual(a.union(b).toFieldsV1(), { 'f:a': {}, 'f:b': { 'f:c': {}, 'f:d': {} }, 'f:e': {} });
});

test('paths print like upstream conflict messages', () => {
  assert.equal(
    pathToString(['f:spec', 'f:containers', 'k:{"name":"nginx"}', 'f:image']),
    '.spec.containers[name="nginx"].image',
  );
  assert.equal(
    pathToString(['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}']),
    '.spec.ports[port=80,protocol="TCP"]',
  );
  assert.equal(pathToString(['f:metadata', 'f:finalizers', 'v:"a"']), '.metadata.finalizers[="a"]');
});

test('sets, atomic structs and atomic lists are owned per upstream markers', () => {
  const set = toFieldSet(
    {
      metadata: { finalizers: ['x'], ownerReferences: [{ uid: 'u1', kind: 'ReplicaSet', name: 'rs' }] },
      spec: {
        tolerations: [{ key: 'k' }],
        nodeSelector: { a: 'b' },
        containers: [{ name: 'c', ports: [{ containerPort: 80 }] }],
      },
    },
    rootContext(patchSchemaFor('v1', 'Pod')),
  );
  assert.deepEqual(set.toFieldsV1(), {
    'f:metadata': { 'f:finalizers': { 'v:"x"': {} }, 'f:ownerReferences': { 'k:{"uid":"u1"}': {} } },
    'f:spec': {
      'f:containers': {
        'k:{"name":"c"}': {
          '.': {},
          'f:name': {},
          'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
        },
      },
      'f:nodeSelector': {},
      'f:tolerations': {},
    },
  });
});

test('an applied port without protocol matches the defaulted live port', () => {
  const live = serverSideApply({
    live: null,
    manager: 'a',
    force: false,
    schema: patchSchemaFor('v1', 'Pod'),
    now: 0,
    applied: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', ports: [{ containerPort: 80, protocol: 'TCP' }] }] },
    },
  });
  const again = serverSideApply({
    live: live.object,
    manager: 'a',
    force: false,
    schema: patchSchemaFor('v1', 'Pod'),
    now: 0,
    applied: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', ports: [{ containerPort: 80, name: 'http' }] }] },
    },
  });
  // One item, not two; protocol is pruned because the applier dropped it (defaulting re-adds TCP).
  assert.deepEqual(again.object.spec, { containers: [{ name: 'c', ports: [{ containerPort: 80, name: 'http' }] }] });
});
