import { test } from 'node:test';
import assert from 'node:assert/strict';
import { patchSchemaFor } from '../strategicpatch/index.js';
import { ApplyConflictError, serverSideApply, updateManagedFields } from './index.js';
import { LAST_APPLIED_ANNOTATION } from './lastapplied.js';

const schema = patchSchemaFor('v1', 'ConfigMap');
const T0 = '2025-01-01T00:00:00Z';
const T1 = '2025-01-01T00:01:00Z';
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test objects are read at any depth
type Obj = Record<string, any>;

function cm(data: Record<string, string>, annotations?: Record<string, string>): Obj {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', namespace: 'default', ...(annotations ? { annotations } : {}) },
    data,
  };
}

/** What kubectl's client-side apply stores: the config plus its JSON in the annotation, as manager kubectl-client-side-apply. */
function clientSideApplied(data: Record<string, string>): Obj {
  const cfg = cm(data);
  const withAnnotation = cm(data, { [LAST_APPLIED_ANNOTATION]: `${JSON.stringify(cfg)}\n` });
  return updateManagedFields({
    live: null,
    updated: withAnnotation,
    manager: 'kubectl-client-side-apply',
    schema,
    now: T0,
  }).object;
}

test('kubectl server-side apply takes over fields its client-side apply set, and updates the annotation', () => {
  const live = clientSideApplied({ a: '1', b: '2' });
  const r = serverSideApply({
    live,
    applied: cm({ a: '10', b: '2' }),
    manager: 'kubectl',
    force: false,
    schema,
    now: T1,
  });
  assert.deepEqual(r.object.data, { a: '10', b: '2' });
  const kubectl = r.managedFields.find((e) => e.manager === 'kubectl');
  assert.deepEqual(kubectl?.fieldsV1, { 'f:data': { 'f:a': {}, 'f:b': {} } });
  const csa = r.managedFields.find((e) => e.manager === 'kubectl-client-side-apply');
  // The changed field moved; the unchanged one is shared, as with any apply of an equal value.
  assert.deepEqual((csa?.fieldsV1 as Obj)['f:data'], { '.': {}, 'f:b': {} });
  const annotation = (r.object.metadata as Obj).annotations[LAST_APPLIED_ANNOTATION] as string;
  assert.ok(annotation.endsWith('\n'));
  assert.deepEqual(JSON.parse(annotation), cm({ a: '10', b: '2' }));
});

test("a field changed since the client-side apply is not the applier's: it still conflicts", () => {
  const csa = clientSideApplied({ a: '1' });
  // Someone else changed data.a after the client-side apply.
  const live = updateManagedFields({
    live: csa,
    updated: { ...csa, data: { a: '5' } },
    manager: 'editor',
    schema,
    now: T1,
  }).object;
  assert.throws(
    () => serverSideApply({ live, applied: cm({ a: '10' }), manager: 'kubectl', force: false, schema, now: T1 }),
    (err: unknown) => err instanceof ApplyConflictError && /conflict with "editor"/.test(err.message),
  );
});

test('only the manager "kubectl" takes the upgrade path', () => {
  const live = clientSideApplied({ a: '1' });
  assert.throws(
    () => serverSideApply({ live, applied: cm({ a: '10' }), manager: 'other', force: false, schema, now: T1 }),
    (err: unknown) => err instanceof ApplyConflictError && /kubectl-client-side-apply/.test(err.message),
  );
});

test('an object without the annotation gets none from a server-side apply', () => {
  const live = updateManagedFields({ live: null, updated: cm({ a: '1' }), manager: 'editor', schema, now: T0 }).object;
  const r = serverSideApply({ live, applied: cm({ a: '1' }), manager: 'kubectl', force: false, schema, now: T1 });
  assert.equal((r.object.metadata as Obj).annotations, undefined);
});
