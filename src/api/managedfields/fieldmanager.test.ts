import { test } from 'node:test';
import assert from 'node:assert/strict';
import { patchSchemaFor } from '../strategicpatch/index.js';
import { ApplyConflictError, serverSideApply, updateManagedFields, type ManagedFieldsEntry } from './index.js';

const podSchema = patchSchemaFor('v1', 'Pod');
const deploySchema = patchSchemaFor('apps/v1', 'Deployment');
const T0 = '2025-01-01T00:00:00Z';
const T1 = '2025-01-01T00:01:00Z';

function pod(labels: Record<string, string>, containers: object[]): object {
  const metadata = { name: 'p', namespace: 'default', ...(Object.keys(labels).length > 0 ? { labels } : {}) };
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec: { containers } };
}

function deployment(replicas: number, image = 'nginx'): object {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'd' } },
      template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image }] } },
    },
  };
}

function entry(result: { managedFields: ManagedFieldsEntry[] }, manager: string): ManagedFieldsEntry | undefined {
  return result.managedFields.find((e) => e.manager === manager);
}

test('apply creates the object and records upstream-shaped FieldsV1', () => {
  const r = serverSideApply({
    live: null,
    applied: pod({ app: 'web' }, [{ name: 'nginx', image: 'nginx' }]),
    manager: 'kubectl',
    force: false,
    schema: podSchema,
    now: T0,
  });
  assert.equal(r.changed, true);
  assert.deepEqual(r.managedFields, [
    {
      manager: 'kubectl',
      operation: 'Apply',
      apiVersion: 'v1',
      time: T0,
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:metadata': { 'f:labels': { 'f:app': {} } },
        'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
      },
    },
  ]);
  assert.deepEqual((r.object.metadata as { managedFields: unknown }).managedFields, r.managedFields);
});

test('re-applying the same config leaves the object and its managedFields untouched', () => {
  const cfg = pod({ app: 'web' }, [{ name: 'nginx', image: 'nginx' }]);
  const first = serverSideApply({
    live: null,
    applied: cfg,
    manager: 'kubectl',
    force: false,
    schema: podSchema,
    now: T0,
  });
  const again = serverSideApply({
    live: first.object,
    applied: cfg,
    manager: 'kubectl',
    force: false,
    schema: podSchema,
    now: T1,
  });
  assert.equal(again.changed, false);
  assert.deepEqual(again.object, first.object);
});

test('a field the applier owned and now omits is removed, unless another manager owns it', () => {
  const first = serverSideApply({
    live: null,
    applied: pod({ app: 'web', tier: 'fe' }, [{ name: 'c', image: 'i' }]),
    manager: 'kubectl',
    force: false,
    schema: podSchema,
    now: T0,
  });
  const second = serverSideApply({
    live: first.object,
    applied: pod({ app: 'web' }, [{ name: 'c', image: 'i' }]),
    manager: 'kubectl',
    force: false,
    schema: podSchema,
    now: T1,
  });
  assert.deepEqual((second.object.metadata as { labels: object }).labels, { app: 'web' });
  assert.equal(entry(second, 'kubectl')?.time, T1);

  // Another applier sharing tier=fe keeps it alive when kubectl drops it.
  const shared = serverSideApply({
    live: first.object,
    applied: pod({ tier: 'fe' }, []),
    manager: 'other',
    force: false,
    schema: podSchema,
    now: T1,
  });
  const dropped = serverSideApply({
    live: shared.object,
    applied: pod({ app: 'web' }, [{ name: 'c', image: 'i' }]),
    manager: 'kubectl',
    force: false,
    schema: podSchema,
    now: T1,
  });
  assert.deepEqual((dropped.object.metadata as { labels: object }).labels, { app: 'web', tier: 'fe' });
});

test('apply conflicts with an Update manager owning a field with another value', () => {
  const created = updateManagedFields({
    live: null,
    updated: deployment(1),
    manager: 'kubectl-client-side-apply',
    schema: deploySchema,
    now: T0,
  });
  assert.equal(entry(created, 'kubectl-client-side-apply')?.operation, 'Update');
  let err: unknown;
  try {
    serverSideApply({
      live: created.object,
      applied: deployment(3),
      manager: 'kubectl',
      force: false,
      schema: deploySchema,
      now: T1,
    });
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof ApplyConflictError);
  assert.equal(
    err.message,
    'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas',
  );
  assert.equal(err.status.code, 409);
  assert.equal(err.status.reason, 'Conflict');
  assert.deepEqual(err.status.details.causes, [
    {
      type: 'FieldManagerConflict',
      message: 'conflict with "kubectl-client-side-apply" using apps/v1',
      field: '.spec.replicas',
    },
  ]);
});

test('several conflicts are listed per manager', () => {
  const created = updateManagedFields({
    live: null,
    updated: deployment(1, 'a'),
    manager: 'kubectl-create',
    schema: deploySchema,
    now: T0,
  });
  assert.throws(
    () =>
      serverSideApply({
        live: created.object,
        applied: deployment(2, 'b'),
        manager: 'kubectl',
        force: false,
        schema: deploySchema,
        now: T1,
      }),
    (e: unknown) =>
      e instanceof ApplyConflictError &&
      e.message ===
        'Apply failed with 2 conflicts: conflicts with "kubectl-create" using apps/v1:\n- .spec.replicas\n- .spec.template.spec.containers[name="c"].image',
  );
});

