import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PATCH_KINDS, patchMetaByPath, patchSchemaForObject } from './index.js';

test('patch metadata reaches nested types through pod templates', () => {
  const meta = patchMetaByPath('apps/v1/Deployment');
  assert.deepEqual(meta['spec.template.spec.containers'], {
    type: 'Container',
    patchStrategy: 'merge',
    patchMergeKey: 'name',
    listType: 'map',
    listMapKeys: ['name'],
    alwaysSerialized: true,
  });
  assert.equal(meta['spec.template.spec.containers[].env']?.patchMergeKey, 'name');
  assert.equal(meta['spec.template.spec.containers[].ports']?.patchMergeKey, 'containerPort');
  assert.equal(meta['spec.template.spec.tolerations']?.patchStrategy, undefined);
  assert.equal(meta['spec.strategy']?.patchStrategy, 'retainKeys');
  assert.equal(meta['metadata.finalizers']?.patchStrategy, 'merge');
  assert.equal(meta['status.conditions']?.patchMergeKey, 'type');
});

test('node taints have no patch strategy and are replaced', () => {
  const meta = patchMetaByPath('v1/Node');
  assert.equal(meta['spec.taints']?.patchStrategy, undefined);
  assert.equal(meta['status.addresses']?.patchMergeKey, 'type');
});

test('every listed kind resolves from an object, unknown kinds do not', () => {
  for (const gvk of PATCH_KINDS) {
    const i = gvk.lastIndexOf('/');
    assert.ok(patchSchemaForObject({ apiVersion: gvk.slice(0, i), kind: gvk.slice(i + 1) }), gvk);
  }
  assert.equal(patchSchemaForObject({ apiVersion: 'example.com/v1', kind: 'Widget' }), undefined);
});
