import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyMergePatch, applyStrategicMergePatch, patchSchemaFor, StrategicMergePatchError } from './index.js';

const podSchema = patchSchemaFor('v1', 'Pod');
const nodeSchema = patchSchemaFor('v1', 'Node');
const deploySchema = patchSchemaFor('apps/v1', 'Deployment');

function pod(spec: object, extra: object = {}): object {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec, ...extra };
}

test('cordon sets and uncordon (null) deletes spec.unschedulable', () => {
  const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, spec: { podCIDR: '10.0.0.0/24' } };
  const cordoned = applyStrategicMergePatch(node, { spec: { unschedulable: true } }, nodeSchema);
  assert.deepEqual(cordoned.spec, { podCIDR: '10.0.0.0/24', unschedulable: true });
  const uncordoned = applyStrategicMergePatch(cordoned, { spec: { unschedulable: null } }, nodeSchema);
  assert.deepEqual(uncordoned.spec, { podCIDR: '10.0.0.0/24' });
  assert.equal(node.spec.podCIDR, '10.0.0.0/24', 'input is not modified');
});

test('containers merge by name, keeping containers the patch does not mention', () => {
  const orig = pod({
    containers: [
      { name: 'a', image: 'a:1' },
      { name: 'b', image: 'b:1' },
    ],
  });
  const out = applyStrategicMergePatch(
    orig,
    {
      spec: {
        containers: [
          { name: 'b', image: 'b:2' },
          { name: 'c', image: 'c:1' },
        ],
      },
    },
    podSchema,
  );
  assert.deepEqual(out.spec, {
    containers: [
      { name: 'a', image: 'a:1' },
      { name: 'b', image: 'b:2' },
      { name: 'c', image: 'c:1' },
    ],
  });
});

test('new list elements are placed by upstream normalizeElementOrder', () => {
  const orig = pod({ containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] });
  const out = applyStrategicMergePatch(
    orig,
    { spec: { containers: [{ name: 'b', image: 'x' }, { name: 'd' }] } },
    podSchema,
  );
  assert.deepEqual(
    (out.spec as { containers: { name: string }[] }).containers.map((c) => c.name),
    ['a', 'b', 'd', 'c'],
  );
});

test('env merges by name and ports by containerPort', () => {
  const orig = pod({
    containers: [
      {
        name: 'a',
        env: [
          { name: 'X', value: '1' },
          { name: 'Y', value: '2' },
        ],
        ports: [{ containerPort: 80, name: 'http' }],
      },
    ],
  });
  const out = applyStrategicMergePatch(
    orig,
    {
      spec: {
        containers: [
          {
            name: 'a',
            env: [{ name: 'Y', value: '3' }],
            ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 443 }],
          },
        ],
      },
    },
    podSchema,
  );
  assert.deepEqual(out.spec, {
    containers: [
      {
        name: 'a',
        env: [
          { name: 'X', value: '1' },
          { name: 'Y', value: '3' },
        ],
        ports: [{ containerPort: 80, name: 'http', protocol: 'TCP' }, { containerPort: 443 }],
      },
    ],
  });
});

test('tolerations have no strategy and are replaced', () => {
  const orig = pod({
    tolerations: [
      { key: 'a', operator: 'Exists' },
      { key: 'b', operator: 'Exists' },
    ],
  });
  const out = applyStrategicMergePatch(orig, { spec: { tolerations: [{ key: 'c', operator: 'Exists' }] } }, podSchema);
  assert.deepEqual(out.spec, { tolerations: [{ key: 'c', operator: 'Exists' }] });
});

test('finalizers are a merged primitive list (union), and $deleteFromPrimitiveList removes', () => {
  const orig = pod({}, { metadata: { name: 'p', finalizers: ['a', 'b'] } });
  const added = applyStrategicMergePatch(orig, { metadata: { finalizers: ['b', 'c'] } }, podSchema);
  assert.deepEqual((added.metadata as { finalizers: string[] }).finalizers, ['a', 'b', 'c']);
  const removed = applyStrategicMergePatch(
    added,
    { metadata: { '$deleteFromPrimitiveList/finalizers': ['a', 'c'] } },
    podSchema,
  );
  assert.deepEqual((removed.metadata as { finalizers: string[] }).finalizers, ['b']);
});

test('status conditions merge by type', () => {
  const orig = pod(
    {},
    {
      status: {
        conditions: [
          { type: 'Ready', status: 'False' },
          { type: 'PodScheduled', status: 'True' },
        ],
      },
    },
  );
  const out = applyStrategicMergePatch(
    orig,
    { status: { conditions: [{ type: 'Ready', status: 'True' }] } },
    podSchema,
  );
  assert.deepEqual(out.status, {
    conditions: [
      { type: 'Ready', status: 'True' },
      { type: 'PodScheduled', status: 'True' },
    ],
  });
});

test('$patch: delete removes a container by merge key', () => {
  const orig = pod({ containers: [{ name: 'a' }, { name: 'b' }] });
  const out = applyStrategicMergePatch(orig, { spec: { containers: [{ name: 'a', $patch: 'delete' }] } }, podSchema);
  assert.deepEqual(out.spec, { containers: [{ name: 'b' }] });
});

test('$patch: replace on a list and on a map', () => {
  const orig = pod(
    { containers: [{ name: 'a' }, { name: 'b' }] },
    { metadata: { name: 'p', labels: { x: '1', y: '2' } } },
  );
  const out = applyStrategicMergePatch(
    orig,
    {
      metadata: { labels: { $patch: 'replace', z: '3' } },
      spec: { containers: [{ name: 'c' }, { $patch: 'replace' }] },
    },
    podSchema,
  );
  assert.deepEqual(out.spec, { containers: [{ name: 'c' }] });
  assert.deepEqual((out.metadata as { labels: object }).labels, { z: '3' });
});

