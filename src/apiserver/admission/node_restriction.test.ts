import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { RESOURCES } from '../../api/index.js';
import { FakeClock } from '../../clock/index.js';
import { openSqliteStorage } from '../../storage/sqlite/index.js';
import { IPAllocator, PortAllocator } from '../registry/ipallocator.js';
import { definitionFor } from '../registry/index.js';
import { GenericStore } from '../registry/store.js';
import type { Obj } from '../object.js';
import type { Attributes } from './chain.js';
import { nodeRestriction } from './node_restriction.js';

const N1 = { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };

const pod = (name: string, nodeName: string): Obj => ({
  metadata: { name, namespace: 'ns' },
  spec: { nodeName, containers: [{ name: 'c', image: 'i' }] },
});
const node = (over: Obj = {}): Obj => ({
  metadata: { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1' }, ...over.metadata },
  spec: { taints: [{ key: 'k', effect: 'NoSchedule' }], ...over.spec },
});
const lease = (name: string): Obj => ({ metadata: { name, namespace: 'kube-node-lease' } });
const mirror = (over: Obj = {}, nodeUID = 'node-uid'): Obj => ({
  metadata: {
    name: 'static',
    namespace: 'ns',
    annotations: { 'kubernetes.io/config.mirror': 'hash' },
    ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: nodeUID, controller: true }],
  },
  spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }], ...over },
});
const token = (ref: Obj | undefined): Obj => ({ spec: { audiences: ['a'], boundObjectRef: ref } });

