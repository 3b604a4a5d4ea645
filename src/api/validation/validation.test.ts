import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyDefaults } from '../defaults.js';
import { StatusError } from '../status.js';
import type { KubeObject } from '../types.js';
import { errorString, throwIfInvalid, validateCreate, validateStatusUpdate, validateUpdate } from './index.js';

const pod = (spec: Record<string, unknown> = {}, name = 'p'): KubeObject =>
  applyDefaults('pods', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
  });
const texts = (resource: string, o: KubeObject, old?: KubeObject): string[] =>
  (old ? validateUpdate(resource, o, old) : validateCreate(resource, o)).map(errorString);

test('a defaulted minimal pod is valid', () => {
  assert.deepEqual(texts('pods', pod()), []);
});

test('missing container name gives the exact upstream cause and 422', () => {
  const p = pod({ containers: [{ image: 'nginx' }] }, 'x');
  const errs = validateCreate('pods', p);
  assert.deepEqual(errs.map(errorString), ['spec.containers[0].name: Required value']);
  assert.throws(
    () => throwIfInvalid({ group: '', kind: 'Pod' }, 'x', errs),
    (e: unknown) =>
      e instanceof StatusError &&
      e.code === 422 &&
      e.message === 'Pod "x" is invalid: spec.containers[0].name: Required value' &&
      JSON.stringify(e.status.details) ===
        JSON.stringify({
          name: 'x',
          kind: 'Pod',
          causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers[0].name' }],
        }),
  );
});

test('pod spec rules: containers, names, images, ports, enums, resources', () => {
  assert.deepEqual(texts('pods', pod({ containers: [] })), ['spec.containers: Required value']);
  assert.deepEqual(
    texts(
      'pods',
      pod({
        containers: [
          { name: 'c', image: 'a' },
          { name: 'c', image: 'b' },
        ],
      }),
    ),
    ['spec.containers[1].name: Duplicate value: "c"'],
  );
  assert.match(
    texts('pods', pod({ containers: [{ name: 'Bad', image: 'a' }] }))[0],
    /^spec.containers\[0\].name: Invalid value: "Bad": a lowercase RFC 1123 label/,
  );
  assert.deepEqual(texts('pods', pod({ containers: [{ name: 'c', image: '' }] })), [
    'spec.containers[0].image: Required value',
  ]);
  assert.deepEqual(
    texts('pods', pod({ containers: [{ name: 'c', image: 'a', ports: [{ containerPort: 70000, protocol: 'TCP' }] }] })),
    ['spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive'],
  );
  assert.deepEqual(texts('pods', pod({ restartPolicy: 'Sometimes' })), [
    'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
  ]);
  assert.deepEqual(
    texts(
      'pods',
      pod({ containers: [{ name: 'c', image: 'a', resources: { requests: { cpu: '2' }, limits: { cpu: '1' } } }] }),
    ),
    ['spec.containers[0].resources.requests[cpu]: Invalid value: "2": must be less than or equal to cpu limit of 1'],
  );
  assert.match(
    texts('pods', pod({ containers: [{ name: 'c', image: 'a', resources: { limits: { memory: '1GB' } } }] }))[0],
    /limits\[memory\]: Invalid value: "1GB": quantities must match/,
  );
  assert.deepEqual(texts('pods', pod({ tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }] })), [
    'spec.tolerations[0].operator: Invalid value: "v": value must be empty when `operator` is \'Exists\'',
  ]);
});

test('metadata rules: name required, namespaces, labels and annotations', () => {
  const p = pod();
  p.metadata = { namespace: 'default', labels: { 'bad key!': 'v', ok: 'bad value!' } };
  const t = texts('pods', p);
  assert.equal(t[0], 'metadata.name: Required value: name or generateName is required');
  assert.ok(t.some((x) => x.startsWith('metadata.labels: Invalid value: "bad key!": name part must consist of')));
  assert.ok(
    t.some((x) => x.startsWith('metadata.labels: Invalid value: "bad value!": a valid label must be an empty string')),
  );
  const big = pod();
  big.metadata!.annotations = { a: 'x'.repeat(256 * 1024) };
  assert.deepEqual(texts('pods', big), ['metadata.annotations: Too long: may not be more than 262144 bytes']);
  const node: KubeObject = { metadata: { name: 'n', namespace: 'x' } };
  assert.deepEqual(texts('nodes', node), ['metadata.namespace: Forbidden: not allowed on this type']);
  assert.match(
    texts('namespaces', { metadata: { name: 'a.b' } })[0],
    /metadata.name: Invalid value: "a.b": a lowercase RFC 1123 label/,
  );
});

