/**
 * Micro-benchmark of authorization per request at lab scale: the server's authorizer chain
 * (system:masters, then the Node authorizer, then RBAC with upstream's bootstrap policy and a set of
 * namespace RoleBindings) over a Node-authorizer graph of --nodes × --pods-per-node bound pods, each
 * mounting its own Secret and a ConfigMap shared by its Deployment and running as its namespace's
 * `default` ServiceAccount. Each case is one request as the filter sees it: the attributes built from its
 * RequestInfo, then the union's decision. Prints CPU µs/op per case (median of --rounds timed rounds of
 * --ms each), the graph's build time and heap, and the mean over the kubelet mix. Target: ≤ 20 µs.
 *
 *   node dist/bench/authz/main.js [--nodes=2500] [--pods-per-node=30] [--rounds=7] [--ms=300] [--quick]
 */
import {
  attributesOf,
  BOOTSTRAP_CLUSTER_ROLE_BINDINGS,
  BOOTSTRAP_CLUSTER_ROLES,
  Graph,
  NodeAuthorizer,
  podGraphPopulator,
  privilegedGroups,
  RBACAuthorizer,
  union,
  type Authorizer,
} from '../../src/apiserver/authorization/index.js';
import type { UserInfo } from '../../src/apiserver/authentication/index.js';
import { parseRequestInfo } from '../../src/apiserver/request_info.js';

type Obj = Record<string, unknown>;

const args = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k!, v ?? 'true'] as const;
  }),
);
const quick = args.has('quick');
const NODES = Number(args.get('nodes') ?? (quick ? 50 : 2500));
const PODS = Number(args.get('pods-per-node') ?? (quick ? 5 : 30));
const ROUNDS = Number(args.get('rounds') ?? (quick ? 2 : 7));
const MS = Number(args.get('ms') ?? (quick ? 20 : 300));
const NAMESPACES = 50;
const PODS_PER_DEPLOYMENT = 10;

/** The lab's pod i: namespace, Deployment, node, and what it references. */
function pod(i: number): Obj {
  const ns = `ns-${i % NAMESPACES}`;
  return {
    metadata: { name: `pod-${i}`, namespace: ns, uid: `uid-${i}` },
    spec: {
      nodeName: `node-${i % NODES}`,
      serviceAccountName: 'default',
      containers: [
        {
          name: 'app',
          image: 'registry.k8s.io/pause:3.9',
          envFrom: [{ configMapRef: { name: `config-${Math.floor(i / PODS_PER_DEPLOYMENT)}` } }],
        },
      ],
      volumes: [{ name: 'creds', secret: { secretName: `secret-${i}` } }],
    },
  };
}

function build(): { authorizer: Authorizer; buildMs: number; heapMB: number; vertices: number } {
  global.gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const graph = new Graph();
  const populate = podGraphPopulator(graph);
  for (let i = 0; i < NODES * PODS; i++) populate.put(pod(i));
  const buildMs = performance.now() - t0;
  global.gc?.();
  const heapMB = (process.memoryUsage().heapUsed - heap0) / 2 ** 20;
  const rbac = new RBACAuthorizer();
  for (const r of BOOTSTRAP_CLUSTER_ROLES) rbac.putRole('ClusterRole', r);
  for (const b of BOOTSTRAP_CLUSTER_ROLE_BINDINGS) rbac.putBinding('ClusterRoleBinding', b);
  rbac.putRole('ClusterRole', {
    metadata: { name: 'pod-reader' },
    rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }],
  });
  for (let n = 0; n < NAMESPACES; n++)
    for (let b = 0; b < 4; b++)
      rbac.putBinding('RoleBinding', {
        metadata: { name: `readers-${b}`, namespace: `ns-${n}` },
        roleRef: { kind: 'ClusterRole', name: 'pod-reader' },
        subjects: [{ kind: 'ServiceAccount', name: `app-${b}` }],
      });
  const authorizer = union([privilegedGroups('system:masters'), new NodeAuthorizer(graph), rbac]);
  return { authorizer, buildMs, heapMB, vertices: graph.size };
}

const node = (n: number): UserInfo => ({
  username: `system:node:node-${n}`,
  groups: ['system:nodes', 'system:authenticated'],
});

/** One request: method, URL, user, and the decision it must get. */
interface Case {
  name: string;
  method: string;
  url: string;
  user: UserInfo;
  want: 'allow' | 'noOpinion';
  kubelet: boolean;
}

