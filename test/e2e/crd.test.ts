/**
 * CustomResourceDefinitions end to end, with the real kubectl and client-node
 * against a `kscale server` process: establishing a CRD, the custom resource
 * in discovery, OpenAPI (explain), Tables and field selectors; custom objects
 * validated (every cause in one 422), pruned, defaulted, checked by CEL rules,
 * patched (strategic merge is 415), applied with list-map keys, scaled and
 * watched; bad CRDs refused; deleting a CRD deletes its objects.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CustomObjectsApi, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { kubectlPath, startServer, type TestServer } from './harness.js';
import { Kubectl, manifest, row, until } from './fixtures/kubectl/cli.js';
import { fileURLToPath } from 'node:url';

const WIDGETS = fileURLToPath(new URL('../../../test/e2e/fixtures/crd/widgets.yaml', import.meta.url));

const widget = (name: string, spec: Record<string, unknown>, namespace = 'default'): string =>
  manifest({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace }, spec });

function crd(name: string, spec: Record<string, unknown>): string {
  return manifest({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec,
  });
}

/** One served storage version v1 with this schema. */
const v1 = (openAPIV3Schema: Record<string, unknown>): unknown[] => [
  { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema } },
];

const OBJECT_SCHEMA = {
  type: 'object',
  properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
};