test('pod updates may only change images, deadlines, added tolerations and removed gates', () => {
  const old = pod({ schedulingGates: [{ name: 'g' }] });
  old.metadata!.uid = 'u1';
  const same = structuredClone(old);
  (same.spec as { containers: { image: string }[] }).containers[0].image = 'nginx:2';
  (same.spec as Record<string, unknown>).schedulingGates = [];
  (same.spec as Record<string, unknown>).tolerations = [{ key: 'a', operator: 'Exists' }];
  assert.deepEqual(texts('pods', same, old), []);
  const moved = structuredClone(old);
  (moved.spec as Record<string, unknown>).nodeName = 'n1';
  assert.match(
    texts('pods', moved, old)[0],
    /^spec: Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`/,
  );
  const renamed = structuredClone(old);
  renamed.metadata!.uid = 'u2';
  assert.deepEqual(texts('pods', renamed, old), ['metadata.uid: Invalid value: "u2": field is immutable']);
  const gated = structuredClone(old);
  (gated.spec as Record<string, unknown>).schedulingGates = [{ name: 'g' }, { name: 'h' }];
  assert.ok(
    texts('pods', gated, old).includes(
      "spec.schedulingGates: Forbidden: only deletion is allowed, but found new scheduling gate 'h'",
    ),
  );
  assert.deepEqual(validateStatusUpdate('pods', { ...old, status: { phase: 'Running' } }, old), []);
});

test('service rules', () => {
  const svc = (spec: Record<string, unknown>, name = 's'): KubeObject =>
    applyDefaults('services', { metadata: { name, namespace: 'default' }, spec });
  assert.deepEqual(texts('services', svc({ ports: [{ port: 80 }] })), []);
  assert.deepEqual(texts('services', svc({})), ['spec.ports: Required value']);
  assert.deepEqual(texts('services', svc({ clusterIP: 'None' })), []);
  assert.deepEqual(texts('services', svc({ ports: [{ port: 0 }] })), [
    'spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
  ]);
  assert.deepEqual(texts('services', svc({ type: 'Magic', ports: [{ port: 80 }] })), [
    'spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
  ]);
  assert.deepEqual(texts('services', svc({ ports: [{ port: 80 }, { port: 81 }] })), [
    'spec.ports[0].name: Required value',
    'spec.ports[1].name: Required value',
  ]);
  assert.match(texts('services', svc({ ports: [{ port: 80 }] }, '1svc'))[0], /a DNS-1035 label/);
  const old = svc({ clusterIP: '10.0.0.1', ports: [{ port: 80 }] });
  // Upstream's text, which kubectl's own tests match: the primary cluster IP "may not change once set".
  assert.deepEqual(texts('services', svc({ clusterIP: '10.0.0.2', ports: [{ port: 80 }] }), old), [
    'spec.clusterIPs[0]: Invalid value: []string{"10.0.0.2"}: may not change once set',
  ]);
  const dual = svc({ clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1', 'fd00::1'], ports: [{ port: 80 }] });
  assert.deepEqual(
    texts('services', svc({ clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1', 'fd00::2'], ports: [{ port: 80 }] }), dual),
    ['spec.clusterIPs[1]: Invalid value: []string{"10.0.0.1", "fd00::2"}: may not change once set'],
  );
  assert.deepEqual(
    texts('services', svc({ clusterIP: '', ports: [{ port: 80 }] }), old),
    [],
    'an empty clusterIP keeps the allocated one',
  );
  assert.deepEqual(
    texts(
      'services',
      svc({ type: 'ExternalName', externalName: 'x.example.com', clusterIP: '10.0.0.9', ports: [{ port: 80 }] }),
      old,
    ).filter((t) => /change once set/.test(t)),
    [],
  );
});

test('deployment and replicaset rules', () => {
  const dep = (spec: Record<string, unknown>): KubeObject =>
    applyDefaults('deployments', {
      metadata: { name: 'd', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'a' } },
        template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
        ...spec,
      },
    });
  assert.deepEqual(texts('deployments', dep({})), []);
  assert.deepEqual(texts('deployments', dep({ replicas: -1 })), [
    'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
  ]);
  assert.deepEqual(texts('deployments', dep({ selector: undefined })), ['spec.selector: Required value']);
  assert.deepEqual(texts('deployments', dep({ selector: { matchLabels: { app: 'b' } } })), [
    'spec.template.metadata.labels: Invalid value: map[string]string{"app":"a"}: `selector` does not match template `labels`',
  ]);
  assert.ok(
    texts('deployments', dep({ selector: {} })).includes(
      'spec.selector: Invalid value: map[string]string{}: empty selector is invalid for deployment',
    ),
  );
  const d = dep({});
  (d.spec as { template: { spec: Record<string, unknown> } }).template.spec.restartPolicy = 'Never';
  assert.deepEqual(texts('deployments', d), [
    'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
  ]);
  assert.ok(
    texts('deployments', dep({ selector: { matchLabels: { app: 'a', x: 'y' } } }), dep({})).some((t) =>
      t.startsWith('spec.selector: Invalid value'),
    ),
  );
});

test('job rules', () => {
  const job = (restartPolicy: string): KubeObject =>
    applyDefaults('jobs', {
      metadata: { name: 'j', namespace: 'default' },
      spec: {
        selector: { matchLabels: { j: 'j' } },
        template: {
          metadata: { labels: { j: 'j' } },
          spec: { restartPolicy, containers: [{ name: 'c', image: 'x' }] },
        },
      },
    });
  assert.deepEqual(texts('jobs', job('Never')), []);
  assert.deepEqual(texts('jobs', job('Always')), [
    'spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"',
  ]);
  const changed = job('Never');
  (changed.spec as Record<string, unknown>).selector = { matchLabels: { j: 'k' } };
  assert.ok(texts('jobs', changed, job('Never')).some((t) => t.startsWith('spec.selector: Invalid value')));
});

test('configmap and secret immutability', () => {
  const cm = (data: Record<string, string>, immutable?: boolean): KubeObject => ({
    metadata: { name: 'c', namespace: 'd' },
    data,
    immutable,
  });
  assert.deepEqual(texts('configmaps', cm({ a: '1' }), cm({ a: '0' })), []);
  assert.deepEqual(texts('configmaps', cm({ a: '1' }, true), cm({ a: '0' }, true)), [
    'data: Forbidden: field is immutable when `immutable` is set',
  ]);
  assert.match(
    texts('configmaps', cm({ 'bad key': '1' }))[0],
    /^data\[bad key\]: Invalid value: "bad key": a valid config key/,
  );
  const sec = (type: string): KubeObject => applyDefaults('secrets', { metadata: { name: 's', namespace: 'd' }, type });
  assert.deepEqual(texts('secrets', sec('other'), sec('Opaque')), ['type: Invalid value: "other": field is immutable']);
});

test('lease, endpointslice, priorityclass and pdb rules', () => {
  assert.deepEqual(
    texts('leases', { metadata: { name: 'n', namespace: 'kube-node-lease' }, spec: { leaseDurationSeconds: 0 } }),
    ['spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0'],
  );
  assert.deepEqual(texts('endpointslices', { metadata: { name: 'e', namespace: 'd' }, addressType: 'IPv5' }), [
    'addressType: Unsupported value: "IPv5": supported values: "IPv4", "IPv6", "FQDN"',
  ]);
  assert.deepEqual(
    texts('endpointslices', {
      metadata: { name: 'e', namespace: 'd' },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.300'] }],
    }),
    ['endpoints[0].addresses[0]: Invalid value: "10.0.0.300": must be a valid IPv4 address'],
  );
  assert.deepEqual(texts('priorityclasses', { metadata: { name: 'high' }, value: 2_000_000_000 }), [
    'value: Forbidden: maximum allowed value of a user defined priority is 1000000000',
  ]);
  assert.deepEqual(texts('priorityclasses', { metadata: { name: 'system-node-critical' }, value: 2_000_001_000 }), []);
  assert.deepEqual(
    texts('poddisruptionbudgets', { metadata: { name: 'p', namespace: 'd' }, spec: { minAvailable: '150%' } }),
    ['spec.minAvailable: Invalid value: "150%": must not be greater than 100%'],
  );
});

test('a null in a list of objects is validated as an empty element, not a crash (fuzz seed 546289175)', () => {
  const svc = (ports: unknown[]): KubeObject =>
    applyDefaults('services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's', namespace: 'default' },
      spec: { selector: { app: 'web' }, ports },
    });
  const errs = texts('services', svc([null]));
  assert.ok(
    errs.some((e) => e.startsWith('spec.ports[0].port: Invalid value: 0')),
    errs.join('; '),
  );
  const two = texts('services', svc([{ name: 'a', port: 80 }, null]));
  assert.ok(
    two.some((e) => e.startsWith('spec.ports[1].name: Required value')),
    two.join('; '),
  );
  assert.ok(!two.some((e) => e.startsWith('spec.ports[0]')), two.join('; '));
  const p = pod({ containers: [{ name: 'c', image: 'nginx', ports: [null] }] });
  assert.ok(texts('pods', p).length > 0);
});
