import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultLimitRange, type LimitRange, type Pod } from '../../api/index.js';
import { applyLimitRangeDefaults, claimLimitViolations, podLimitViolations } from './limit_ranger.js';

const range = (limits: unknown[]): LimitRange => {
  const lr = { metadata: { name: 'lr', namespace: 'ns' }, spec: { limits } } as LimitRange;
  defaultLimitRange(lr as unknown as Record<string, unknown>);
  return lr;
};
const pod = (containers: unknown[]): Pod => ({ metadata: { name: 'p' }, spec: { containers } }) as unknown as Pod;

test('Container defaults fill missing requests and limits, and are noted in the annotation', () => {
  const lr = range([{ type: 'Container', default: { cpu: '500m', memory: '1Gi' }, defaultRequest: { cpu: '100m' } }]);
  const p = pod([{ name: 'a' }, { name: 'b', resources: { limits: { cpu: '1' }, requests: { cpu: '1' } } }]);
  applyLimitRangeDefaults(p, [lr]);
  assert.deepEqual(p.spec!.containers[0]!.resources, {
    limits: { cpu: '500m', memory: '1Gi' },
    requests: { cpu: '100m', memory: '1Gi' },
  });
  assert.deepEqual(p.spec!.containers[1]!.resources, {
    limits: { cpu: '1', memory: '1Gi' },
    requests: { cpu: '1', memory: '1Gi' },
  });
  assert.equal(
    p.metadata!.annotations!['kubernetes.io/limit-ranger'],
    'LimitRanger plugin set: cpu, memory request for container a; cpu, memory limit for container a; memory request for container b; memory limit for container b',
  );
});

test('LimitRange defaulting: max becomes the default limit, which becomes the default request, else min', () => {
  const lr = range([{ type: 'Container', max: { cpu: '2' }, min: { memory: '1Mi' } }]);
  assert.deepEqual(lr.spec!.limits[0]!.default, { cpu: '2' });
  assert.deepEqual(lr.spec!.limits[0]!.defaultRequest, { cpu: '2', memory: '1Mi' });
});

test('min, max and ratio violations carry upstream messages', () => {
  const lr = range([
    {
      type: 'Container',
      min: { cpu: '100m' },
      max: { cpu: '1' },
      maxLimitRequestRatio: { cpu: '2' },
      default: {},
      defaultRequest: {},
    },
  ]);
  const cases: [unknown, string[]][] = [
    [{ requests: { cpu: '200m' }, limits: { cpu: '300m' } }, []],
    [
      { requests: { cpu: '50m' }, limits: { cpu: '100m' } },
      ['minimum cpu usage per Container is 100m, but request is 50m'],
    ],
    [
      { requests: { cpu: '500m' }, limits: { cpu: '1500m' } },
      [
        'maximum cpu usage per Container is 1, but limit is 1500m',
        'cpu max limit to request ratio per Container is 2, but provided ratio is 3.000000',
      ],
    ],
    [
      { requests: { cpu: '500m' } },
      [
        'maximum cpu usage per Container is 1.  No limit is specified',
        'cpu max limit to request ratio per Container is 2, but no limit is specified or limit is 0',
      ],
    ],
  ];
  for (const [resources, want] of cases) {
    const p = pod([{ name: 'a', resources }]);
    // No defaults are applied here: the pod is checked as given.
    assert.deepEqual(podLimitViolations(p, lr), want, JSON.stringify(resources));
  }
});

test('Pod limits bound the sum of the containers', () => {
  const lr = range([{ type: 'Pod', max: { memory: '1Gi' } }]);
  const p = pod([
    { name: 'a', resources: { limits: { memory: '768Mi' } } },
    { name: 'b', resources: { limits: { memory: '512Mi' } } },
  ]);
  assert.deepEqual(podLimitViolations(p, lr), ['maximum memory usage per Pod is 1Gi, but limit is 1280Mi']);
});

test('PersistentVolumeClaim min and max bound the storage request', () => {
  const lr = range([{ type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } }]);
  const claim = (storage: string) => ({ spec: { resources: { requests: { storage } } } });
  assert.deepEqual(claimLimitViolations(claim('5Gi'), lr), []);
  assert.deepEqual(claimLimitViolations(claim('500Mi'), lr), [
    'minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi',
  ]);
  assert.deepEqual(claimLimitViolations(claim('20Gi'), lr), [
    'maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi',
  ]);
});
