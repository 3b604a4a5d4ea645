/* eslint-disable @typescript-eslint/no-explicit-any -- the tests read deep into defaulted JSON */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addDefaultTolerations, admitPodPriority } from './admission.js';
import { applyDefaults, generateJobSelector, imageTag, prepareNamespaceForCreate } from './defaults.js';
import type { KubeObject } from './types.js';

test('pod defaults match SetDefaults_Pod/PodSpec/Container', () => {
  const pod: KubeObject = {
    metadata: { name: 'p' },
    spec: {
      containers: [
        { name: 'a', image: 'nginx', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } },
        { name: 'b', image: 'nginx:1.25', readinessProbe: { httpGet: { port: 80 } } },
        { name: 'c', image: 'repo:5000/app@sha256:abc' },
      ],
      volumes: [{ name: 'v' }, { name: 's', secret: { secretName: 'x' } }],
    },
  };
  applyDefaults('pods', pod);
  const spec = pod.spec as Record<string, any>;
  assert.equal(spec.restartPolicy, 'Always');
  assert.equal(spec.dnsPolicy, 'ClusterFirst');
  assert.equal(spec.schedulerName, 'default-scheduler');
  assert.equal(spec.terminationGracePeriodSeconds, 30);
  assert.deepEqual(spec.securityContext, {});
  assert.equal(spec.enableServiceLinks, true);
  const [a, b, c] = spec.containers;
  assert.equal(a.imagePullPolicy, 'Always');
  assert.equal(b.imagePullPolicy, 'IfNotPresent');
  assert.equal(c.imagePullPolicy, 'IfNotPresent');
  assert.equal(a.terminationMessagePath, '/dev/termination-log');
  assert.equal(a.terminationMessagePolicy, 'File');
  assert.equal(a.ports[0].protocol, 'TCP');
  assert.deepEqual(a.resources.requests, { cpu: '1' });
  assert.deepEqual(b.readinessProbe, {
    httpGet: { port: 80, path: '/', scheme: 'HTTP' },
    timeoutSeconds: 1,
    periodSeconds: 10,
    successThreshold: 1,
    failureThreshold: 3,
  });
  assert.deepEqual(spec.volumes[0], { name: 'v', emptyDir: {} });
  assert.equal(spec.volumes[1].secret.defaultMode, 420);
});

test('image tags: latest when untagged, registry ports are not tags', () => {
  assert.equal(imageTag('nginx'), 'latest');
  assert.equal(imageTag('localhost:5000/nginx'), 'latest');
  assert.equal(imageTag('localhost:5000/nginx:1.2'), '1.2');
  assert.equal(imageTag('nginx@sha256:00'), '');
});

test('service defaults', () => {
  const svc: KubeObject = { spec: { ports: [{ port: 80 }, { port: 443, targetPort: 'https' }] } };
  applyDefaults('services', svc);
  assert.deepEqual(svc.spec, {
    ports: [
      { port: 80, protocol: 'TCP', targetPort: 80 },
      { port: 443, targetPort: 'https', protocol: 'TCP' },
    ],
    sessionAffinity: 'None',
    type: 'ClusterIP',
    internalTrafficPolicy: 'Cluster',
    ipFamilyPolicy: 'SingleStack',
    ipFamilies: ['IPv4'],
  });
  const np: KubeObject = { spec: { type: 'NodePort', ports: [{ port: 80 }] } };
  applyDefaults('services', np);
  assert.equal((np.spec as Record<string, unknown>).externalTrafficPolicy, 'Cluster');
});