test('$patch: delete on a map empties it; $patch: merge is the default', () => {
  const orig = pod({}, { metadata: { name: 'p', labels: { x: '1' }, annotations: { a: '1' } } });
  const out = applyStrategicMergePatch(
    orig,
    { metadata: { labels: { $patch: 'delete' }, annotations: { $patch: 'merge', b: '2' } } },
    podSchema,
  );
  assert.deepEqual(out.metadata, { name: 'p', labels: {}, annotations: { a: '1', b: '2' } });
});

test('$setElementOrder with deletions keeps server-only items where upstream puts them', () => {
  // Upstream's "add map and delete map from merging list" three-way case.
  const orig = pod({ containers: [{ name: '1' }, { name: '2', image: 'b' }, { name: '4', image: 'c' }] });
  const out = applyStrategicMergePatch(
    orig,
    {
      spec: {
        '$setElementOrder/containers': [{ name: '2' }, { name: '3' }],
        containers: [{ name: '3' }, { name: '1', $patch: 'delete' }],
      },
    },
    podSchema,
  );
  assert.deepEqual(out.spec, { containers: [{ name: '2', image: 'b' }, { name: '4', image: 'c' }, { name: '3' }] });
});

test('$setElementOrder orders the merged list as kubectl asks', () => {
  const orig = pod({ containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] });
  const out = applyStrategicMergePatch(
    orig,
    {
      spec: {
        '$setElementOrder/containers': [{ name: 'c' }, { name: 'b' }, { name: 'a' }],
        containers: [{ name: 'b', image: 'x' }],
      },
    },
    podSchema,
  );
  assert.deepEqual(out.spec, { containers: [{ name: 'c' }, { name: 'b', image: 'x' }, { name: 'a' }] });
});

test('$setElementOrder inconsistent with the patch list is rejected', () => {
  const orig = pod({ containers: [{ name: 'a' }, { name: 'b' }] });
  assert.throws(
    () =>
      applyStrategicMergePatch(
        orig,
        {
          spec: {
            '$setElementOrder/containers': [{ name: 'a' }, { name: 'b' }],
            containers: [{ name: 'b' }, { name: 'a' }],
          },
        },
        podSchema,
      ),
    StrategicMergePatchError,
  );
});

test('$retainKeys clears fields not listed (Deployment strategy Recreate)', () => {
  const orig = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd' },
    spec: { replicas: 1, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } },
  };
  const out = applyStrategicMergePatch(
    orig,
    { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
    deploySchema,
  );
  assert.deepEqual(out.spec, { replicas: 1, strategy: { type: 'Recreate' } });
  assert.throws(() =>
    applyStrategicMergePatch(orig, { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: {} } } }, deploySchema),
  );
});

test('Deployment pod template containers merge by name through the template', () => {
  const orig = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd' },
    spec: {
      template: {
        spec: {
          containers: [
            { name: 'a', image: 'a:1', env: [{ name: 'K', value: 'v' }] },
            { name: 'side', image: 's' },
          ],
        },
      },
    },
  };
  const out = applyStrategicMergePatch(
    orig,
    { spec: { template: { spec: { containers: [{ name: 'a', image: 'a:2' }] } } } },
    deploySchema,
  );
  assert.deepEqual(out.spec, {
    template: {
      spec: {
        containers: [
          { name: 'a', image: 'a:2', env: [{ name: 'K', value: 'v' }] },
          { name: 'side', image: 's' },
        ],
      },
    },
  });
});

test('new values drop nulls and nested directives; a new element precedes server-only ones (upstream order)', () => {
  const orig = pod({ containers: [{ name: 'a' }] });
  const out = applyStrategicMergePatch(
    orig,
    {
      metadata: { labels: { a: '1', b: null } },
      spec: { containers: [{ name: 'n', image: null, args: ['x'] }] },
    },
    podSchema,
  );
  assert.deepEqual((out.metadata as { labels: object }).labels, { a: '1' });
  // Upstream's mergeSortedSlice puts a patch item not in the live list before the remaining live items.
  assert.deepEqual(out.spec, { containers: [{ name: 'n', args: ['x'] }, { name: 'a' }] });
});

test('merge-keyed element without its key is rejected', () => {
  const orig = pod({ containers: [{ name: 'a' }] });
  assert.throws(
    () => applyStrategicMergePatch(orig, { spec: { containers: [{ image: 'x' }] } }, podSchema),
    /merge key: name/,
  );
});

test('kinds without metadata behave as JSON merge patch', () => {
  const cr = { apiVersion: 'x.io/v1', kind: 'Foo', spec: { list: [1, 2], m: { a: 1, b: 2 } } };
  const out = applyStrategicMergePatch(
    cr,
    { spec: { list: [3], m: { a: null, c: 3 } } },
    patchSchemaFor('x.io/v1', 'Foo'),
  );
  assert.deepEqual(out, { apiVersion: 'x.io/v1', kind: 'Foo', spec: { list: [3], m: { b: 2, c: 3 } } });
});

test('applyMergePatch follows RFC 7386', () => {
  assert.deepEqual(applyMergePatch({ a: 'b', c: { d: 'e', f: 'g' } }, { a: 'z', c: { f: null } }), {
    a: 'z',
    c: { d: 'e' },
  });
  assert.deepEqual(applyMergePatch({ a: [{ b: 'c' }] }, { a: [1] }), { a: [1] });
  assert.deepEqual(applyMergePatch({ a: 'foo' }, 'bar'), 'bar');
  assert.deepEqual(applyMergePatch({ e: null }, { a: 1 }), { e: null, a: 1 });
});
