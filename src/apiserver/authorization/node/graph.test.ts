import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Graph, type PodRefs, type PVRefs, type VertexType } from './graph.js';
import { podGraphPopulator } from './graph_populator.js';
import { podRefs } from './pod_refs.js';

const pod = (name: string, nodeName: string, spec: Record<string, unknown> = {}, uid = `uid-${name}`) => ({
  metadata: { name, namespace: 'ns', uid },
  spec: { nodeName, serviceAccountName: 'default', containers: [{ name: 'c' }], ...spec },
});

test('a pod references secrets, configmaps and claims from every place upstream visits', () => {
  const refs = podRefs(
    pod('p', 'n1', {
      imagePullSecrets: [{ name: 'pull' }],
      initContainers: [{ name: 'i', envFrom: [{ secretRef: { name: 'init-env' } }] }],
      containers: [
        {
          name: 'c',
          env: [
            { name: 'A', valueFrom: { secretKeyRef: { name: 'env-secret', key: 'k' } } },
            { name: 'B', valueFrom: { configMapKeyRef: { name: 'env-cm', key: 'k' } } },
            { name: 'C', value: 'plain' },
          ],
          envFrom: [{ configMapRef: { name: 'envfrom-cm' } }],
        },
      ],
      ephemeralContainers: [{ name: 'e', envFrom: [{ secretRef: { name: 'debug' } }] }],
      volumes: [
        { name: 's', secret: { secretName: 'vol-secret' } },
        { name: 'm', configMap: { name: 'vol-cm' } },
        {
          name: 'p',
          projected: { sources: [{ secret: { name: 'proj-secret' } }, { configMap: { name: 'proj-cm' } }] },
        },
        { name: 'csi', csi: { driver: 'd', nodePublishSecretRef: { name: 'csi-secret' } } },
        { name: 'rbd', rbd: { monitors: [], image: 'i', secretRef: { name: 'rbd-secret' } } },
        { name: 'claim', persistentVolumeClaim: { claimName: 'data' } },
        { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } },
        { name: 'dup', secret: { secretName: 'pull' } },
      ],
    }),
  );
  assert.ok(refs !== undefined);
  assert.deepEqual(
    [...refs.secrets].sort(),
    ['csi-secret', 'debug', 'env-secret', 'init-env', 'proj-secret', 'pull', 'rbd-secret', 'vol-secret'].sort(),
  );
  assert.deepEqual([...refs.configMaps].sort(), ['env-cm', 'envfrom-cm', 'proj-cm', 'vol-cm']);
  assert.deepEqual(refs.pvcs, ['data', 'p-scratch']);
  assert.equal(refs.serviceAccountName, 'default');
  assert.equal(podRefs(pod('unbound', '')), undefined, 'an unbound pod is not in the graph');
});

test('objects reach the nodes of the pods that reference them, and stop when the last such pod goes', () => {
  const g = new Graph();
  const ref = (name: string, node: string) => ({
    namespace: 'ns',
    name,
    nodeName: node,
    mirror: false,
    serviceAccountName: 'default',
    secrets: ['shared'],
    configMaps: [`cm-${name}`],
    pvcs: [],
  });
  g.setPod(ref('a', 'n1'));
  g.setPod(ref('b', 'n1'));
  g.setPod(ref('c', 'n2'));
  const cases: [string, Parameters<Graph['hasPathFrom']>, boolean][] = [
    ['shared secret from n1', ['n1', 'secret', 'ns', 'shared'], true],
    ['shared secret from n2', ['n2', 'secret', 'ns', 'shared'], true],
    ["a's configmap from n1", ['n1', 'configmap', 'ns', 'cm-a'], true],
    ["c's configmap from n1", ['n1', 'configmap', 'ns', 'cm-c'], false],
    ['service account from n2', ['n2', 'serviceaccount', 'ns', 'default'], true],
    ['pod a from its node', ['n1', 'pod', 'ns', 'a'], true],
    ['pod a from another node', ['n2', 'pod', 'ns', 'a'], false],
    ['the same name in another namespace', ['n1', 'secret', 'other', 'shared'], false],
    ['an unknown node', ['n9', 'secret', 'ns', 'shared'], false],
  ];
  for (const [what, args, want] of cases) assert.equal(g.hasPathFrom(...args), want, what);
  g.deletePod('ns', 'a');
  assert.ok(g.hasPathFrom('n1', 'secret', 'ns', 'shared'), 'b still holds it on n1');
  assert.ok(!g.hasPathFrom('n1', 'configmap', 'ns', 'cm-a'));
  g.deletePod('ns', 'b');
  assert.ok(!g.hasPathFrom('n1', 'secret', 'ns', 'shared'), 'no pod on n1 references it any more');
  assert.ok(g.hasPathFrom('n2', 'secret', 'ns', 'shared'));
  g.deletePod('ns', 'c');
  assert.equal(g.size, 0, 'vertices left without edges are dropped');
});

