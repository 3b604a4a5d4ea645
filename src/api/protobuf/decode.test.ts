import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { decodeProtobufObject, formatDuration, ProtobufError } from './index.js';

/** The goldens beside this file's source (tests run from dist/). */
const TESTDATA = fileURLToPath(new URL('../../../../src/api/protobuf/testdata/', import.meta.url));
const golden = (name: string): Buffer => readFileSync(`${TESTDATA}${name}.pb`);
const expected = (name: string): unknown => JSON.parse(readFileSync(`${TESTDATA}${name}.json`, 'utf8'));

describe('decodeProtobufObject on bodies the real kubectl sent', () => {
  const names = readdirSync(TESTDATA)
    .filter((f) => f.endsWith('.pb'))
    .map((f) => f.slice(0, -3));

  test('there are goldens for every kubectl create generator kscale serves', () => {
    for (const n of [
      'namespace',
      'deployment',
      'job',
      'configmap',
      'secret',
      'service-clusterip',
      'service-nodeport',
      'serviceaccount',
      'priorityclass',
      'pdb-minavailable',
      'pdb-maxunavailable',
    ]) {
      assert.ok(names.includes(`create-${n}`), `create-${n}.pb missing`);
    }
  });

  for (const name of names.filter((n) => n !== 'create-tokenrequest')) {
    test(`${name} decodes to kubectl's own JSON of the same object, key order included`, () => {
      const got = decodeProtobufObject(golden(name));
      assert.deepEqual(got, expected(name));
      assert.equal(JSON.stringify(got), JSON.stringify(expected(name)));
    });
  }

  test('create-tokenrequest (kubectl create token) decodes to a TokenRequest with an empty spec', () => {
    assert.deepEqual(decodeProtobufObject(golden('create-tokenrequest')), {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: {},
      status: { token: '', expirationTimestamp: null },
    });
  });

  test('a kind kscale has no message for (RuntimeClass) is an error naming kind and version', () => {
    // A runtime.Unknown envelope by hand: typeMeta {apiVersion, kind} (field 1), then an empty raw object (field 2).
    const str = (field: number, v: string): Buffer =>
      Buffer.concat([Buffer.of((field << 3) | 2, v.length), Buffer.from(v)]);
    const typeMeta = Buffer.concat([str(1, 'node.k8s.io/v1'), str(2, 'RuntimeClass')]);
    const body = Buffer.concat([
      Buffer.from('k8s\0', 'latin1'),
      Buffer.of(0x0a, typeMeta.length),
      typeMeta,
      Buffer.of(0x12, 0),
    ]);
    assert.throws(
      () => decodeProtobufObject(body),
      (err: Error) => {
        assert.ok(err instanceof ProtobufError);
        assert.match(err.message, /no kind "RuntimeClass" is registered for version "node.k8s.io\/v1"/);
        return true;
      },
    );
  });

  test('the special types come out in their JSON form', () => {
    const job = decodeProtobufObject(golden('create-job-from-cronjob')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const tpl = job.spec.template;
    assert.equal(tpl.metadata.creationTimestamp, '2026-12-03T07:20:01Z');
    assert.deepEqual(tpl.metadata.managedFields[0].fieldsV1, { 'f:metadata': { 'f:labels': { 'f:app': {} } } });
    const c = tpl.spec.containers[0];
    assert.equal(c.resources.requests.cpu, '250m');
    assert.equal(c.livenessProbe.httpGet.port, 'http');
    assert.equal(c.readinessProbe.tcpSocket.port, 8080);
    assert.equal(tpl.spec.priority, -5);
    assert.equal(tpl.spec.tolerations[0].tolerationSeconds, -1);
    assert.equal(job.spec.activeDeadlineSeconds, 9007199254740000);
    assert.equal(job.spec.backoffLimit, 0, 'a pointer set to zero is kept');
    assert.equal(job.spec.suspend, false, 'a pointer set to false is kept');
    assert.deepEqual(job.spec.podFailurePolicy.rules[0].onExitCodes.values, [1, 2, 255]);
    assert.equal(tpl.spec.volumes[0].emptyDir.sizeLimit, '10Mi', 'the inline VolumeSource is merged into the volume');
    const secret = decodeProtobufObject(golden('create-secret')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    assert.equal(Buffer.from(secret.data.password, 'base64').toString(), 's3cr3t!');
  });
});

describe('decodeProtobufObject on malformed bodies', () => {
  const deployment = golden('create-deployment');

  test('a body without the k8s\\0 magic is refused', () => {
    assert.throws(
      () => decodeProtobufObject(Buffer.from('{"kind":"Deployment"}')),
      /does not appear to be a protobuf message/,
    );
    assert.throws(() => decodeProtobufObject(Buffer.from([0x6b, 0x38])), /does not appear to be a protobuf message/);
  });

  test('every truncation of a real body is a ProtobufError, never another exception or a silent success', () => {
    // The envelope is magic, typeMeta (field 1), raw (field 2), then contentEncoding and contentType, both
    // empty (2 bytes each). Only cuts at those field boundaries are still valid protobuf.
    const typeMetaEnd = 4 + 2 + deployment[5]!;
    const rawEnd = deployment.length - 4;
    const full = expected('create-deployment');
    const valid = new Map<number, unknown>([
      [typeMetaEnd, { kind: 'Deployment', apiVersion: 'apps/v1' }],
      [rawEnd, full],
      [rawEnd + 2, full],
    ]);
    for (let n = 4; n < deployment.length; n++) {
      let decoded: unknown;
      try {
        decoded = decodeProtobufObject(deployment.subarray(0, n));
      } catch (err) {
        assert.ok(err instanceof ProtobufError, `cut at ${n}: ${String(err)}`);
        assert.ok(!valid.has(n), `cut at ${n} is a field boundary: ${String(err)}`);
        continue;
      }
      assert.ok(valid.has(n), `cut at ${n} decoded`);
      assert.deepEqual(decoded, valid.get(n));
    }
  });

  test('a wrong wire type for a known field is refused with the field named', () => {
    // ObjectMeta.name (field 1, a string) sent as a varint.
    const raw = Buffer.from([0x0a, 0x02, 0x08, 0x05]);
    const body = envelope('v1', 'Namespace', raw);
    assert.throws(() => decodeProtobufObject(body), /wrong wireType = 0 for field name in ObjectMeta/);
  });

  test('a truncated varint and an illegal wire type are refused', () => {
    assert.throws(
      () => decodeProtobufObject(envelope('v1', 'Namespace', Buffer.from([0x0a, 0x02, 0x38, 0xff]))),
      /unexpected EOF in a varint/,
    );
    assert.throws(() => decodeProtobufObject(envelope('v1', 'Namespace', Buffer.from([0x2f]))), /illegal wireType 7/);
    assert.throws(
      () => decodeProtobufObject(envelope('v1', 'Namespace', Buffer.from([0x0a, 0x7f]))),
      /runs past the end/,
    );
  });

  test('unknown field numbers are skipped, as gogo-generated Unmarshal does', () => {
    // Namespace{metadata{name:"a", field 99: varint 1}, field 50: bytes "zz"}
    const raw = Buffer.from([0x0a, 0x06, 0x0a, 0x01, 0x61, 0x98, 0x06, 0x01, 0x92, 0x03, 0x02, 0x7a, 0x7a]);
    assert.deepEqual(decodeProtobufObject(envelope('v1', 'Namespace', raw)), {
      kind: 'Namespace',
      apiVersion: 'v1',
      metadata: { name: 'a' },
    });
  });

  test('an unknown kind, a missing kind and a content encoding are refused', () => {
    assert.throws(
      () => decodeProtobufObject(envelope('apps/v1', 'Pod', Buffer.alloc(0))),
      /no kind "Pod" is registered for version "apps\/v1"/,
    );
    assert.throws(() => decodeProtobufObject(envelope('v1', '', Buffer.alloc(0))), /Kind' is missing/);
    const gz = Buffer.concat([
      envelope('v1', 'Namespace', Buffer.alloc(0)),
      Buffer.from([0x1a, 0x04]),
      Buffer.from('gzip'),
    ]);
    assert.throws(() => decodeProtobufObject(gz), /content encoding "gzip"/);
  });

  test('a map key "__proto__" is an own key, as JSON.parse makes it, and pollutes nothing', () => {
    // ConfigMap{data: {"__proto__": "x"}}: field 2, a map entry {key 1, value 2}.
    const entry = Buffer.concat([Buffer.from([0x0a, 0x09]), Buffer.from('__proto__'), Buffer.from([0x12, 0x01, 0x78])]);
    const cm = decodeProtobufObject(
      envelope('v1', 'ConfigMap', Buffer.concat([Buffer.from([0x12, entry.length]), entry])),
    ) as { data: object };
    assert.deepEqual(Object.keys(cm.data), ['__proto__']);
    assert.equal(Object.getPrototypeOf(cm.data), Object.prototype);
    assert.deepEqual(cm, JSON.parse('{"kind":"ConfigMap","apiVersion":"v1","data":{"__proto__":"x"}}'));
  });

  test('DeleteOptions decodes under any group version, as upstream registers it in each', () => {
    // DeleteOptions{gracePeriodSeconds: 0 (field 1), propagationPolicy: "Background" (field 4)}
    const raw = Buffer.concat([Buffer.from([0x08, 0x00, 0x22, 0x0a]), Buffer.from('Background')]);
    assert.deepEqual(decodeProtobufObject(envelope('apps/v1', 'DeleteOptions', raw)), {
      kind: 'DeleteOptions',
      apiVersion: 'apps/v1',
      gracePeriodSeconds: 0,
      propagationPolicy: 'Background',
    });
  });
});

describe('MicroTime', () => {
  test('a Lease renewTime is RFC 3339 with microseconds in UTC, as metav1.MicroTime writes it', () => {
    // No kubectl command sends a Lease, so this message is built here: LeaseSpec{holderIdentity "node-a",
    // renewTime {seconds, nanos}}; upstream truncates nanoseconds to microseconds.
    const seconds = Date.UTC(2026, 11, 3, 7, 20, 1) / 1000;
    const ts = Buffer.concat([Buffer.from([0x08]), varint(seconds), Buffer.from([0x10]), varint(123_456_789)]);
    const spec = Buffer.concat([Buffer.from([0x0a, 0x06]), Buffer.from('node-a'), Buffer.from([0x22, ts.length]), ts]);
    const lease = decodeProtobufObject(
      envelope('coordination.k8s.io/v1', 'Lease', Buffer.concat([Buffer.from([0x12, spec.length]), spec])),
    );
    assert.deepEqual(lease, {
      kind: 'Lease',
      apiVersion: 'coordination.k8s.io/v1',
      spec: { holderIdentity: 'node-a', renewTime: '2026-12-03T07:20:01.123456Z' },
    });
  });
});

describe('formatDuration', () => {
  test('writes Go time.Duration.String() forms', () => {
    assert.equal(formatDuration(0), '0s');
    assert.equal(formatDuration(1500), '1.5µs');
    assert.equal(formatDuration(2_000_000), '2ms');
    assert.equal(formatDuration(90e9), '1m30s');
    assert.equal(formatDuration(3600e9), '1h0m0s');
    assert.equal(formatDuration(3725.5e9), '1h2m5.5s');
    assert.equal(formatDuration(-5e9), '-5s');
    assert.equal(formatDuration(999), '999ns');
  });
});

/** A protobuf envelope around `raw`, built field by field (only for the malformed-input cases; goldens come from kubectl). */
function envelope(apiVersion: string, kind: string, raw: Buffer): Buffer {
  const field = (n: number, b: Buffer): Buffer => Buffer.concat([Buffer.from([(n << 3) | 2, b.length]), b]);
  const typeMeta = Buffer.concat([field(1, Buffer.from(apiVersion)), field(2, Buffer.from(kind))]);
  return Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), field(1, typeMeta), field(2, raw)]);
}

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return Buffer.from(out);
}
