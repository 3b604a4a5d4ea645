import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusError } from '../status.js';
import {
  DEFINITIONS,
  definitionName,
  findUnknownFields,
  openapiV2Definitions,
  openapiV3Document,
  strictDecodingError,
} from './index.js';

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'p',
    labels: { a: 'b' },
    ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: 'u' }],
    managedFields: [{ fieldsV1: { 'f:any': {} } }],
  },
  spec: {
    containers: [
      {
        name: 'c',
        image: 'i',
        ports: [{ containerPort: 80 }],
        resources: { limits: { cpu: '1' } },
        livenessProbe: { httpGet: { port: 'http' } },
      },
    ],
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'In', values: ['v'] }] }],
        },
      },
    },
    volumes: [
      { name: 'v', emptyDir: {} },
      { name: 'g', gcePersistentDisk: { pdName: 'x' } },
    ],
  },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
};

test('a well-formed pod has no unknown fields', () => {
  assert.deepEqual(findUnknownFields('Pod', pod), []);
});

test('unknown fields are reported with their JSON paths', () => {
  const bad = structuredClone(pod) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  bad.spec.foo = 1;
  bad.spec.containers[0].bar = true;
  bad.spec.containers[0].ports[0].hostPorts = 1;
  bad.metadata.nme = 'typo';
  bad.extra = {};
  assert.deepEqual(findUnknownFields('Pod', bad), [
    'metadata.nme',
    'spec.containers[0].ports[0].hostPorts',
    'spec.containers[0].bar',
    'spec.foo',
    'extra',
  ]);
});

test('other kinds are checked by kind name or group', () => {
  assert.deepEqual(findUnknownFields('Deployment', { spec: { replicas: 1, template: { spec: { containerz: [] } } } }), [
    'spec.template.spec.containerz',
  ]);
  assert.deepEqual(
    findUnknownFields(
      'Lease',
      { spec: { holderIdentity: 'n', renewTime: '2024-01-01T00:00:00.000000Z', x: 1 } },
      'coordination.k8s.io',
    ),
    ['spec.x'],
  );
  assert.deepEqual(findUnknownFields('Unknown', { a: 1 }), []);
});

test('strict decoding error is the upstream 400', () => {
  const e = strictDecodingError(['spec.foo', 'spec.bar']);
  assert.ok(e instanceof StatusError);
  assert.equal(e.code, 400);
  assert.equal(e.message, 'strict decoding error: unknown field "spec.foo", unknown field "spec.bar"');
});

test('OpenAPI definitions carry GVKs and patch merge keys', () => {
  assert.equal(definitionName('apps', 'Deployment'), 'io.k8s.api.apps.v1.Deployment');
  const defs = openapiV2Definitions();
  assert.deepEqual(defs['io.k8s.api.core.v1.Pod']['x-kubernetes-group-version-kind'], [
    { group: '', kind: 'Pod', version: 'v1' },
  ]);
  assert.deepEqual(defs['io.k8s.api.autoscaling.v1.Scale']['x-kubernetes-group-version-kind'], [
    { group: 'autoscaling', kind: 'Scale', version: 'v1' },
  ]);
  const props = (n: string): Record<string, Record<string, unknown>> =>
    DEFINITIONS[n].properties as Record<string, Record<string, unknown>>;
  const spec = props('io.k8s.api.core.v1.PodSpec');
  assert.equal(spec.containers['x-kubernetes-patch-merge-key'], 'name');
  assert.equal(spec.containers['x-kubernetes-patch-strategy'], 'merge');
  assert.equal(spec.volumes['x-kubernetes-patch-strategy'], 'merge,retainKeys');
  assert.equal(spec.tolerations['x-kubernetes-patch-strategy'], undefined);
  assert.equal(props('io.k8s.api.core.v1.Container').ports['x-kubernetes-patch-merge-key'], 'containerPort');
  assert.equal(
    props('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta').finalizers['x-kubernetes-patch-strategy'],
    'merge',
  );
  assert.equal(
    props('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta').ownerReferences['x-kubernetes-patch-merge-key'],
    'uid',
  );
  assert.deepEqual(spec.nodeSelector, { type: 'object', additionalProperties: { type: 'string' } });
  // Every $ref resolves.
  const refs = JSON.stringify(defs).match(/#\/definitions\/[^"]+/g) ?? [];
  for (const r of refs) assert.ok(defs[r.slice('#/definitions/'.length)], r);
});

test('OpenAPI v3 group-version documents tag PATCH with the GVK and fieldValidation', () => {
  const doc = openapiV3Document('apps', 'v1')!;
  const paths = doc.paths as Record<string, Record<string, Record<string, unknown>>>;
  const patch = paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
  assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: 'apps', kind: 'Deployment', version: 'v1' });
  assert.ok((patch.parameters as { name: string }[]).some((p) => p.name === 'fieldValidation'));
  const schemas = (doc.components as { schemas: Record<string, unknown> }).schemas;
  assert.ok(schemas['io.k8s.api.core.v1.PodSpec']);
  assert.ok(!JSON.stringify(schemas).includes('#/definitions/'));
  assert.ok(openapiV3Document('', 'v1')!.paths);
  assert.equal(openapiV3Document('nope', 'v1'), undefined);
});