test('mirror pods reach their node but grant nothing they reference; PVs reach through their claim', () => {
  const g = new Graph();
  g.setPod({
    namespace: 'ns',
    name: 'static',
    nodeName: 'n1',
    mirror: true,
    serviceAccountName: 'sa',
    secrets: ['s'],
    configMaps: [],
    pvcs: [],
  });
  assert.ok(g.hasPathFrom('n1', 'pod', 'ns', 'static'));
  assert.ok(!g.hasPathFrom('n1', 'secret', 'ns', 's'));
  assert.ok(!g.hasPathFrom('n1', 'serviceaccount', 'ns', 'sa'));
  // The PV arrives before any pod uses its claim, and the chain completes later (either order works).
  g.setPV({ name: 'pv1', claim: { namespace: 'ns', name: 'data' }, secrets: [{ namespace: 'ns', name: 'pv-secret' }] });
  assert.ok(!g.hasPathFrom('n1', 'pv', '', 'pv1'));
  g.setPod({
    namespace: 'ns',
    name: 'db',
    nodeName: 'n1',
    mirror: false,
    serviceAccountName: '',
    secrets: [],
    configMaps: [],
    pvcs: ['data'],
  });
  assert.ok(g.hasPathFrom('n1', 'pvc', 'ns', 'data'));
  assert.ok(g.hasPathFrom('n1', 'pv', '', 'pv1'));
  assert.ok(g.hasPathFrom('n1', 'secret', 'ns', 'pv-secret'), 'node <- pod <- pvc <- pv <- secret');
  g.setPV({ name: 'pv1', secrets: [] });
  assert.ok(!g.hasPathFrom('n1', 'pv', '', 'pv1'), 'an unbound PV reaches nothing');
  assert.ok(!g.hasPathFrom('n1', 'secret', 'ns', 'pv-secret'));
  assert.ok(g.hasPathFrom('n1', 'pvc', 'ns', 'data'));
});

test('the populator adds pods once bound, skips writes that change neither uid nor node, and follows relists', () => {
  const g = new Graph();
  const p = podGraphPopulator(g);
  const withSecret = (name: string, node: string, uid?: string) =>
    pod(name, node, { volumes: [{ name: 'v', secret: { secretName: `s-${name}` } }] }, uid);
  p.put(withSecret('a', ''));
  assert.ok(!g.hasPathFrom('n1', 'secret', 'ns', 's-a'), 'not bound yet');
  p.put(withSecret('a', 'n1'));
  assert.ok(g.hasPathFrom('n1', 'secret', 'ns', 's-a'));
  // A status write: same uid and node, so the graph is left alone even if the object looks different.
  p.put({ ...withSecret('a', 'n1'), spec: { nodeName: 'n1' } });
  assert.ok(g.hasPathFrom('n1', 'secret', 'ns', 's-a'));
  // Recreated under the same name on another node.
  p.put(withSecret('a', 'n2', 'uid-2'));
  assert.ok(!g.hasPathFrom('n1', 'secret', 'ns', 's-a'));
  assert.ok(g.hasPathFrom('n2', 'secret', 'ns', 's-a'));
  p.put(withSecret('b', 'n1'));
  p.replace([withSecret('b', 'n1'), withSecret('c', 'n3'), withSecret('a', '', 'uid-3')]);
  assert.ok(!g.hasPathFrom('n2', 'secret', 'ns', 's-a'), 'recreated unbound while the watch was down');
  assert.ok(g.hasPathFrom('n1', 'secret', 'ns', 's-b'));
  assert.ok(g.hasPathFrom('n3', 'secret', 'ns', 's-c'));
  p.delete(withSecret('b', 'n1'));
  assert.ok(!g.hasPathFrom('n1', 'secret', 'ns', 's-b'));
});

