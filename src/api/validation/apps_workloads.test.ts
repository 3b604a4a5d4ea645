import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyDefaults } from '../defaults.js';
import type { KubeObject } from '../types.js';
import { validateCreate, validateUpdate } from './index.js';

const workload = (kind: string, spec: Record<string, unknown> = {}): KubeObject =>
  ({
    apiVersion: 'apps/v1',
    kind,
    metadata: { name: 'w', namespace: 'ns' },
    spec: {
      selector: { matchLabels: { app: 'w' } },
      template: { metadata: { labels: { app: 'w' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      ...spec,
    },
  }) as KubeObject;
const fields = (errs: { field: string; type: string }[]): string[] => errs.map((e) => `${e.type} ${e.field}`);

test('DaemonSet and StatefulSet defaults follow upstream', () => {
  const ds = applyDefaults('daemonsets', workload('DaemonSet')) as { spec: Record<string, unknown> };
  assert.deepEqual(ds.spec.updateStrategy, {
    type: 'RollingUpdate',
    rollingUpdate: { maxUnavailable: 1, maxSurge: 0 },
  });
  assert.equal(ds.spec.revisionHistoryLimit, 10);
  const sts = applyDefaults('statefulsets', workload('StatefulSet')) as { spec: Record<string, unknown> };
  assert.equal(sts.spec.podManagementPolicy, 'OrderedReady');
  assert.deepEqual(sts.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
  assert.deepEqual(sts.spec.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Retain', whenScaled: 'Retain' });
  assert.equal(sts.spec.replicas, 1);
  assert.equal(sts.spec.revisionHistoryLimit, 10);
});

test('a DaemonSet needs a selector matching its template, exactly one of maxUnavailable/maxSurge, an unchanged selector', () => {
  const ok = applyDefaults('daemonsets', workload('DaemonSet'));
  assert.deepEqual(validateCreate('daemonsets', ok), []);
  const mismatch = applyDefaults('daemonsets', workload('DaemonSet', { selector: { matchLabels: { app: 'x' } } }));
  assert.deepEqual(fields(validateCreate('daemonsets', mismatch)), ['FieldValueInvalid spec.template.metadata.labels']);
  const both = applyDefaults(
    'daemonsets',
    workload('DaemonSet', {
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } },
    }),
  );
  assert.deepEqual(fields(validateCreate('daemonsets', both)), [
    'FieldValueInvalid spec.updateStrategy.rollingUpdate.maxSurge',
  ]);
  const neither = applyDefaults(
    'daemonsets',
    workload('DaemonSet', {
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } },
    }),
  );
  assert.deepEqual(fields(validateCreate('daemonsets', neither)), [
    'FieldValueRequired spec.updateStrategy.rollingUpdate.maxUnavailable',
  ]);
  const moved = structuredClone(ok) as { spec: { selector: unknown; template: { metadata: { labels: unknown } } } };
  moved.spec.selector = { matchLabels: { app: 'w', v: '2' } };
  moved.spec.template.metadata.labels = { app: 'w', v: '2' };
  assert.deepEqual(fields(validateUpdate('daemonsets', moved as KubeObject, ok)), ['FieldValueInvalid spec.selector']);
});

test('a StatefulSet update may change replicas and updateStrategy but not serviceName; podManagementPolicy is checked', () => {
  const old = applyDefaults('statefulsets', workload('StatefulSet', { serviceName: 'svc' }));
  assert.deepEqual(validateCreate('statefulsets', old), []);
  const scaled = structuredClone(old) as { spec: Record<string, unknown> };
  scaled.spec.replicas = 5;
  scaled.spec.updateStrategy = { type: 'OnDelete' };
  assert.deepEqual(validateUpdate('statefulsets', scaled as KubeObject, old), []);
  const renamed = structuredClone(old) as { spec: Record<string, unknown> };
  renamed.spec.serviceName = 'other';
  assert.deepEqual(fields(validateUpdate('statefulsets', renamed as KubeObject, old)), ['FieldValueForbidden spec']);
  const bad = applyDefaults('statefulsets', workload('StatefulSet', { podManagementPolicy: 'Random' }));
  assert.deepEqual(fields(validateCreate('statefulsets', bad)), ['FieldValueNotSupported spec.podManagementPolicy']);
});

test('a ControllerRevision needs data, and its data never changes', () => {
  const cr = {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: { name: 'r', namespace: 'ns' },
    revision: 1,
  };
  assert.deepEqual(fields(validateCreate('controllerrevisions', cr as KubeObject)), ['FieldValueRequired data']);
  const withData = { ...cr, data: { spec: {} } } as KubeObject;
  assert.deepEqual(validateUpdate('controllerrevisions', { ...withData, revision: 3 } as KubeObject, withData), []);
  assert.deepEqual(
    fields(validateUpdate('controllerrevisions', { ...withData, data: { spec: { x: 1 } } } as KubeObject, withData)),
    ['FieldValueInvalid data'],
  );
});
