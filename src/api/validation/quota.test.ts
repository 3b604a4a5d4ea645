import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errorString } from './field.js';
import { validateLimitRange, validateResourceQuota } from './quota.js';

const meta = { name: 'x', namespace: 'ns' };
const quotaErrors = (spec: unknown): string[] =>
  validateResourceQuota({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: meta, spec } as never).map(errorString);
const limitErrors = (limits: unknown[]): string[] =>
  validateLimitRange({ apiVersion: 'v1', kind: 'LimitRange', metadata: meta, spec: { limits } } as never).map(
    errorString,
  );

test('ResourceQuota validation: names, quantities, scopes', () => {
  assert.deepEqual(quotaErrors({ hard: { pods: '2', 'requests.cpu': '500m', 'count/deployments.apps': '1' } }), []);
  assert.deepEqual(quotaErrors({ hard: { foo: '1', pods: '1500m', cpu: '-1' } }), [
    'spec.hard[foo]: Invalid value: "foo": must be a standard resource for quota',
    'spec.hard[pods]: Invalid value: "1500m": must be an integer',
    'spec.hard[cpu]: Invalid value: "-1": must be greater than or equal to 0',
  ]);
  assert.deepEqual(quotaErrors({ hard: { pods: '1' }, scopes: ['BestEffort', 'NotBestEffort'] }), [
    'spec.scopes: Invalid value: []string{"BestEffort", "NotBestEffort"}: conflicting scopes',
  ]);
  assert.equal(quotaErrors({ hard: { cpu: '1' }, scopes: ['BestEffort'] }).length, 1);
  assert.match(
    quotaErrors({ hard: { cpu: '1' }, scopes: ['BestEffort'] })[0]!,
    /unsupported scope applied to resource/,
  );
  assert.match(quotaErrors({ hard: { pods: '1' }, scopes: ['Nope'] })[0]!, /unsupported scope/);
});

test('LimitRange validation: types and the order of min, defaultRequest, default and max', () => {
  assert.deepEqual(
    limitErrors([{ type: 'Container', min: { cpu: '100m' }, default: { cpu: '1' }, max: { cpu: '2' } }]),
    [],
  );
  assert.deepEqual(limitErrors([{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }]), [
    'spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1',
  ]);
  assert.deepEqual(limitErrors([{ type: 'Container', default: { cpu: '3' }, max: { cpu: '1' } }]), [
    'spec.limits[0].default[cpu]: Invalid value: "3": default value 3 is greater than max value 1',
  ]);
  assert.deepEqual(limitErrors([{ type: 'Pod', default: { cpu: '1' } }]), [
    'spec.limits[0].default: Invalid value: map[string]string{"cpu":"1"}: may not be specified when `type` is \'Pod\'',
  ]);
  assert.match(
    limitErrors([{ type: 'PersistentVolumeClaim' }])[0]!,
    /either minimum or maximum storage value is required/,
  );
  assert.match(
    limitErrors([{ type: 'Container', maxLimitRequestRatio: { cpu: '500m' } }])[0]!,
    /ratio 500m is less than 1/,
  );
});