test('deployment, replicaset and job defaults', () => {
  const d: KubeObject = { spec: { template: { spec: { containers: [{ name: 'a', image: 'x:1' }] } } } };
  applyDefaults('deployments', d);
  const ds = d.spec as Record<string, any>;
  assert.equal(ds.replicas, 1);
  assert.deepEqual(ds.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
  assert.equal(ds.revisionHistoryLimit, 10);
  assert.equal(ds.progressDeadlineSeconds, 600);
  assert.equal(ds.template.spec.restartPolicy, 'Always');
  assert.equal(ds.template.spec.enableServiceLinks, undefined, 'templates get PodSpec defaults only');

  const rs: KubeObject = { spec: {} };
  applyDefaults('replicasets', rs);
  assert.equal((rs.spec as Record<string, unknown>).replicas, 1);

  const job: KubeObject = {
    metadata: { name: 'j' },
    spec: { template: { metadata: { labels: { app: 'j' } }, spec: {} } },
  };
  applyDefaults('jobs', job);
  const js = job.spec as Record<string, unknown>;
  assert.deepEqual(
    [js.completions, js.parallelism, js.backoffLimit, js.completionMode, js.suspend],
    [1, 1, 6, 'NonIndexed', false],
  );
  assert.deepEqual(job.metadata?.labels, { app: 'j' });
  const j2: KubeObject = { spec: { parallelism: 3 } };
  applyDefaults('jobs', j2);
  assert.equal(
    (j2.spec as Record<string, unknown>).completions,
    undefined,
    'completions stay unset when parallelism is set',
  );
});

test('job selector generation unless manualSelector', () => {
  const job: KubeObject = { metadata: { name: 'j', uid: 'u' }, spec: { template: {} } };
  generateJobSelector(job);
  const spec = job.spec as Record<string, any>;
  assert.deepEqual(spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u' } });
  assert.equal(spec.template.metadata.labels['batch.kubernetes.io/job-name'], 'j');
  const manual: KubeObject = {
    metadata: { uid: 'u' },
    spec: { manualSelector: true, selector: { matchLabels: { a: 'b' } } },
  };
  generateJobSelector(manual);
  assert.deepEqual((manual.spec as Record<string, unknown>).selector, { matchLabels: { a: 'b' } });
});

test('namespace, secret and node defaults', () => {
  const ns: KubeObject = { metadata: { name: 'team' } };
  applyDefaults('namespaces', ns);
  prepareNamespaceForCreate(ns);
  assert.deepEqual(ns.metadata?.labels, { 'kubernetes.io/metadata.name': 'team' });
  assert.deepEqual(ns.spec, { finalizers: ['kubernetes'] });
  assert.deepEqual(ns.status, { phase: 'Active' });
  const s: KubeObject = {};
  applyDefaults('secrets', s);
  assert.equal(s.type, 'Opaque');
  const node: KubeObject = { status: { capacity: { cpu: '4' } } };
  applyDefaults('nodes', node);
  assert.deepEqual((node.status as Record<string, unknown>).allocatable, { cpu: '4' });
});

test("a Secret's stringData merges over data, base64-encoded, and is not kept, like upstream's conversion", () => {
  const s: KubeObject = {
    data: { a: Buffer.from('old').toString('base64'), b: 'Yg==' },
    stringData: { a: 'new', c: 'ç' },
  };
  applyDefaults('secrets', s);
  assert.deepEqual(s.data, {
    a: Buffer.from('new').toString('base64'),
    b: 'Yg==',
    c: Buffer.from('ç', 'utf8').toString('base64'),
  });
  assert.equal('stringData' in s, false);
  const only: KubeObject = { stringData: { k: 'v' } };
  applyDefaults('secrets', only);
  assert.deepEqual(only.data, { k: 'dg==' });
});

test('DefaultTolerationSeconds adds not-ready and unreachable tolerations once', () => {
  const pod: KubeObject = { spec: {} };
  addDefaultTolerations(pod);
  assert.deepEqual((pod.spec as Record<string, unknown>).tolerations, [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  ]);
  addDefaultTolerations(pod);
  assert.equal(((pod.spec as Record<string, unknown>).tolerations as unknown[]).length, 2);
  const tolerant: KubeObject = { spec: { tolerations: [{ operator: 'Exists' }] } };
  addDefaultTolerations(tolerant);
  assert.equal(((tolerant.spec as Record<string, unknown>).tolerations as unknown[]).length, 1);
});

test('priority admission resolves classes, defaults to 0 and rejects unknown classes', () => {
  const pod: KubeObject = { metadata: { name: 'p' }, spec: {} };
  admitPodPriority(pod, () => undefined);
  assert.deepEqual(
    [(pod.spec as Record<string, unknown>).priority, (pod.spec as Record<string, unknown>).preemptionPolicy],
    [0, 'PreemptLowerPriority'],
  );
  const hi: KubeObject = { metadata: { name: 'p' }, spec: { priorityClassName: 'high' } };
  admitPodPriority(hi, (n) => (n === 'high' ? { name: 'high', value: 1000, preemptionPolicy: 'Never' } : undefined));
  assert.equal((hi.spec as Record<string, unknown>).priority, 1000);
  assert.throws(
    () => admitPodPriority({ metadata: { name: 'p' }, spec: { priorityClassName: 'x' } }, () => undefined),
    /no PriorityClass with name x was found/,
  );
});