test('NodeRestriction: a node writes only its own Node, Lease, mirror pods and pods, with upstream texts', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-noderestriction-'));
  const storage = await openSqliteStorage({ dataDir: dir, clock: new FakeClock() });
  const cfg = {
    eventTTLSeconds: 3600,
    serviceIPs: new IPAllocator('10.96.0.0/24'),
    nodePorts: new PortAllocator('30000-30010'),
  };
  const stores = new Map<string, GenericStore>();
  const store = (resource: string): GenericStore => {
    let s = stores.get(resource);
    if (s === undefined) {
      const info = RESOURCES.find((r) => r.resource === resource)!;
      stores.set(resource, (s = new GenericStore(info, definitionFor(info).strategy(info, cfg), { storage })));
    }
    return s;
  };
  try {
    const now = Date.UTC(2026, 0, 1);
    const created = await store('nodes').create(
      { kind: 'Node', apiVersion: 'v1', metadata: { name: 'n1' } },
      { now, dryRun: false },
    );
    const nodeUID = String(created.obj.metadata.uid);
    const mine = (await store('pods').create(pod('mine', 'n1'), { now, dryRun: false })).obj;
    await store('pods').create(pod('theirs', 'n2'), { now, dryRun: false });
    const plugin = nodeRestriction(store);
    const attrs = (over: Partial<Attributes>): Attributes => ({
      operation: 'CREATE',
      resource: 'pods',
      subresource: '',
      namespace: 'ns',
      name: '',
      object: null,
      oldObject: null,
      dryRun: false,
      userInfo: N1,
      ...over,
    });
    const cases: [string, Partial<Attributes>, RegExp | null][] = [
      // Nodes.
      ['create its Node', { resource: 'nodes', namespace: '', object: node() }, null],
      [
        'create another Node',
        { resource: 'nodes', namespace: '', object: { metadata: { name: 'n2' } } },
        /^nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"$/,
      ],
      [
        "patch another Node's status",
        {
          resource: 'nodes',
          subresource: 'status',
          operation: 'UPDATE',
          namespace: '',
          name: 'n2',
          object: { metadata: { name: 'n2' } },
          oldObject: { metadata: { name: 'n2' } },
        },
        /node "n1" is not allowed to modify node "n2"/,
      ],
      [
        'update its status',
        {
          resource: 'nodes',
          subresource: 'status',
          operation: 'UPDATE',
          namespace: '',
          name: 'n1',
          object: node(),
          oldObject: node(),
        },
        null,
      ],
      [
        'change its taints',
        {
          resource: 'nodes',
          operation: 'UPDATE',
          namespace: '',
          name: 'n1',
          object: node({ spec: { taints: [] } }),
          oldObject: node(),
        },
        /^nodes "n1" is forbidden: node "n1" is not allowed to modify taints$/,
      ],
      [
        'set ownerReferences on update',
        {
          resource: 'nodes',
          operation: 'UPDATE',
          namespace: '',
          name: 'n1',
          object: node({ metadata: { ownerReferences: [{ kind: 'Node', name: 'x' }] } }),
          oldObject: node(),
        },
        /not allowed to modify ownerReferences/,
      ],
      [
        'register with ownerReferences',
        {
          resource: 'nodes',
          namespace: '',
          object: node({ metadata: { ownerReferences: [{ kind: 'Node', name: 'x' }] } }),
        },
        /not allowed to set ownerReferences/,
      ],
      [
        'register with restricted labels',
        {
          resource: 'nodes',
          namespace: '',
          object: node({
            metadata: {
              labels: {
                'node-restriction.kubernetes.io/pci': 'y',
                'a.k8s.io/b': 'c',
                'node.kubernetes.io/pool': 'ok',
                team: 'free',
              },
            },
          }),
        },
        /node "n1" is not allowed to set the following labels: a\.k8s\.io\/b, node-restriction\.kubernetes\.io\/pci$/,
      ],
      [
        'relabel outside the kubelet set',
        {
          resource: 'nodes',
          operation: 'UPDATE',
          namespace: '',
          name: 'n1',
          object: node({ metadata: { labels: { 'node-role.kubernetes.io/control-plane': '' } } }),
          oldObject: node(),
        },
        /^nodes "n1" is forbidden: is not allowed to modify labels: node-role\.kubernetes\.io\/control-plane$/,
      ],
      [
        'relabel within the kubelet set',
        {
          resource: 'nodes',
          operation: 'UPDATE',
          namespace: '',
          name: 'n1',
          object: node({
            metadata: {
              labels: {
                'kubernetes.io/hostname': 'n1',
                'topology.kubernetes.io/zone': 'z',
                'x.kubelet.kubernetes.io/y': '1',
              },
            },
          }),
          oldObject: node(),
        },
        null,
      ],
      // Leases.
      ['create its Lease', { resource: 'leases', namespace: 'kube-node-lease', object: lease('n1') }, null],
      [
        "renew another node's Lease",
        {
          resource: 'leases',
          operation: 'UPDATE',
          namespace: 'kube-node-lease',
          name: 'n2',
          object: lease('n2'),
          oldObject: lease('n2'),
        },
        /^leases\.coordination\.k8s\.io "n2" is forbidden: can only access node lease with the same name as the requesting node$/,
      ],
      [
        'a Lease elsewhere',
        { resource: 'leases', namespace: 'default', object: { metadata: { name: 'n1' } } },
        /can only access leases in the "kube-node-lease" system namespace/,
      ],
      // Pods.
      [
        'update the status of its pod',
        {
          subresource: 'status',
          operation: 'UPDATE',
          name: 'mine',
          object: pod('mine', 'n1'),
          oldObject: pod('mine', 'n1'),
        },
        null,
      ],
      [
        "update another node's pod status",
        {
          subresource: 'status',
          operation: 'UPDATE',
          name: 'theirs',
          object: pod('theirs', 'n2'),
          oldObject: pod('theirs', 'n2'),
        },
        /^pods "theirs" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself$/,
      ],
      [
        'relabel through status',
        {
          subresource: 'status',
          operation: 'UPDATE',
          name: 'mine',
          object: { ...pod('mine', 'n1'), metadata: { name: 'mine', labels: { a: 'b' } } },
          oldObject: pod('mine', 'n1'),
        },
        /cannot update labels through pod status/,
      ],
      ['delete its pod', { operation: 'DELETE', name: 'mine' }, null],
      [
        "delete another node's pod",
        { operation: 'DELETE', name: 'theirs' },
        /^pods "Unknown" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself$/,
      ],
      ['delete a missing pod', { operation: 'DELETE', name: 'gone' }, /^pods "gone" not found$/],
      [
        'update a pod',
        { operation: 'UPDATE', name: 'mine', object: pod('mine', 'n1'), oldObject: pod('mine', 'n1') },
        /unexpected operation "UPDATE", node "n1" can only create and delete mirror pods/,
      ],
      [
        'evict its pod',
        { subresource: 'eviction', name: 'mine', object: { kind: 'Eviction', metadata: { name: 'mine' } } },
        null,
      ],
      [
        "evict another node's pod",
        { subresource: 'eviction', name: 'theirs', object: { kind: 'Eviction', metadata: { name: 'theirs' } } },
        /node n1 can only evict pods with spec.nodeName set to itself/,
      ],
      [
        'exec',
        { subresource: 'exec', name: 'mine' },
        /unexpected pod subresource "exec", only 'status' and 'eviction' are allowed/,
      ],
      ['create a mirror pod', { object: mirror({}, nodeUID) }, null],
      [
        'create a plain pod',
        { object: pod('plain', 'n1') },
        /pod does not have "kubernetes.io\/config.mirror" annotation, node "n1" can only create mirror pods/,
      ],
      [
        'a mirror pod for another node',
        { object: mirror({ nodeName: 'n2' }, nodeUID) },
        /can only create pods with spec.nodeName set to itself/,
      ],
      ['a mirror pod with a stale node uid', { object: mirror({}, 'old') }, /node n1 UID mismatch: expected old got /],
      [
        'a mirror pod mounting a secret',
        { object: mirror({ volumes: [{ name: 'v', secret: { secretName: 's' } }] }, nodeUID) },
        /can not create pods that reference secrets/,
      ],
      [
        'a mirror pod with a service account',
        { object: mirror({ serviceAccountName: 'default' }, nodeUID) },
        /can not create pods that reference a service account/,
      ],
      // ServiceAccount tokens.
      [
        'a token bound to its pod',
        {
          resource: 'serviceaccounts',
          subresource: 'token',
          name: 'default',
          object: token({ apiVersion: 'v1', kind: 'Pod', name: 'mine', uid: mine.metadata.uid }),
        },
        null,
      ],
      [
        'a token bound to nothing',
        { resource: 'serviceaccounts', subresource: 'token', name: 'default', object: token(undefined) },
        /node requested token not bound to a pod/,
      ],
      [
        'a token without the pod uid',
        {
          resource: 'serviceaccounts',
          subresource: 'token',
          name: 'default',
          object: token({ apiVersion: 'v1', kind: 'Pod', name: 'mine' }),
        },
        /without a uid/,
      ],
      [
        "a token bound to another node's pod",
        {
          resource: 'serviceaccounts',
          subresource: 'token',
          name: 'default',
          object: token({ apiVersion: 'v1', kind: 'Pod', name: 'theirs', uid: 'x' }),
        },
        /does not match the UID in record/,
      ],
      // Anything else is left to the other plugins.
      ['create a ConfigMap', { resource: 'configmaps', object: { metadata: { name: 'c' } } }, null],
    ];
    for (const [what, over, want] of cases) {
      const run = Promise.resolve(plugin.admit!(attrs(over)));
      if (want === null) await assert.doesNotReject(run, what);
      else await assert.rejects(run, (e: Error) => (assert.match(e.message, want, what), true), what);
    }
    // Other users are not nodes: nothing is checked.
    for (const userInfo of [
      undefined,
      { username: 'system:node:n1', groups: ['devs'] },
      { username: 'alice', groups: ['system:nodes'] },
    ])
      await plugin.admit!(attrs({ userInfo, operation: 'DELETE', name: 'theirs' }));
    await assert.rejects(
      Promise.resolve(
        plugin.admit!(
          attrs({
            userInfo: { username: 'system:node:', groups: ['system:nodes'] },
            operation: 'DELETE',
            name: 'mine',
          }),
        ),
      ),
      /could not determine node from user "system:node:"/,
    );
  } finally {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
