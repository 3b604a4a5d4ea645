import { test } from 'node:test';
import assert from 'node:assert/strict';
import { columnDefinitions, printRow } from '../printers/index.js';
import { podTable } from './table.js';
import { ago, now } from '../printers/testing.js';

const MIN = 60_000;

function pod(over: { metadata?: object; spec?: object; status?: object }) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-0', namespace: 'default', creationTimestamp: ago(10 * MIN), ...over.metadata },
    spec: { nodeName: 'node-a', containers: [{ name: 'app', image: 'nginx' }], ...over.spec },
    status: { phase: 'Running', podIP: '10.0.0.5', podIPs: [{ ip: '10.0.0.5' }], ...over.status },
  };
}

const running = { running: { startedAt: ago(9 * MIN) } };

test('pod columns match upstream names, types and priorities', () => {
  const cols = columnDefinitions(podTable);
  assert.deepEqual(
    cols.map((c) => [c.name, c.type, c.format, c.priority]),
    [
      ['Name', 'string', 'name', 0],
      ['Ready', 'string', '', 0],
      ['Status', 'string', '', 0],
      ['Restarts', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['IP', 'string', '', 1],
      ['Node', 'string', '', 1],
      ['Nominated Node', 'string', '', 1],
      ['Readiness Gates', 'string', '', 1],
    ],
  );
  assert.match(cols[4].description, /^CreationTimestamp is a timestamp/);
});

test('a running pod shows READY 1/1, Running, and every wide cell', () => {
  const row = printRow(
    podTable,
    pod({ status: { containerStatuses: [{ name: 'app', ready: true, restartCount: 0, state: running }] } }),
    now,
  );
  assert.deepEqual(row.cells, ['web-0', '1/1', 'Running', '0', '10m', '10.0.0.5', 'node-a', '<none>', '<none>']);
  assert.equal(row.conditions, undefined);
});

test('a pending unscheduled pod shows Pending and <none> placeholders', () => {
  const p = pod({ spec: { nodeName: undefined }, status: { phase: 'Pending', podIP: undefined, podIPs: undefined } });
  assert.deepEqual(printRow(podTable, p, now).cells, [
    'web-0',
    '0/1',
    'Pending',
    '0',
    '10m',
    '<none>',
    '<none>',
    '<none>',
    '<none>',
  ]);
});

test('a pending pod pulling its image shows the waiting reason', () => {
  const p = pod({
    status: {
      phase: 'Pending',
      containerStatuses: [
        { name: 'app', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } },
      ],
    },
  });
  assert.equal(printRow(podTable, p, now).cells[2], 'ContainerCreating');
});

test('a crash-looping pod shows CrashLoopBackOff and restarts with the last termination age', () => {
  const p = pod({
    status: {
      containerStatuses: [
        {
          name: 'app',
          ready: false,
          restartCount: 12,
          state: { waiting: { reason: 'CrashLoopBackOff' } },
          lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(MIN + 54_000) } },
        },
      ],
    },
  });
  const cells = printRow(podTable, p, now).cells;
  assert.deepEqual(cells.slice(1, 4), ['0/1', 'CrashLoopBackOff', '12 (114s ago)']);
});

test('a pod with a deletionTimestamp shows Terminating unless its phase is terminal', () => {
  const deleting = { deletionTimestamp: ago(5_000) };
  assert.equal(printRow(podTable, pod({ metadata: deleting }), now).cells[2], 'Terminating');
  const done = pod({ metadata: deleting, status: { phase: 'Succeeded' } });
  assert.equal(printRow(podTable, done, now).cells[2], 'Succeeded');
});

test('a pod on a lost node being deleted shows Unknown', () => {
  const p = pod({ metadata: { deletionTimestamp: ago(1000) }, status: { phase: 'Running', reason: 'NodeLost' } });
  assert.equal(printRow(podTable, p, now).cells[2], 'Unknown');
});

test('init containers show Init:x/y, then the failing init reason', () => {
  const spec = { initContainers: [{ name: 'migrate' }, { name: 'seed' }] };
  const first = pod({
    spec,
    status: {
      phase: 'Pending',
      initContainerStatuses: [
        { name: 'migrate', restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
        { name: 'seed', restartCount: 0, state: { running: {} } },
      ],
      containerStatuses: [{ name: 'app', restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }],
    },
  });
  assert.deepEqual(printRow(podTable, first, now).cells.slice(1, 4), ['0/1', 'Init:1/2', '0']);

  const failing = pod({
    spec,
    status: {
      phase: 'Pending',
      initContainerStatuses: [{ name: 'migrate', restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } } }],
    },
  });
  assert.deepEqual(printRow(podTable, failing, now).cells.slice(2, 4), ['Init:CrashLoopBackOff', '3']);

  const exited = pod({
    spec,
    status: { phase: 'Pending', initContainerStatuses: [{ name: 'migrate', state: { terminated: { exitCode: 2 } } }] },
  });
  assert.equal(printRow(podTable, exited, now).cells[2], 'Init:ExitCode:2');
});

test('a running sidecar counts toward READY and the total', () => {
  const p = pod({
    spec: { initContainers: [{ name: 'proxy', restartPolicy: 'Always' }] },
    status: {
      conditions: [{ type: 'Initialized', status: 'True' }],
      initContainerStatuses: [{ name: 'proxy', ready: true, started: true, restartCount: 1, state: running }],
      containerStatuses: [{ name: 'app', ready: true, restartCount: 0, state: running }],
    },
  });
  assert.deepEqual(printRow(podTable, p, now).cells.slice(1, 4), ['2/2', 'Running', '1']);
});

test('a completed pod carries the Completed row condition', () => {
  const p = pod({
    status: {
      phase: 'Succeeded',
      containerStatuses: [{ name: 'app', state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
    },
  });
  const row = printRow(podTable, p, now);
  assert.equal(row.cells[2], 'Completed');
  assert.deepEqual(row.conditions, [
    { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
  ]);
});

test('readiness gates count true conditions', () => {
  const p = pod({
    spec: { readinessGates: [{ conditionType: 'example.com/lb' }, { conditionType: 'example.com/dns' }] },
    status: { conditions: [{ type: 'example.com/lb', status: 'True' }] },
  });
  assert.equal(printRow(podTable, p, now).cells[8], '1/2');
});

test('the row object is PartialObjectMetadata with the namespace by default', () => {
  const row = printRow(podTable, pod({}), now);
  assert.deepEqual(row.object, {
    kind: 'PartialObjectMetadata',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { name: 'web-0', namespace: 'default', creationTimestamp: ago(10 * MIN) },
  });
});
