import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  alreadyExists,
  conflict,
  expired,
  forbidden,
  internal,
  invalid,
  isNotFoundError,
  methodNotSupported,
  notFound,
  requestEntityTooLarge,
  StatusError,
  timeout,
  tooManyRequests,
  toStatus,
  unsupportedMediaType,
} from './status.js';

test('notFound carries the kubectl-visible Status shape', () => {
  const e = notFound('pods', 'x');
  assert.ok(e instanceof StatusError);
  assert.deepEqual(e.status, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'pods "x" not found',
    reason: 'NotFound',
    details: { name: 'x', kind: 'pods' },
    code: 404,
  });
  assert.equal(isNotFoundError(e), true);
});

test('grouped resources are qualified in messages and details', () => {
  const e = alreadyExists({ group: 'apps', resource: 'deployments' }, 'd');
  assert.equal(e.message, 'deployments.apps "d" already exists');
  assert.deepEqual(e.status.details, { name: 'd', group: 'apps', kind: 'deployments' });
  assert.equal(e.code, 409);
});

test('conflict uses the optimistic-lock message', () => {
  assert.equal(
    conflict('pods', 'x').message,
    'Operation cannot be fulfilled on pods "x": the object has been modified; please apply your changes to the latest version and try again',
  );
});

test('invalid aggregates one or several errors like upstream', () => {
  const one = invalid(
    'Pod',
    'x',
    [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers[0].name' }],
    ['spec.containers[0].name: Required value'],
  );
  assert.equal(one.message, 'Pod "x" is invalid: spec.containers[0].name: Required value');
  assert.equal(one.code, 422);
  const two = invalid({ group: 'apps', kind: 'Deployment' }, 'd', [], ['a: Required value', 'b: Required value']);
  assert.equal(two.message, 'Deployment.apps "d" is invalid: [a: Required value, b: Required value]');
});

test('the other constructors use upstream reasons, codes and formats', () => {
  assert.deepEqual(
    [methodNotSupported('pods', 'deletecollection').code, methodNotSupported('pods', 'x').reason],
    [405, 'MethodNotAllowed'],
  );
  assert.equal(methodNotSupported('pods', 'create').message, 'create is not supported on resources of kind "pods"');
  assert.equal(unsupportedMediaType(['application/json']).code, 415);
  assert.equal(requestEntityTooLarge('limit is 3145728').message, 'Request entity too large: limit is 3145728');
  assert.deepEqual([expired('too old resource version: 5 (100)').code, expired('x').reason], [410, 'Expired']);
  assert.deepEqual(tooManyRequests('slow down', 1).status.details, { retryAfterSeconds: 1 });
  assert.equal(timeout('took too long').message, 'Timeout: took too long');
  assert.equal(forbidden('pods', 'p', 'no').message, 'pods "p" is forbidden: no');
  assert.equal(internal(new Error('boom')).message, 'Internal error occurred: boom');
  assert.equal(toStatus(new Error('x')).code, 500);
});