test('force takes ownership of conflicting fields', () => {
  const created = updateManagedFields({
    live: null,
    updated: deployment(1),
    manager: 'kubectl-client-side-apply',
    schema: deploySchema,
    now: T0,
  });
  const r = serverSideApply({
    live: created.object,
    applied: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 3 } },
    manager: 'kubectl',
    force: true,
    schema: deploySchema,
    now: T1,
  });
  assert.equal((r.object.spec as { replicas: number }).replicas, 3);
  assert.deepEqual(entry(r, 'kubectl')?.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
  const csa = entry(r, 'kubectl-client-side-apply')?.fieldsV1 as { 'f:spec': Record<string, unknown> };
  assert.equal('f:replicas' in csa['f:spec'], false);
  assert.equal('f:template' in csa['f:spec'], true);
});

test("applying a value equal to another manager's shares ownership without conflict", () => {
  const created = updateManagedFields({
    live: null,
    updated: deployment(1),
    manager: 'kubectl-create',
    schema: deploySchema,
    now: T0,
  });
  const r = serverSideApply({
    live: created.object,
    applied: deployment(1),
    manager: 'kubectl',
    force: false,
    schema: deploySchema,
    now: T1,
  });
  assert.equal(r.changed, false);
  assert.ok(entry(r, 'kubectl-create'));
  assert.ok(entry(r, 'kubectl'));
});

test('two appliers own different containers by key', () => {
  const a = serverSideApply({
    live: null,
    applied: pod({}, [{ name: 'a', image: 'a:1' }]),
    manager: 'alice',
    force: false,
    schema: podSchema,
    now: T0,
  });
  const b = serverSideApply({
    live: a.object,
    applied: pod({}, [{ name: 'b', image: 'b:1' }]),
    manager: 'bob',
    force: false,
    schema: podSchema,
    now: T0,
  });
  assert.deepEqual((b.object.spec as { containers: object[] }).containers, [
    { name: 'a', image: 'a:1' },
    { name: 'b', image: 'b:1' },
  ]);
  assert.deepEqual(entry(b, 'bob')?.fieldsV1, {
    'f:spec': { 'f:containers': { 'k:{"name":"b"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
  });

  // Alice changes her container freely, then drops it; Bob's stays.
  const a2 = serverSideApply({
    live: b.object,
    applied: pod({}, [{ name: 'a', image: 'a:2' }]),
    manager: 'alice',
    force: false,
    schema: podSchema,
    now: T1,
  });
  assert.deepEqual((a2.object.spec as { containers: object[] }).containers, [
    { name: 'a', image: 'a:2' },
    { name: 'b', image: 'b:1' },
  ]);
  const a3 = serverSideApply({
    live: a2.object,
    applied: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } },
    manager: 'alice',
    force: false,
    schema: podSchema,
    now: T1,
  });
  assert.deepEqual((a3.object.spec as { containers: object[] }).containers, [{ name: 'b', image: 'b:1' }]);
  assert.equal(entry(a3, 'alice'), undefined);

  // Bob touching Alice's container image conflicts.
  assert.throws(
    () =>
      serverSideApply({
        live: a2.object,
        applied: pod({}, [{ name: 'a', image: 'x' }]),
        manager: 'bob',
        force: false,
        schema: podSchema,
        now: T1,
      }),
    /conflict with "alice": \.spec\.containers\[name="a"\]\.image/,
  );
});

test('Update moves changed fields to the updating manager and leaves the rest', () => {
  const created = updateManagedFields({
    live: null,
    updated: deployment(1),
    manager: 'kubectl-create',
    schema: deploySchema,
    now: T0,
  });
  assert.deepEqual(entry(created, 'kubectl-create')?.fieldsV1, {
    'f:spec': {
      'f:replicas': {},
      'f:selector': {},
      'f:template': {
        'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
        'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
      },
    },
  });
  const scaled = updateManagedFields({
    live: created.object,
    updated: { ...deployment(5), metadata: created.object.metadata },
    manager: 'kube-controller-manager',
    schema: deploySchema,
    now: T1,
  });
  assert.deepEqual(entry(scaled, 'kube-controller-manager'), {
    manager: 'kube-controller-manager',
    operation: 'Update',
    apiVersion: 'apps/v1',
    time: T1,
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:spec': { 'f:replicas': {} } },
  });
  const create = entry(scaled, 'kubectl-create')?.fieldsV1 as { 'f:spec': Record<string, unknown> };
  assert.equal('f:replicas' in create['f:spec'], false);
  assert.equal(entry(scaled, 'kubectl-create')?.time, T0);

  // A no-op update adds no entry and changes no time.
  const noop = updateManagedFields({
    live: scaled.object,
    updated: scaled.object,
    manager: 'someone',
    schema: deploySchema,
    now: T1,
  });
  assert.equal(noop.changed, false);
  assert.deepEqual(noop.managedFields, scaled.managedFields);
});

test('status written through the status subresource is recorded with the subresource', () => {
  const created = updateManagedFields({
    live: null,
    updated: pod({}, [{ name: 'c' }]),
    manager: 'kubectl-create',
    schema: podSchema,
    now: T0,
    resetFields: [['status']],
  });
  const withStatus = {
    ...(created.object as object),
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  };
  const r = updateManagedFields({
    live: created.object,
    updated: withStatus,
    manager: 'kubelet',
    subresource: 'status',
    schema: podSchema,
    now: T1,
  });
  assert.deepEqual(entry(r, 'kubelet'), {
    manager: 'kubelet',
    operation: 'Update',
    apiVersion: 'v1',
    time: T1,
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:status': {
        'f:conditions': { '.': {}, 'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} } },
        'f:phase': {},
      },
    },
    subresource: 'status',
  });
});

test('first apply to an object without managedFields conflicts with before-first-apply', () => {
  assert.throws(
    () =>
      serverSideApply({
        live: deployment(1),
        applied: deployment(2),
        manager: 'kubectl',
        force: false,
        schema: deploySchema,
        now: T0,
      }),
    /conflict with "before-first-apply" using apps\/v1: \.spec\.replicas/,
  );
});
