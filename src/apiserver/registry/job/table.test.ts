import { test } from 'node:test';
import assert from 'node:assert/strict';
import { columnDefinitions, printRow } from '../printers/index.js';
import { jobTable } from './table.js';
import { ago, now, template } from '../printers/testing.js';

test('job columns and a completed job', () => {
  assert.deepEqual(
    columnDefinitions(jobTable).map((c) => c.name),
    ['Name', 'Status', 'Completions', 'Duration', 'Age', 'Containers', 'Images', 'Selector'],
  );
  const job = {
    metadata: { name: 'echo-job', creationTimestamp: ago(7000) },
    spec: {
      completions: 1,
      parallelism: 1,
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'abc' } },
      template,
    },
    status: {
      succeeded: 1,
      startTime: ago(7000),
      completionTime: ago(3000),
      conditions: [
        { type: 'SuccessCriteriaMet', status: 'True' },
        { type: 'Complete', status: 'True' },
      ],
    },
  };
  assert.deepEqual(printRow(jobTable, job, now).cells.slice(0, 5), ['echo-job', 'Complete', '1/1', '4s', '7s']);
  assert.equal(printRow(jobTable, job, now).cells[7], 'batch.kubernetes.io/controller-uid=abc');
});

test('running, failed, suspended and terminating jobs', () => {
  const base = {
    metadata: { name: 'j', creationTimestamp: ago(600_000) },
    spec: { completions: 4, parallelism: 2, template },
  };
  const runningJob = { ...base, status: { succeeded: 1, startTime: ago(300_000) } };
  assert.deepEqual(printRow(jobTable, runningJob, now).cells.slice(1, 4), ['Running', '1/4', '5m']);
  const failed = { ...base, status: { conditions: [{ type: 'Failed', status: 'True' }] } };
  assert.deepEqual(printRow(jobTable, failed, now).cells.slice(1, 4), ['Failed', '0/4', '']);
  const suspended = { ...base, status: { conditions: [{ type: 'Suspended', status: 'True' }] } };
  assert.equal(printRow(jobTable, suspended, now).cells[1], 'Suspended');
  const terminating = { ...base, metadata: { ...base.metadata, deletionTimestamp: ago(1000) }, status: {} };
  assert.equal(printRow(jobTable, terminating, now).cells[1], 'Terminating');
});

test('a work-queue job without completions prints "n/1 of p"', () => {
  const job = { metadata: { name: 'q' }, spec: { parallelism: 5, template }, status: { succeeded: 2 } };
  assert.deepEqual(printRow(jobTable, job, now).cells.slice(1, 5), ['Running', '2/1 of 5', '', '<unknown>']);
});
