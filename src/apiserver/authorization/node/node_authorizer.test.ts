import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Attributes } from '../authorizer.js';
import { Graph } from './graph.js';
import { NodeAuthorizer } from './node_authorizer.js';

const N1 = { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };

const attrs = (over: Partial<Attributes>): Attributes => ({
  user: N1,
  verb: 'get',
  isResourceRequest: true,
  path: '',
  namespace: 'ns',
  apiGroup: '',
  resource: 'secrets',
  subresource: '',
  name: '',
  ...over,
});

function authorizer(): NodeAuthorizer {
  const g = new Graph();
  const pod = (name: string, nodeName: string, secret: string) => ({
    namespace: 'ns',
    name,
    nodeName,
    mirror: false,
    serviceAccountName: `sa-${name}`,
    secrets: [secret],
    configMaps: [`cm-${name}`],
    pvcs: [`claim-${name}`],
  });
  g.setPod(pod('mine', 'n1', 'my-secret'));
  g.setPod(pod('theirs', 'n2', 'their-secret'));
  g.setPV({ name: 'pv-mine', claim: { namespace: 'ns', name: 'claim-mine' }, secrets: [] });
  return new NodeAuthorizer(g);
}

test('Node authorizer decisions, as upstream (1.33 with AuthorizeNodeWithSelectors)', () => {
  const z = authorizer();
  const cases: [string, Partial<Attributes>, 'allow' | 'noOpinion', RegExp?][] = [
    // Secrets and ConfigMaps: one named object related through a pod on this node.
    ['get a secret its pod mounts', { name: 'my-secret' }, 'allow'],
    ['watch it by metadata.name', { verb: 'watch', name: 'my-secret' }, 'allow'],
    [
      "get another node's pod's secret",
      { name: 'their-secret' },
      'noOpinion',
      /no relationship found between node 'n1'/,
    ],
    ['get an unreferenced secret', { name: 'nobody' }, 'noOpinion', /no relationship found/],
    ['list all secrets', { verb: 'list' }, 'noOpinion', /No Object name found/],
    ['write a secret it reads', { verb: 'update', name: 'my-secret' }, 'noOpinion', /can only read resources/],
    ['a secret at cluster scope', { namespace: '', verb: 'list' }, 'noOpinion', /namespaced object/],
    ['get a configmap its pod uses', { resource: 'configmaps', name: 'cm-mine' }, 'allow'],
    ["another pod's configmap", { resource: 'configmaps', name: 'cm-theirs' }, 'noOpinion'],
    // PVCs and PVs: get only.
    ['get its claim', { resource: 'persistentvolumeclaims', name: 'claim-mine' }, 'allow'],
    ['list claims', { resource: 'persistentvolumeclaims', verb: 'list', name: 'claim-mine' }, 'noOpinion'],
    [
      'update its claim status',
      { resource: 'persistentvolumeclaims', subresource: 'status', verb: 'patch', name: 'claim-mine' },
      'allow',
    ],
    ['get the PV bound to its claim', { resource: 'persistentvolumes', namespace: '', name: 'pv-mine' }, 'allow'],
    // ServiceAccount tokens.
    [
      "token for its pod's account",
      { resource: 'serviceaccounts', subresource: 'token', verb: 'create', name: 'sa-mine' },
      'allow',
    ],
    [
      "token for another node's account",
      { resource: 'serviceaccounts', subresource: 'token', verb: 'create', name: 'sa-theirs' },
      'noOpinion',
    ],
    ['get a service account', { resource: 'serviceaccounts', name: 'sa-mine' }, 'noOpinion', /can only create tokens/],
    // Nodes.
    ['get its own Node', { resource: 'nodes', namespace: '', name: 'n1' }, 'allow'],
    ['watch its own Node by name', { resource: 'nodes', namespace: '', verb: 'watch', name: 'n1' }, 'allow'],
    [
      'get another Node',
      { resource: 'nodes', namespace: '', name: 'n2' },
      'noOpinion',
      /node 'n1' cannot read 'n2', only its own Node object/,
    ],
    ['list Nodes', { resource: 'nodes', namespace: '', verb: 'list' }, 'noOpinion', /cannot read all nodes/],
    ['create a Node (NodeRestriction checks the name)', { resource: 'nodes', namespace: '', verb: 'create' }, 'allow'],
    [
      'patch a Node status',
      { resource: 'nodes', namespace: '', subresource: 'status', verb: 'patch', name: 'n2' },
      'allow',
    ],
    ['delete a Node', { resource: 'nodes', namespace: '', verb: 'delete', name: 'n1' }, 'noOpinion'],
    // Pods.
    ['get its pod', { resource: 'pods', name: 'mine' }, 'allow'],
    ["get another node's pod", { resource: 'pods', name: 'theirs' }, 'noOpinion', /no relationship found/],
    [
      'watch its pods by spec.nodeName',
      { resource: 'pods', namespace: '', verb: 'watch', fieldSelector: 'spec.nodeName=n1' },
      'allow',
    ],
    [
      'list by spec.nodeName among other terms',
      { resource: 'pods', namespace: '', verb: 'list', fieldSelector: 'metadata.namespace!=x,spec.nodeName==n1' },
      'allow',
    ],
    [
      "list another node's pods",
      { resource: 'pods', namespace: '', verb: 'list', fieldSelector: 'spec.nodeName=n2' },
      'noOpinion',
      /spec.nodeName field selector/,
    ],
    [
      'list all pods',
      { resource: 'pods', namespace: '', verb: 'list' },
      'noOpinion',
      /can only list\/watch pods with spec.nodeName field selector/,
    ],
    ['watch one pod of its own', { resource: 'pods', verb: 'watch', name: 'mine' }, 'allow'],
    [
      'patch a pod status (NodeRestriction checks the node)',
      { resource: 'pods', subresource: 'status', verb: 'patch', name: 'theirs' },
      'allow',
    ],
    ['evict', { resource: 'pods', subresource: 'eviction', verb: 'create', name: 'mine' }, 'allow'],
    ['update a pod', { resource: 'pods', verb: 'update', name: 'mine' }, 'noOpinion'],
    ['exec into a pod', { resource: 'pods', subresource: 'exec', verb: 'create', name: 'mine' }, 'noOpinion'],
    // Leases.
    [
      'renew its lease',
      { apiGroup: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-node-lease', verb: 'update', name: 'n1' },
      'allow',
    ],
    [
      "renew another node's lease",
      { apiGroup: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-node-lease', verb: 'update', name: 'n2' },
      'noOpinion',
      /same name as the requesting node/,
    ],
    [
      'a lease elsewhere',
      { apiGroup: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-system', verb: 'get', name: 'n1' },
      'noOpinion',
      /kube-node-lease/,
    ],
    [
      'list leases',
      { apiGroup: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-node-lease', verb: 'list' },
      'noOpinion',
    ],
    // The static rules.
    ['watch services', { resource: 'services', verb: 'watch' }, 'allow'],
    ['create events', { resource: 'events', verb: 'create' }, 'allow'],
    [
      'create a CSR',
      { apiGroup: 'certificates.k8s.io', resource: 'certificatesigningrequests', namespace: '', verb: 'create' },
      'allow',
    ],
    [
      'create a TokenReview',
      { apiGroup: 'authentication.k8s.io', resource: 'tokenreviews', namespace: '', verb: 'create' },
      'allow',
    ],
    ['delete a deployment', { apiGroup: 'apps', resource: 'deployments', verb: 'delete', name: 'd' }, 'noOpinion'],
    ['read /metrics', { isResourceRequest: false, path: '/metrics', resource: '' }, 'noOpinion'],
  ];
  for (const [what, over, want, reason] of cases) {
    const d = z.authorize(attrs(over));
    assert.equal(d.decision, want, what);
    if (reason !== undefined) assert.match(d.reason, reason, what);
  }
});

test('only system:node:<name> in system:nodes is a node; a nameless node is refused', () => {
  const z = authorizer();
  const get = { name: 'my-secret' };
  assert.equal(
    z.authorize(attrs({ ...get, user: { username: 'system:node:n1', groups: ['devs'] } })).decision,
    'noOpinion',
  );
  assert.equal(z.authorize(attrs({ ...get, user: { username: 'n1', groups: ['system:nodes'] } })).reason, '');
  const nameless = z.authorize(attrs({ ...get, user: { username: 'system:node:', groups: ['system:nodes'] } }));
  assert.equal(nameless.decision, 'noOpinion');
  assert.equal(nameless.reason, 'unknown node for user "system:node:"');
});
