import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aesCBCTransformer, aesGCMTransformer } from './aes.js';
import { secretboxTransformer } from './secretbox.js';
import { identityTransformer, type ValueTransformer } from './transformer.js';

const plain = Buffer.from('{"kind":"Secret","data":{"k":"dg=="}}');

const cases: [string, ValueTransformer][] = [
  ['aesgcm-128', aesGCMTransformer(Buffer.alloc(16, 7))],
  ['aesgcm-256', aesGCMTransformer(Buffer.alloc(32, 7))],
  ['aescbc-256', aesCBCTransformer(Buffer.alloc(32, 7))],
  ['secretbox', secretboxTransformer(Buffer.alloc(32, 7))],
];

for (const [name, t] of cases) {
  test(`${name}: round-trips, uses a fresh nonce per write, and rejects tampered data`, () => {
    const a = t.toStorage(plain, '/registry/secrets/ns/a');
    const b = t.toStorage(plain, '/registry/secrets/ns/a');
    assert.ok(!a.equals(b));
    assert.ok(!a.includes(plain));
    assert.deepEqual(t.fromStorage(a, '/registry/secrets/ns/a'), plain);
    if (name.startsWith('aescbc')) return; // CBC has no authentication, which is why upstream discourages it
    const bad = Buffer.from(a);
    bad[bad.length - 1]! ^= 1;
    assert.throws(() => t.fromStorage(bad, '/registry/secrets/ns/a'));
  });
}

test('key sizes are checked as upstream: AES 16/24/32 bytes, secretbox 32', () => {
  assert.throws(() => aesGCMTransformer(Buffer.alloc(8)), /got 8, expected one of \[16 24 32\]/);
  assert.throws(() => secretboxTransformer(Buffer.alloc(16)), /got 16, expected 32/);
});

test('identity passes values through and refuses encrypted ones', () => {
  assert.equal(identityTransformer.fromStorage(plain, 'k'), plain);
  assert.throws(
    () => identityTransformer.fromStorage(Buffer.from('k8s:enc:aesgcm:v1:k:xxx'), 'k'),
    /identity transformer tried to read encrypted data/,
  );
});
