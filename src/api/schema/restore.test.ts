import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findRestoreError, goFormat } from './restore.js';

test("a value of the wrong shape gets upstream's conversion error text", () => {
  const pod = (extra: object): object => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: { containers: [{ name: 'c', image: 'i' }] },
    ...extra,
  });
  assert.equal(findRestoreError('', 'Pod', pod({})), undefined);
  assert.equal(
    findRestoreError('', 'Pod', pod({ metadata: { name: 'p', labels: 'invalid' } })),
    'cannot restore map from string',
  );
  assert.equal(
    findRestoreError('', 'Pod', pod({ metadata: { name: 'p', annotations: 5 } })),
    'cannot restore map from int64',
  );
  assert.equal(findRestoreError('', 'Pod', pod({ spec: 'x' })), 'cannot restore struct from: string');
  assert.equal(
    findRestoreError('', 'Pod', pod({ spec: { containers: { name: 'c' } } })),
    'cannot restore slice from map',
  );
  assert.equal(
    findRestoreError('', 'Pod', pod({ metadata: { name: 'p', labels: null } })),
    undefined,
    'null is an unset map',
  );
  assert.equal(findRestoreError('', 'NoSuchKind', { spec: 'x' }), undefined);
});

test("goFormat prints decoded JSON like Go's %+v", () => {
  assert.equal(goFormat({ metadata: { labels: 'invalid' } }), 'map[metadata:map[labels:invalid]]');
  assert.equal(goFormat({ b: [1, 'x', true], a: null }), 'map[a:<nil> b:[1 x true]]');
});
