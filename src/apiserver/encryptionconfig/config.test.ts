import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RESOURCES, type EncryptionConfiguration } from '../../api/index.js';
import { encryptionSetup, parseEncryptionConfiguration } from './config.js';

const K32 = Buffer.alloc(32, 3).toString('base64');
const HEAD = { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'EncryptionConfiguration' };

function setup(resources: EncryptionConfiguration['resources']) {
  return encryptionSetup({ ...HEAD, resources }, RESOURCES);
}

test('secrets map to their storage prefix; the first provider encrypts with its prefix', () => {
  const s = setup([{ resources: ['secrets'], providers: [{ secretbox: { keys: [{ name: 'a', secret: K32 }] } }] }]);
  assert.deepEqual(
    s.routes.map((r) => r.prefix),
    ['/registry/secrets/'],
  );
  const out = s.routes[0]!.transformers.toStorage(Buffer.from('{}'), '/registry/secrets/ns/x');
  assert.equal(out.subarray(0, 23).toString(), 'k8s:enc:secretbox:v1:a:');
  assert.deepEqual(s.warnings, []);
});

test('wildcards name groups; the first entry naming a resource wins; identity alone needs no transformer', () => {
  const s = setup([
    { resources: ['configmaps'], providers: [{ identity: {} }] },
    { resources: ['*.apps', '*.'], providers: [{ aesgcm: { keys: [{ name: 'g', secret: K32 }] } }] },
  ]);
  const prefixes = s.routes.map((r) => r.prefix);
  assert.ok(prefixes.includes('/registry/deployments/'));
  assert.ok(prefixes.includes('/registry/secrets/'));
  assert.ok(prefixes.includes('/registry/pods/'));
  assert.ok(!prefixes.includes('/registry/configmaps/'));
  assert.ok(!prefixes.includes('/registry/leases/'));
  assert.equal(new Set(prefixes).size, prefixes.length);
  assert.equal(setup([{ resources: ['*.*'], providers: [{ identity: {} }] }]).routes.length, 0);
});

test('aescbc is accepted with a warning; unknown resources warn', () => {
  const s = setup([
    { resources: ['secrets', 'widgets.example.com'], providers: [{ aescbc: { keys: [{ name: 'c', secret: K32 }] } }] },
  ]);
  assert.equal(s.routes.length, 1);
  assert.ok(s.warnings.some((w) => /aescbc is not recommended/.test(w)));
  assert.ok(s.warnings.some((w) => /"widgets.example.com" is not served/.test(w)));
});

test('invalid configs are refused with upstream-shaped messages', () => {
  const bad =
    (providers: unknown, resources: unknown = ['secrets']) =>
    () =>
      parseEncryptionConfiguration(JSON.stringify({ ...HEAD, resources: [{ resources, providers }] }), 'f');
  assert.throws(bad([]), /resources\[0\]\.providers: Required value/);
  assert.throws(bad([{ identity: {} }], []), /resources\[0\]\.resources: Required value/);
  assert.throws(bad([{ identity: {} }], ['Secrets']), /must be lowercase/);
  assert.throws(
    bad([{ identity: {}, aesgcm: { keys: [{ name: 'a', secret: K32 }] } }]),
    /more than one provider specified in a single element/,
  );
  assert.throws(bad([{ kms: { name: 'x' } }]), /kms: Forbidden/);
  assert.throws(bad([{ aesgcm: { keys: [] } }]), /aesgcm\.keys: Required value/);
  assert.throws(bad([{ secretbox: { keys: [{ name: 'a', secret: 'c2hvcnQ=' }] } }]), /got 5, expected 32/);
  assert.throws(bad([{ secretbox: { keys: [{ name: 'a', secret: '!!!' }] } }]), /must be base64 encoded/);
  assert.throws(
    bad([
      {
        aesgcm: {
          keys: [
            { name: 'a', secret: K32 },
            { name: 'a', secret: K32 },
          ],
        },
      },
    ]),
    /keys\[1\]\.name: Duplicate value/,
  );
  assert.throws(
    () => parseEncryptionConfiguration('kind: Other\nresources: []\n', 'f'),
    /expected apiserver.config.k8s.io\/v1/,
  );
});