describe('CustomResourceDefinitions with kubectl and client-node', () => {
  let server: TestServer;
  let k: Kubectl;

  before(async () => {
    server = await startServer();
    k = new Kubectl(kubectlPath(), server.kubeconfig);
    assert.match(
      await k.ok(['apply', '-f', WIDGETS]),
      /customresourcedefinition.apiextensions.k8s.io\/widgets.example.com created/,
    );
    await k.ok(['wait', '--for', 'condition=Established', 'crd/widgets.example.com', '--timeout=15s']);
  });

  after(async () => {
    await k?.close();
    await server?.stop();
  });

  test('kubectl get crd lists it, with NamesAccepted and Established true and the stored version', async () => {
    const table = await k.ok(['get', 'crd']);
    assert.match(table, /^NAME\s+CREATED AT\s*$/m);
    assert.match(table, /^widgets\.example\.com\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\s*$/m);
    const c = await k.getJSON(['crd', 'widgets.example.com']);
    const cond = Object.fromEntries(
      (c.status.conditions as { type: string; status: string }[]).map((x) => [x.type, x.status]),
    );
    assert.deepEqual(cond, { NamesAccepted: 'True', Established: 'True' });
    assert.deepEqual(c.status.storedVersions, ['v1']);
    assert.equal(c.status.acceptedNames.listKind, 'WidgetList');
    assert.deepEqual(c.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
  });

  test('the custom resource is in discovery: api-resources, short name, category all', async () => {
    assert.match(
      await k.ok(['api-resources', '--api-group=example.com']),
      /^widgets\s+wd\s+example\.com\/v1\s+true\s+Widget/m,
    );
    await k.ok(['create', '-f', '-'], { input: widget('disco', { color: 'green' }) });
    assert.match(await k.ok(['get', 'wd']), /^disco\s+green\s+1\s*$/m);
    assert.match(await k.ok(['get', 'all']), /widget\.example\.com\/disco/);
  });

  test('create, get and explain a custom object; defaults applied; printer columns in the Table', async () => {
    await k.ok(['create', '-f', '-'], { input: widget('w1', { color: 'red', replicas: 2, size: '50%' }) });
    const w = await k.getJSON(['widget', 'w1']);
    assert.equal(w.apiVersion, 'example.com/v1');
    assert.equal(w.spec.maxReplicas, 10, 'the schema default is applied');
    assert.equal(w.metadata.generation, 1);
    const r = row(await k.ok(['get', 'widgets']), 'w1');
    assert.deepEqual([r.COLOR, r.REPLICAS], ['red', '2']);
    const explain = await k.ok(['explain', 'widgets.spec']);
    assert.match(explain, /KIND:\s+Widget/);
    assert.match(explain, /The widget's desired state\./);
    assert.match(explain, /color\s+<string> -required-/);
  });

  test('kubectl explain follows a changed CRD schema', async () => {
    assert.match(await k.ok(['explain', 'widgets.spec']), /The widget's desired state\./);
    await k.ok([
      'patch',
      'crd',
      'widgets.example.com',
      '--type=json',
      '-p',
      '[{"op":"replace","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/description","value":"What the widget should be."}]',
    ]);
    await until('explain shows the new description', async () =>
      /What the widget should be\./.test((await k.run(['explain', 'widgets.spec'])).stdout),
    );
  });

  test('a custom object violating its schema is a 422 listing every failing field', async () => {
    const bad = widget('bad', {
      color: 'purple',
      replicas: -1,
      name: 'ABC',
      email: 'nope',
      size: 1.5,
      tags: [{ value: 'v' }],
    });
    const err = await k.fails(['create', '-f', '-'], { input: bad });
    assert.match(err, /The Widget "bad" is invalid:/);
    for (const cause of [
      'spec.color: Unsupported value: "purple": supported values: "red", "green", "blue"',
      'spec.email: Invalid value: "nope": spec.email in body must be of type email: "nope"',
      'spec.name: Invalid value: "ABC": spec.name in body should match \'^[a-z]+$\'',
      'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
      'spec.size: Invalid value: "number": spec.size in body must be of type integer,string: "number"',
      'spec.tags[0].key: Required value',
    ])
      assert.ok(err.includes(cause), `missing cause ${cause} in:\n${err}`);
    assert.match(await k.fails(['create', '-f', '-'], { input: widget('nocolor', {}) }), /spec\.color: Required value/);
  });

  test('unknown fields: pruned with a warning under Warn, refused under Strict', async () => {
    const body = widget('pruned', { color: 'red', bogus: 1, extra: { kept: true } });
    const strict = await k.fails(['create', '-f', '-'], { input: body });
    assert.match(strict, /strict decoding error: unknown field "spec.bogus"/);
    const warn = await k.run(['create', '--validate=warn', '-f', '-'], { input: body });
    assert.equal(warn.code, 0, warn.stderr);
    assert.match(warn.stderr, /unknown field "spec.bogus"/);
    const w = await k.getJSON(['widget', 'pruned']);
    assert.equal(w.spec.bogus, undefined);
    assert.deepEqual(w.spec.extra, { kept: true }, 'x-kubernetes-preserve-unknown-fields keeps its subtree');
  });

  test('x-kubernetes-validations: a failing CEL rule is a 422 with its message', async () => {
    await k.ok(['create', '-f', '-'], { input: widget('cel', { color: 'red', replicas: 3 }) });
    const err = await k.fails(['patch', 'widget', 'cel', '--type=merge', '-p', '{"spec":{"replicas":11}}']);
    assert.match(
      err,
      /The Widget "cel" is invalid: spec: Invalid value: "object": replicas must not exceed maxReplicas/,
    );
  });

  test('patches: merge and JSON patch work, strategic merge is 415 as upstream', async () => {
    await k.ok(['create', '-f', '-'], { input: widget('p1', { color: 'red' }) });
    await k.ok(['patch', 'widget', 'p1', '--type=merge', '-p', '{"spec":{"color":"blue"}}']);
    await k.ok(['patch', 'widget', 'p1', '--type=json', '-p', '[{"op":"replace","path":"/spec/replicas","value":4}]']);
    const w = await k.getJSON(['widget', 'p1']);
    assert.deepEqual([w.spec.color, w.spec.replicas, w.metadata.generation], ['blue', 4, 3]);
    const err = await k.fails(['patch', 'widget', 'p1', '--type=strategic', '-p', '{"spec":{"color":"green"}}']);
    assert.match(err, /application\/strategic-merge-patch\+json is not supported|UnsupportedMediaType|415/);
  });

  test('server-side apply merges an x-kubernetes-list-type=map list by its keys across managers', async () => {
    const applyAs = (manager: string, tags: unknown[]): Promise<string> =>
      k.ok(['apply', '--server-side', `--field-manager=${manager}`, '-f', '-'], {
        input: widget('ssa', { color: 'red', tags }),
      });
    await applyAs('one', [{ key: 'a', value: '1' }]);
    await applyAs('two', [{ key: 'b', value: '2' }]);
    const w = await k.getJSON(['widget', 'ssa']);
    assert.deepEqual(
      (w.spec.tags as { key: string }[]).map((t) => t.key).sort(),
      ['a', 'b'],
      'each manager owns its own list item',
    );
  });

  test('kubectl scale writes specReplicasPath; /scale reports status replicas and the selector', async () => {
    await k.ok(['create', '-f', '-'], { input: widget('sc', { color: 'red', replicas: 1 }) });
    assert.match(await k.ok(['scale', 'widget', 'sc', '--replicas=5']), /widget.example.com\/sc scaled/);
    assert.equal((await k.getJSON(['widget', 'sc'])).spec.replicas, 5);
    await k.ok([
      'patch',
      'widget',
      'sc',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"replicas":3,"selector":"app=sc"}}',
    ]);
    const scale = JSON.parse(
      await k.ok(['get', '--raw', '/apis/example.com/v1/namespaces/default/widgets/sc/scale']),
    ) as { spec: { replicas: number }; status: { replicas: number; selector: string } };
    assert.deepEqual(scale.spec, { replicas: 5 });
    assert.deepEqual(scale.status, { replicas: 3, selector: 'app=sc' });
    // A main-resource write keeps the status (the status subresource owns it).
    await k.ok(['patch', 'widget', 'sc', '--type=merge', '-p', '{"status":{"replicas":99}}']);
    assert.equal((await k.getJSON(['widget', 'sc'])).status.replicas, 3);
  });

  test('selectableFields work in field selectors', async () => {
    await k.ok(['create', '-f', '-'], { input: widget('blue1', { color: 'blue' }) });
    const names = (await k.ok(['get', 'widgets', '--field-selector', 'spec.color=blue', '-o', 'name'])).trim();
    assert.ok(names.split('\n').every((n) => n !== 'widget.example.com/w1'));
    assert.match(names, /widget.example.com\/blue1/);
    assert.match(
      await k.fails(['get', 'widgets', '--field-selector', 'spec.size=1']),
      /field label not supported: spec.size/,
    );
  });

  test('a watch sees custom objects added', async () => {
    const w = k.start(['get', 'widgets', '--watch', '--output-watch-events']);
    await k.ok(['create', '-f', '-'], { input: widget('watched', { color: 'green' }) });
    await w.waitForOutput(/ADDED\s+watched/);
    await w.kill();
  });

  test('bad CRDs are 422: a wrong name, a non-structural schema, a webhook conversion, an unsupported CEL function', async () => {
    const spec = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'gadgets', kind: 'Gadget' },
      versions: v1(OBJECT_SCHEMA),
      ...over,
    });
    const name = await k.fails(['create', '-f', '-'], { input: crd('gadget.example.com', spec()) });
    assert.match(
      name,
      /The CustomResourceDefinition "gadget.example.com" is invalid: metadata.name: Invalid value: "gadget.example.com": must be spec.names.plural\+"\."\+spec.group/,
    );
    const nonStructural = spec({
      versions: v1({ type: 'object', properties: { spec: { properties: { a: { type: 'string' } } } } }),
    });
    assert.match(
      await k.fails(['create', '-f', '-'], { input: crd('gadgets.example.com', nonStructural) }),
      /spec.versions\[0\].schema.openAPIV3Schema.properties\[spec\].type: Required value: must not be empty for specified object fields/,
    );
    assert.match(
      await k.fails(['create', '-f', '-'], { input: crd('gadgets.example.com', spec({ versionz: [] })) }),
      /strict decoding error: unknown field "spec.versionz"/,
    );
    const webhook = spec({ conversion: { strategy: 'Webhook' } });
    assert.match(
      await k.fails(['create', '-f', '-'], { input: crd('gadgets.example.com', webhook) }),
      /spec.conversion.strategy: Invalid value: "Webhook": conversion webhooks are not supported/,
    );
    const cel = spec({
      versions: v1({
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            properties: { q: { type: 'string' } },
            'x-kubernetes-validations': [{ rule: 'isQuantity(self.q)' }],
          },
        },
      }),
    });
    assert.match(
      await k.fails(['create', '-f', '-'], { input: crd('gadgets.example.com', cel) }),
      /x-kubernetes-validations\[0\]\.rule: Invalid value: .*undeclared reference to 'isQuantity'/,
    );
    assert.match(await k.fails(['get', 'crd', 'gadgets.example.com']), /NotFound/);
  });

  test('a CRD whose kind clashes with an accepted one is not established (NamesAccepted False)', async () => {
    await k.ok(['create', '-f', '-'], {
      input: crd('doodads.example.com', {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'doodads', kind: 'Widget', singular: 'doodad' },
        versions: v1(OBJECT_SCHEMA),
      }),
    });
    await until('NamesAccepted=False', async () => {
      const c = await k.getJSON(['crd', 'doodads.example.com']);
      const na = (c.status?.conditions ?? []).find((x: { type: string }) => x.type === 'NamesAccepted');
      return na?.status === 'False' && na.reason === 'KindConflict';
    });
    const c = await k.getJSON(['crd', 'doodads.example.com']);
    assert.equal(c.status.conditions.find((x: { type: string }) => x.type === 'Established').status, 'False');
    assert.match(await k.fails(['get', 'doodads.example.com']), /the server doesn't have a resource type "doodads"/);
  });

  test('cluster-scoped custom resources', async () => {
    await k.ok(['create', '-f', '-'], {
      input: crd('planets.space.example.org', {
        group: 'space.example.org',
        scope: 'Cluster',
        names: { plural: 'planets', kind: 'Planet' },
        versions: v1(OBJECT_SCHEMA),
      }),
    });
    await k.ok(['wait', '--for', 'condition=Established', 'crd/planets.space.example.org', '--timeout=15s']);
    await k.ok(['create', '-f', '-'], {
      input: manifest({
        apiVersion: 'space.example.org/v1',
        kind: 'Planet',
        metadata: { name: 'mars' },
        spec: { moons: 2 },
      }),
    });
    const p = await k.getJSON(['planet', 'mars']);
    assert.equal(p.metadata.namespace, undefined);
    assert.equal(p.spec.moons, 2);
    assert.match(await k.ok(['get', 'planets']), /^mars\s/m);
  });

  test('deleting a namespace deletes the custom objects in it', async () => {
    await k.ok(['create', 'namespace', 'crd-gone']);
    await k.ok(['create', '-f', '-'], { input: widget('inside', { color: 'red' }, 'crd-gone') });
    await k.ok(['delete', 'namespace', 'crd-gone', '--timeout=30s']);
    await k.ok(['create', 'namespace', 'crd-gone']);
    assert.equal((await k.getJSON(['widgets', '-n', 'crd-gone'])).items.length, 0);
  });

  test('two served versions with conversion None: one stored object, apiVersion rewritten per version', async () => {
    await k.ok(['create', '-f', '-'], {
      input: crd('sprockets.example.com', {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'sprockets', kind: 'Sprocket' },
        versions: [
          { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: OBJECT_SCHEMA } },
          ...v1(OBJECT_SCHEMA),
        ],
      }),
    });
    await k.ok(['wait', '--for', 'condition=Established', 'crd/sprockets.example.com', '--timeout=15s']);
    const raw = (v: string, suffix = ''): Promise<string> =>
      k.ok(['get', '--raw', `/apis/example.com/${v}/namespaces/default/sprockets${suffix}`]);
    await until('v1beta1 served', async () => (await k.run(['get', '--raw', '/apis/example.com/v1beta1'])).code === 0);
    await k.ok(['create', '-f', '-'], {
      input: manifest({
        apiVersion: 'example.com/v1beta1',
        kind: 'Sprocket',
        metadata: { name: 's1' },
        spec: { a: 1 },
      }),
    });
    const viaV1 = JSON.parse(await raw('v1', '/s1')) as { apiVersion: string; spec: unknown };
    const viaBeta = JSON.parse(await raw('v1beta1', '/s1')) as { apiVersion: string; spec: unknown };
    assert.equal(viaV1.apiVersion, 'example.com/v1');
    assert.equal(viaBeta.apiVersion, 'example.com/v1beta1');
    assert.deepEqual(viaV1.spec, viaBeta.spec);
    const list = JSON.parse(await raw('v1beta1')) as { items: { apiVersion: string }[] };
    assert.deepEqual(
      list.items.map((i) => i.apiVersion),
      ['example.com/v1beta1'],
    );
    await k.ok(['patch', 'sprockets.v1beta1.example.com', 's1', '--type=merge', '-p', '{"spec":{"a":2}}']);
    assert.deepEqual((JSON.parse(await raw('v1', '/s1')) as { spec: unknown }).spec, { a: 2 });
    const c = await k.getJSON(['crd', 'sprockets.example.com']);
    assert.deepEqual(c.status.storedVersions, ['v1']);
  });

  test('a CRD being deleted is Terminating: its objects with finalizers hold it, and creates are refused', async () => {
    await k.ok(['create', '-f', '-'], {
      input: crd('gizmos.example.com', {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'gizmos', kind: 'Gizmo' },
        versions: v1(OBJECT_SCHEMA),
      }),
    });
    await k.ok(['wait', '--for', 'condition=Established', 'crd/gizmos.example.com', '--timeout=15s']);
    const gizmo = (name: string, finalizers: string[] = []): string =>
      manifest({ apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name, finalizers }, spec: {} });
    await until('gizmos served', async () => (await k.run(['get', 'gizmos'])).code === 0);
    await k.ok(['create', '-f', '-'], { input: gizmo('held', ['example.com/hold']) });
    await k.ok(['create', '-f', '-'], { input: gizmo('free') });
    await k.ok(['delete', 'crd', 'gizmos.example.com', '--wait=false']);
    await until('Terminating', async () => {
      const c = await k.getJSON(['crd', 'gizmos.example.com']);
      return (c.status.conditions ?? []).some(
        (x: { type: string; status: string }) => x.type === 'Terminating' && x.status === 'True',
      );
    });
    await until('the free gizmo deleted', async () => (await k.run(['get', 'gizmo', 'free'])).code !== 0);
    assert.match(
      await k.fails(['create', '-f', '-'], { input: gizmo('late') }),
      /create not allowed while custom resource definition is terminating/,
    );
    assert.ok((await k.getJSON(['crd', 'gizmos.example.com'])).metadata.deletionTimestamp);
    await k.ok(['patch', 'gizmo', 'held', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    await until('the CRD gone', async () => (await k.run(['get', 'crd', 'gizmos.example.com'])).code !== 0, 20_000);
  });

  test('client-node CustomObjectsApi: create, get, list, merge patch, delete', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    const api = kc.makeApiClient(CustomObjectsApi);
    const base = { group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets' };
    const created = (await api.createNamespacedCustomObject({
      ...base,
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'cn' }, spec: { color: 'green' } },
    })) as { metadata: { uid: string } };
    assert.ok(created.metadata.uid);
    const got = (await api.getNamespacedCustomObject({ ...base, name: 'cn' })) as { spec: { replicas: number } };
    assert.equal(got.spec.replicas, 1);
    const list = (await api.listNamespacedCustomObject(base)) as {
      kind: string;
      items: { metadata: { name: string } }[];
    };
    assert.equal(list.kind, 'WidgetList');
    assert.ok(list.items.some((i) => i.metadata.name === 'cn'));
    const patched = (await api.patchNamespacedCustomObject(
      { ...base, name: 'cn', body: { spec: { color: 'blue' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as { spec: { color: string } };
    assert.equal(patched.spec.color, 'blue');
    await api.deleteNamespacedCustomObject({ ...base, name: 'cn' });
    await assert.rejects(
      api.getNamespacedCustomObject({ ...base, name: 'cn' }),
      (e: { code?: number }) => e.code === 404,
    );
  });

  test('deleting the CRD deletes its objects; the resource is gone from discovery', async () => {
    await k.ok(['create', 'namespace', 'crd-other']);
    await k.ok(['create', '-f', '-'], { input: widget('elsewhere', { color: 'red' }, 'crd-other') });
    assert.ok((await k.getJSON(['widgets', '-A'])).items.length >= 2);
    await k.ok(['delete', 'crd', 'widgets.example.com', '--timeout=30s']);
    assert.match(await k.fails(['get', 'crd', 'widgets.example.com']), /NotFound/);
    // kubectl's discovery cache may still name the resource: then the list itself is the 404.
    assert.match(
      await k.fails(['get', 'widgets', '-A']),
      /the server doesn't have a resource type "widgets"|Unable to list "example.com\/v1, Resource=widgets": the server could not find the requested resource/,
    );
    // Re-created, the CRD serves an empty collection: the old objects went with it.
    await k.ok(['apply', '-f', WIDGETS]);
    await k.ok(['wait', '--for', 'condition=Established', 'crd/widgets.example.com', '--timeout=15s']);
    await until('widgets served again', async () => (await k.run(['get', 'widgets', '-A'])).code === 0);
    assert.equal((await k.getJSON(['widgets', '-A'])).items.length, 0);
  });
});

describe('custom resources after a server restart', () => {
  test('established CRDs are served again from storage at start-up, with their objects', async () => {
    const first = await startServer();
    let second: TestServer | undefined;
    const k1 = new Kubectl(kubectlPath(), first.kubeconfig);
    try {
      await k1.ok(['apply', '-f', WIDGETS]);
      await k1.ok(['wait', '--for', 'condition=Established', 'crd/widgets.example.com', '--timeout=15s']);
      await until('widgets served', async () => (await k1.run(['get', 'widgets'])).code === 0);
      await k1.ok(['create', '-f', '-'], { input: widget('kept', { color: 'blue' }) });
      const exited = new Promise((r) => first.process.once('exit', r));
      first.process.kill('SIGTERM');
      await exited;
      second = await startServer([], first.dir);
      const k2 = new Kubectl(kubectlPath(), second.kubeconfig);
      try {
        assert.equal((await k2.getJSON(['widget', 'kept'])).spec.color, 'blue');
        assert.match(
          await k2.fails(['create', '-f', '-'], { input: widget('bad', { color: 'pink' }) }),
          /Unsupported value: "pink"/,
        );
      } finally {
        await k2.close();
      }
    } finally {
      await k1.close();
      await (second ?? first).stop();
    }
  });
});
