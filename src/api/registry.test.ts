import assert from 'node:assert/strict';
import { test } from 'node:test';
import { customResourceInfo } from './apiextensions/index.js';
import { aggregatedDiscovery, apiGroupList, apiResourceList, apiVersions } from './discovery.js';
import {
  lookupResource,
  resolveResourceName,
  resourceForKind,
  RESOURCES,
  storageKey,
  storageListPrefix,
} from './registry.js';

test('every resource is reachable by group/version/plural and by apiVersion+kind', () => {
  assert.equal(RESOURCES.length, 37);
  for (const r of RESOURCES) {
    assert.equal(lookupResource(r.group, r.version, r.resource), r);
    assert.equal(resourceForKind(r.group ? `${r.group}/${r.version}` : r.version, r.kind), r);
    assert.equal(r.storagePrefix, `/registry/${r.resource}/`);
  }
  const deploy = resourceForKind('apps/v1', 'Deployment');
  assert.deepEqual(deploy?.shortNames, ['deploy']);
  assert.deepEqual(
    deploy?.subresources.map((s) => `${s.name}:${s.group}/${s.version}/${s.kind}`),
    ['status:apps/v1/Deployment', 'scale:autoscaling/v1/Scale'],
  );
  assert.equal(resolveResourceName('po')?.kind, 'Pod');
  assert.equal(resolveResourceName('pdb')?.group, 'policy');
  assert.equal(resolveResourceName('leases.coordination.k8s.io')?.kind, 'Lease');
  assert.equal(resolveResourceName('pg')?.kind, 'PodGroup');
});

test('storage keys follow upstream layout', () => {
  const pods = lookupResource('', 'v1', 'pods')!;
  const nodes = lookupResource('', 'v1', 'nodes')!;
  assert.equal(storageKey(pods, 'default', 'p'), '/registry/pods/default/p');
  assert.equal(storageKey(nodes, undefined, 'n'), '/registry/nodes/n');
  assert.equal(storageListPrefix(pods, 'default'), '/registry/pods/default/');
  assert.equal(storageListPrefix(pods), '/registry/pods/');
});

test('legacy discovery documents', () => {
  assert.deepEqual(apiVersions('10.0.0.1:6443').versions, ['v1']);
  const groups = (apiGroupList().groups as { name: string }[]).map((g) => g.name);
  assert.deepEqual(groups, [
    'coordination.k8s.io',
    'discovery.k8s.io',
    'apps',
    'batch',
    'autoscaling',
    'networking.k8s.io',
    'scheduling.k8s.io',
    'rbac.authorization.k8s.io',
    'certificates.k8s.io',
    'policy',
    'flowcontrol.apiserver.k8s.io',
    'apiextensions.k8s.io',
    'scheduling.x-k8s.io',
    'storage.k8s.io',
    'authentication.k8s.io',
    'authorization.k8s.io',
  ]);
  const reviews = (
    apiResourceList('authorization.k8s.io', 'v1')!.resources as { name: string; verbs: string[]; namespaced: boolean }[]
  ).map((r) => `${r.name}:${r.verbs.join(',')}:${r.namespaced}`);
  assert.deepEqual(reviews, [
    'localsubjectaccessreviews:create:true',
    'selfsubjectaccessreviews:create:false',
    'selfsubjectrulesreviews:create:false',
    'subjectaccessreviews:create:false',
  ]);
  assert.equal(lookupResource('authorization.k8s.io', 'v1', 'subjectaccessreviews'), undefined, 'never stored');
  const core = apiResourceList('', 'v1')!;
  const rs = core.resources as Record<string, unknown>[];
  assert.deepEqual(
    rs.find((r) => r.name === 'pods'),
    {
      name: 'pods',
      singularName: 'pod',
      namespaced: true,
      kind: 'Pod',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['po'],
      categories: ['all'],
    },
  );
  assert.deepEqual(
    rs.find((r) => r.name === 'pods/eviction'),
    {
      name: 'pods/eviction',
      singularName: '',
      namespaced: true,
      group: 'policy',
      version: 'v1',
      kind: 'Eviction',
      verbs: ['create'],
    },
  );
  assert.equal(apiResourceList('nope', 'v1'), undefined);
});

test('aggregated discovery splits /api and /apis and lists subresources', () => {
  const api = aggregatedDiscovery(true);
  assert.equal(api.kind, 'APIGroupDiscoveryList');
  const items = api.items as {
    metadata: Record<string, unknown>;
    versions: { version: string; resources: Record<string, unknown>[] }[];
  }[];
  assert.equal(items.length, 1);
  assert.deepEqual(items[0].metadata, {});
  const pods = items[0].versions[0].resources.find((r) => r.resource === 'pods')!;
  assert.equal(pods.scope, 'Namespaced');
  assert.deepEqual(
    (pods.subresources as { subresource: string }[]).map((s) => s.subresource),
    ['status', 'binding', 'eviction', 'log', 'exec', 'attach', 'portforward', 'resize'],
  );
  const apis = aggregatedDiscovery(false).items as { metadata: { name: string } }[];
  assert.ok(apis.some((g) => g.metadata.name === 'apps'));
  assert.ok(!apis.some((g) => g.metadata.name === ''));
});

test('custom resources join discovery after the built-in ones, only where they are given', () => {
  const crd = {
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced' as const,
      names: { plural: 'widgets', kind: 'Widget', shortNames: ['wd'] },
      versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} } }],
    },
  };
  const info = customResourceInfo(crd, crd.spec.versions[0]!);
  assert.equal(info.storagePrefix, '/registry/example.com/widgets/');
  const groups = (apiGroupList([info]).groups as { name: string }[]).map((g) => g.name);
  assert.equal(groups.at(-1), 'example.com');
  assert.equal(
    (apiGroupList().groups as { name: string }[]).some((g) => g.name === 'example.com'),
    false,
  );
  const list = apiResourceList('example.com', 'v1', [info])!;
  assert.deepEqual(
    (list.resources as { name: string }[]).map((r) => r.name),
    ['widgets', 'widgets/status'],
  );
  const agg = aggregatedDiscovery(false, [info]) as { items: { metadata: { name: string } }[] };
  assert.equal(agg.items.at(-1)!.metadata.name, 'example.com');
});
