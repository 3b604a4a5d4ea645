import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyDefaults } from '../defaults.js';
import type { KubeObject } from '../types.js';
import { validateCreate, validateUpdate } from './index.js';

const cronJob = (spec: Record<string, unknown>, name = 'x'): KubeObject =>
  applyDefaults('cronjobs', {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name, namespace: 'default' },
    spec: {
      schedule: '*/1 * * * *',
      jobTemplate: {
        spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } },
      },
      ...spec,
    },
  });
const messages = (o: KubeObject): string[] => validateCreate('cronjobs', o).map((e) => `${e.field}: ${e.detail ?? ''}`);

test('a CronJob gets upstream defaults: Allow, not suspended, history limits 3 and 1', () => {
  const cj = cronJob({});
  const spec = cj.spec as Record<string, unknown>;
  assert.equal(spec.concurrencyPolicy, 'Allow');
  assert.equal(spec.suspend, false);
  assert.equal(spec.successfulJobsHistoryLimit, 3);
  assert.equal(spec.failedJobsHistoryLimit, 1);
  assert.deepEqual(validateCreate('cronjobs', cj), []);
});

test('a CronJob schedule must parse, and descriptors are accepted', () => {
  for (const s of ['@hourly', '@daily', '@midnight', '@weekly', '@monthly', '@yearly', '@annually', '@every 2h'])
    assert.deepEqual(validateCreate('cronjobs', cronJob({ schedule: s })), [], s);
  assert.deepEqual(messages(cronJob({ schedule: 'bad' })), [
    'spec.schedule: expected exactly 5 fields, found 1: [bad]',
  ]);
  assert.deepEqual(messages(cronJob({ schedule: '' })), ['spec.schedule: ']);
});

test('TZ= in a schedule is refused on create, and kept on update only where it already was', () => {
  const withTZ = cronJob({ schedule: 'TZ=UTC 0 * * * *' });
  assert.deepEqual(messages(withTZ), [
    'spec.schedule: cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
  ]);
  assert.equal(messages(cronJob({ schedule: 'CRON_TZ=UTC 0 * * * *' })).length, 1);
  const old = { ...withTZ, metadata: { ...withTZ.metadata, resourceVersion: '1' } };
  const next = { ...withTZ, metadata: { ...withTZ.metadata, resourceVersion: '1' } };
  assert.deepEqual(validateUpdate('cronjobs', next, old), []);
  const plain = cronJob({});
  plain.metadata = { ...plain.metadata, resourceVersion: '1' };
  assert.equal(validateUpdate('cronjobs', next, plain).length, 1);
});

test('timeZone must be an IANA zone name', () => {
  assert.deepEqual(validateCreate('cronjobs', cronJob({ timeZone: 'Europe/Berlin' })), []);
  assert.deepEqual(messages(cronJob({ timeZone: 'Mars/Olympus' })), ['spec.timeZone: unknown time zone Mars/Olympus']);
  assert.deepEqual(messages(cronJob({ timeZone: '' })), ['spec.timeZone: timeZone must be nil or non-empty string']);
  assert.equal(messages(cronJob({ timeZone: 'Local' })).length, 1);
  assert.equal(messages(cronJob({ timeZone: '../etc/passwd' })).length, 1);
});

test('concurrency policy, history limits, deadline, name length and the job template are checked', () => {
  assert.deepEqual(messages(cronJob({ concurrencyPolicy: 'Sometimes' })), [
    'spec.concurrencyPolicy: supported values: "Allow", "Forbid", "Replace"',
  ]);
  assert.equal(
    messages(cronJob({ successfulJobsHistoryLimit: -1 }))[0]?.split(':')[0],
    'spec.successfulJobsHistoryLimit',
  );
  assert.equal(messages(cronJob({ startingDeadlineSeconds: -5 }))[0]?.split(':')[0], 'spec.startingDeadlineSeconds');
  assert.deepEqual(messages(cronJob({}, 'x'.repeat(53))), ['metadata.name: must be no more than 52 characters']);
  const always = cronJob({
    jobTemplate: { spec: { template: { spec: { restartPolicy: 'Always', containers: [{ name: 'c', image: 'b' }] } } } },
  });
  assert.equal(messages(always)[0]?.split(':')[0], 'spec.jobTemplate.spec.template.spec.restartPolicy');
});