test('the populator skips undecoded writes only when they cannot change the graph', () => {
  const g = new Graph();
  const p = podGraphPopulator(g);
  const kvOf = (obj: object, createRevision: number, modRevision: number) => ({
    key: '/registry/pods/ns/a',
    value: Buffer.from(JSON.stringify(obj)),
    createRevision,
    modRevision,
  });
  const unbound = pod('a', '', { volumes: [{ name: 'v', secret: { secretName: 's-a' } }] });
  const bound = pod('a', 'n1', { volumes: [{ name: 'v', secret: { secretName: 's-a' } }] });
  assert.equal(p.mayMatter('put', kvOf(unbound, 10, 10)), false, 'an unbound pod reaches no node');
  const binding = kvOf(bound, 10, 11);
  assert.equal(p.mayMatter('put', binding), true, 'the binding write names a node');
  p.put(bound, binding);
  assert.ok(g.hasPathFrom('n1', 'secret', 'ns', 's-a'));
  assert.equal(p.mayMatter('put', kvOf(bound, 10, 12)), false, 'a status write in the same lifetime');
  // Deleted and recreated under the same name, bound elsewhere: a new lifetime is decoded.
  assert.equal(p.mayMatter('delete', kvOf(bound, 10, 13)), true);
  p.delete(bound, kvOf(bound, 10, 13));
  assert.ok(!g.hasPathFrom('n1', 'secret', 'ns', 's-a'));
  const again = pod('a', 'n2', { volumes: [{ name: 'v', secret: { secretName: 's-a' } }] }, 'uid-2');
  assert.equal(p.mayMatter('put', kvOf(again, 20, 21)), true);
  p.put(again, kvOf(again, 20, 21));
  assert.ok(g.hasPathFrom('n2', 'secret', 'ns', 's-a'));
  // After a relist the lifetimes are unknown again, so the next write is decoded.
  p.replace([again]);
  assert.equal(p.mayMatter('put', kvOf(again, 20, 22)), true);
});

test('paths stay exact through any order of pod and PV changes (checked against a walk of the edges)', () => {
  // A small deterministic generator, so a failure replays.
  let seed = 42;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const g = new Graph();
  const pods = new Map<string, PodRefs>();
  const pvs = new Map<string, PVRefs>();
  const pick = (prefix: string, n: number) => `${prefix}${rand(n)}`;
  for (let step = 0; step < 3000; step++) {
    const r = rand(10);
    if (r < 5) {
      const p: PodRefs = {
        namespace: 'ns',
        name: pick('p', 30),
        nodeName: pick('n', 4),
        mirror: rand(10) === 0,
        serviceAccountName: rand(3) === 0 ? '' : pick('sa', 3),
        secrets: [...new Set(Array.from({ length: rand(3) }, () => pick('s', 8)))],
        configMaps: [...new Set(Array.from({ length: rand(2) }, () => pick('c', 5)))],
        pvcs: [...new Set(Array.from({ length: rand(2) }, () => pick('pvc', 5)))],
      };
      g.setPod(p);
      pods.set(p.name, p);
    } else if (r < 7) {
      const name = pick('p', 30);
      g.deletePod('ns', name);
      pods.delete(name);
    } else if (r < 9) {
      const pv: PVRefs = {
        name: pick('pv', 5),
        ...(rand(4) === 0 ? {} : { claim: { namespace: 'ns', name: pick('pvc', 5) } }),
        secrets: rand(2) === 0 ? [] : [{ namespace: 'ns', name: pick('s', 8) }],
      };
      g.setPV(pv);
      pvs.set(pv.name, pv);
    } else {
      const name = pick('pv', 5);
      g.deletePV(name);
      pvs.delete(name);
    }
    // The expected answer, walked from the live objects: which nodes each object reaches.
    const want = new Map<string, Set<string>>();
    const reach = (key: string, node: string) => {
      let s = want.get(key);
      if (s === undefined) want.set(key, (s = new Set()));
      s.add(node);
    };
    for (const p of pods.values()) {
      reach(`pod/${p.name}`, p.nodeName);
      if (p.mirror) continue;
      if (p.serviceAccountName !== '') reach(`serviceaccount/${p.serviceAccountName}`, p.nodeName);
      for (const s of p.secrets) reach(`secret/${s}`, p.nodeName);
      for (const c of p.configMaps) reach(`configmap/${c}`, p.nodeName);
      for (const c of p.pvcs) {
        reach(`pvc/${c}`, p.nodeName);
        for (const pv of pvs.values()) {
          if (pv.claim?.name !== c) continue;
          reach(`pv/${pv.name}`, p.nodeName);
          for (const s of pv.secrets) reach(`secret/${s.name}`, p.nodeName);
        }
      }
    }
    const check = (type: VertexType, prefix: string, count: number) => {
      for (let i = 0; i < count; i++)
        for (let n = 0; n < 4; n++) {
          const ns = type === 'pv' ? '' : 'ns';
          const expected = want.get(`${type}/${prefix}${i}`)?.has(`n${n}`) ?? false;
          assert.equal(
            g.hasPathFrom(`n${n}`, type, ns, `${prefix}${i}`),
            expected,
            `step ${step}: ${type} ${prefix}${i} n${n}`,
          );
        }
    };
    check('pod', 'p', 30);
    check('serviceaccount', 'sa', 3);
    check('secret', 's', 8);
    check('configmap', 'c', 5);
    check('pvc', 'pvc', 5);
    check('pv', 'pv', 5);
  }
});
