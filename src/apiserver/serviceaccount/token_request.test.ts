import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../api/index.js';
import { checkTokenRequestTarget, parseTokenRequest, validateTokenRequest } from './token_request.js';

const req = (spec: object): object => ({ kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', spec });

test('an empty spec defaults to 3600 s and no audiences (the server fills those in)', () => {
  const { spec } = parseTokenRequest(req({}));
  assert.deepEqual(spec, { audiences: [], expirationSeconds: 3600 });
});

test('kind and apiVersion may be left out, as the endpoint implies them', () => {
  const { obj, spec } = parseTokenRequest({ spec: { audiences: ['a'] } });
  assert.equal(obj.kind, 'TokenRequest');
  assert.equal(obj.apiVersion, 'authentication.k8s.io/v1');
  assert.deepEqual(spec.audiences, ['a']);
});

test('expirationSeconds below 600 is 422 Invalid on spec.expirationSeconds, like ValidateTokenRequest', () => {
  assert.throws(
    () => validateTokenRequest(parseTokenRequest(req({ expirationSeconds: 599 })).spec),
    (err: unknown) => {
      assert.ok(err instanceof StatusError);
      assert.equal(err.status.code, 422);
      assert.equal(err.status.reason, 'Invalid');
      assert.equal(
        err.status.message,
        'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes',
      );
      assert.deepEqual(err.status.details?.causes, [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: 599: may not specify a duration less than 10 minutes',
          field: 'spec.expirationSeconds',
        },
      ]);
      assert.equal(err.status.details?.group, 'authentication.k8s.io');
      assert.equal(err.status.details?.kind, 'TokenRequest');
      return true;
    },
  );
  validateTokenRequest(parseTokenRequest(req({ expirationSeconds: 600 })).spec);
});

test('expirationSeconds above 2^32 is 422 Invalid', () => {
  assert.throws(
    () => validateTokenRequest(parseTokenRequest(req({ expirationSeconds: 2 ** 32 + 1 })).spec),
    /may not specify a duration larger than 2\^32 seconds/,
  );
  validateTokenRequest(parseTokenRequest(req({ expirationSeconds: 2 ** 32 })).spec);
});

test('a wrong kind or version, or a non-object body, is 400', () => {
  for (const body of [
    { kind: 'Pod', apiVersion: 'authentication.k8s.io/v1' },
    { kind: 'TokenRequest', apiVersion: 'v1' },
    [],
    'x',
    null,
  ]) {
    assert.throws(
      () => parseTokenRequest(body),
      (err: unknown) => err instanceof StatusError && err.status.code === 400,
      JSON.stringify(body),
    );
  }
});

test('boundObjectRef is carried with every field as a string', () => {
  const { spec } = parseTokenRequest(req({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p' } }));
  assert.deepEqual(spec.boundObjectRef, { kind: 'Pod', apiVersion: 'v1', name: 'p', uid: '' });
});

test('a metadata.name or namespace in the body must match the URL (422 named after the ServiceAccount); empty ones are fine', () => {
  checkTokenRequestTarget({}, 'robot', 'team-a');
  checkTokenRequestTarget({ metadata: { name: 'robot', namespace: '' } }, 'robot', 'team-a');
  assert.throws(
    () => checkTokenRequestTarget({ metadata: { name: 'default' } }, 'robot', 'team-a'),
    (err: unknown) => {
      assert.ok(err instanceof StatusError);
      assert.equal(err.status.code, 422);
      assert.equal(
        err.status.message,
        'TokenRequest.authentication.k8s.io "robot" is invalid: metadata.name: Invalid value: "default": must match the service account name if specified',
      );
      return true;
    },
  );
  assert.throws(
    () => checkTokenRequestTarget({ metadata: { namespace: 'other' } }, 'robot', 'team-a'),
    /metadata.namespace: Invalid value: "other": must match the service account namespace if specified/,
  );
});