function cases(): Case[] {
  // Pod 7 runs on node-7 in ns-7; pod 8 on node-8.
  const n7 = node(7);
  const c = (name: string, method: string, url: string, user: UserInfo, want: Case['want'], kubelet = true): Case => ({
    name,
    method,
    url,
    user,
    want,
    kubelet,
  });
  return [
    c('node: get a Secret its pod mounts', 'GET', '/api/v1/namespaces/ns-7/secrets/secret-7', n7, 'allow'),
    c(
      'node: watch a ConfigMap by name',
      'GET',
      '/api/v1/namespaces/ns-7/configmaps?watch=true&fieldSelector=metadata.name%3Dconfig-0',
      n7,
      'allow',
    ),
    c('node: ServiceAccount token', 'POST', '/api/v1/namespaces/ns-7/serviceaccounts/default/token', n7, 'allow'),
    c('node: patch its pod status', 'PATCH', '/api/v1/namespaces/ns-7/pods/pod-7/status', n7, 'allow'),
    c(
      'node: renew its Lease',
      'PUT',
      '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-7',
      n7,
      'allow',
    ),
    c('node: patch its Node status', 'PATCH', '/api/v1/nodes/node-7/status', n7, 'allow'),
    c('node: get its Node', 'GET', '/api/v1/nodes/node-7', n7, 'allow'),
    c('node: create an Event', 'POST', '/api/v1/namespaces/ns-7/events', n7, 'allow'),
    c('node: watch services', 'GET', '/api/v1/services?watch=true', n7, 'allow'),
    c('node: watch its pods', 'GET', '/api/v1/pods?watch=true&fieldSelector=spec.nodeName%3Dnode-7', n7, 'allow'),
    c(
      'node: get an unrelated Secret (denied)',
      'GET',
      '/api/v1/namespaces/ns-8/secrets/secret-8',
      n7,
      'noOpinion',
      false,
    ),
    c('node: get another node (denied)', 'GET', '/api/v1/nodes/node-8', n7, 'noOpinion', false),
    c(
      'ServiceAccount: list pods (RoleBinding)',
      'GET',
      '/api/v1/namespaces/ns-3/pods',
      {
        username: 'system:serviceaccount:ns-3:app-2',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:ns-3', 'system:authenticated'],
      },
      'allow',
      false,
    ),
    c(
      'anonymous: /healthz',
      'GET',
      '/healthz',
      { username: 'system:anonymous', groups: ['system:unauthenticated'] },
      'allow',
      false,
    ),
    c(
      'system:masters: delete a node',
      'DELETE',
      '/api/v1/nodes/node-8',
      { username: 'admin', groups: ['system:masters'] },
      'allow',
      false,
    ),
  ];
}

/** CPU µs per call of `fn`, the median of ROUNDS rounds of about MS ms each. */
function measure(fn: () => void): number {
  const perRound: number[] = [];
  let batch = 1000;
  for (let r = 0; r < ROUNDS; r++) {
    let calls = 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    while (performance.now() - t0 < MS) {
      for (let i = 0; i < batch; i++) fn();
      calls += batch;
    }
    const cpu = process.cpuUsage(cpu0);
    perRound.push((cpu.user + cpu.system) / calls);
    batch = Math.max(100, Math.min(100_000, Math.round(calls / 10)));
  }
  perRound.sort((a, b) => a - b);
  return perRound[Math.floor(perRound.length / 2)]!;
}

const { authorizer, buildMs, heapMB, vertices } = build();
console.log(
  `graph: ${NODES} nodes × ${PODS} pods = ${NODES * PODS} pods, ${vertices} vertices, built in ${buildMs.toFixed(0)} ms` +
    (global.gc === undefined ? ' (heap: run with --expose-gc)' : `, ${heapMB.toFixed(1)} MiB heap`),
);
const kubelet: number[] = [];
for (const k of cases()) {
  const info = parseRequestInfo(k.method, k.url);
  const decide = () => authorizer.authorize(attributesOf(info, k.user));
  const got = decide().decision;
  if (got !== k.want) throw new Error(`${k.name}: got ${got}, want ${k.want}`);
  const us = measure(decide);
  if (k.kubelet) kubelet.push(us);
  console.log(`${us.toFixed(2).padStart(8)} µs/op  ${k.name}`);
}
const mean = kubelet.reduce((a, b) => a + b, 0) / kubelet.length;
console.log(`${mean.toFixed(2).padStart(8)} µs/op  mean over the kubelet's requests (target ≤ 20 µs)`);
