/**
 * Kubernetes protobuf request bodies against a real `kscale server`: every
 * `kubectl create` generator (kubectl 1.32+ sends their bodies in protobuf)
 * creates what kubectl set, and raw protobuf requests get upstream's answers:
 * PUT decodes like POST, PATCH refuses protobuf (415), a protobuf-only Accept
 * gets 406, and malformed bodies get a 400 Status without hurting the server.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { kubectlPath, startServer, versionedKubectl, type TestServer, INSECURE_PORT } from './harness.js';
import { Kubectl } from './fixtures/kubectl/cli.js';
import { send, type Obj, type Reply } from './raw_http.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const TESTDATA = fileURLToPath(new URL('../../../src/api/protobuf/testdata/', import.meta.url));
const golden = (name: string): Buffer => readFileSync(`${TESTDATA}${name}.pb`);

/** A protobuf request as kubectl sends it: protobuf body, protobuf-then-JSON Accept. */
const proto = (
  base: string,
  method: string,
  path: string,
  body: Buffer,
  accept = `${PROTOBUF},application/json`,
): Promise<Reply> => send(base, method, path, body, { 'Content-Type': PROTOBUF, Accept: accept });

/** A runtime.Unknown envelope naming a kind kscale has no message for: typeMeta (field 1), then an empty raw (field 2). */
function unknownKindEnvelope(apiVersion: string, kind: string): Buffer {
  const str = (field: number, v: string): Buffer =>
    Buffer.concat([Buffer.of((field << 3) | 2, v.length), Buffer.from(v)]);
  const typeMeta = Buffer.concat([str(1, apiVersion), str(2, kind)]);
  return Buffer.concat([Buffer.of(0x6b, 0x38, 0x73, 0x00, 0x0a, typeMeta.length), typeMeta, Buffer.of(0x12, 0)]);
}

function assertStatus(r: Reply, code: number, reason: string, message?: RegExp): void {
  assert.equal(r.code, code, `HTTP ${r.code}: ${r.text.slice(0, 300)}`);
  assert.match(String(r.headers['content-type']), /^application\/json/);
  assert.equal(r.body?.kind, 'Status');
  assert.equal(r.body?.status, 'Failure');
  assert.equal(r.body?.code, code);
  assert.equal(r.body?.reason, reason);
  if (message !== undefined) assert.match(String(r.body?.message), message);
}

describe('kubectl create generators (protobuf bodies) against kscale server', () => {
  let server: TestServer;
  let k: Kubectl;

  before(async () => {
    server = await startServer([...INSECURE_PORT]);
    k = new Kubectl(kubectlPath(), server.kubeconfig);
  });

  after(async () => {
    await k?.close();
    await server?.stop();
  });

  test('kubectl really sends these bodies in protobuf', async () => {
    const r = await k.run(['create', 'namespace', 'wire-check', '-v=8']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /verb="POST" url="[^"]*\/api\/v1\/namespaces\?fieldManager=kubectl-create&fieldValidation=Strict" headers=<\n(\t[^\n]*\n)*?\tContent-Type: application\/vnd\.kubernetes\.protobuf\n/,
    );
    assert.match(r.stdout, /^namespace\/wire-check created$/m);
  });

  test('namespace, serviceaccount, configmap and secret', async () => {
    assert.match(await k.ok(['create', 'namespace', 'team-a']), /^namespace\/team-a created$/m);
    assert.equal((await k.getJSON(['namespace', 'team-a'])).status.phase, 'Active');
    assert.match(await k.ok(['create', 'serviceaccount', 'robot', '-n', 'team-a']), /^serviceaccount\/robot created$/m);
    assert.equal((await k.getJSON(['serviceaccount', 'robot', '-n', 'team-a'])).metadata.namespace, 'team-a');
    await k.ok(['create', 'configmap', 'cfg', '--from-literal=a=1', '--from-literal=b=two']);
    assert.deepEqual((await k.getJSON(['configmap', 'cfg'])).data, { a: '1', b: 'two' });
    await k.ok(['create', 'secret', 'generic', 'sec', '--from-literal=password=s3cr3t!', '--from-literal=user=admin']);
    const secret = await k.getJSON(['secret', 'sec']);
    assert.equal(secret.type, 'Opaque');
    assert.equal(Buffer.from(secret.data.password, 'base64').toString(), 's3cr3t!');
    assert.equal(Buffer.from(secret.data.user, 'base64').toString(), 'admin');
  });

  test('deployment and job', async () => {
    assert.match(
      await k.ok(['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=3', '--port=80']),
      /^deployment.apps\/web created$/m,
    );
    const d = await k.getJSON(['deployment', 'web', '--show-managed-fields']);
    assert.equal(d.spec.replicas, 3);
    assert.deepEqual(d.spec.selector, { matchLabels: { app: 'web' } });
    assert.equal(d.spec.template.spec.containers[0].image, 'nginx:1.27');
    assert.equal(d.spec.template.spec.containers[0].ports[0].containerPort, 80);
    assert.equal(d.spec.strategy.type, 'RollingUpdate', 'defaulting ran on the decoded object');
    assert.equal(d.metadata.managedFields[0].manager, 'kubectl-create');
    await k.ok(['create', 'job', 'hello', '--image=busybox', '--', 'echo', 'hi']);
    const j = await k.getJSON(['job', 'hello']);
    assert.deepEqual(j.spec.template.spec.containers[0].command, ['echo', 'hi']);
    assert.equal(j.spec.template.spec.restartPolicy, 'Never');
  });

  test('services: clusterip and nodeport', async () => {
    await k.ok(['create', 'service', 'clusterip', 'svc-a', '--tcp=80:8080']);
    const a = await k.getJSON(['service', 'svc-a']);
    assert.equal(a.spec.type, 'ClusterIP');
    assert.deepEqual(
      a.spec.ports.map((p: Obj) => [p.name, p.port, p.targetPort, p.protocol]),
      [['80-8080', 80, 8080, 'TCP']],
    );
    assert.match(a.spec.clusterIP, /^\d+\.\d+\.\d+\.\d+$/);
    await k.ok(['create', 'service', 'nodeport', 'svc-b', '--tcp=443:8443', '--node-port=30443']);
    const b = await k.getJSON(['service', 'svc-b']);
    assert.equal(b.spec.type, 'NodePort');
    assert.equal(b.spec.ports[0].nodePort, 30443);
    assert.equal(b.spec.ports[0].targetPort, 8443);
  });

  test('priorityclass and poddisruptionbudgets', async () => {
    await k.ok(['create', 'priorityclass', 'high', '--value=1000', '--description=high prio']);
    const pc = await k.getJSON(['priorityclass', 'high']);
    assert.equal(pc.value, 1000);
    assert.equal(pc.description, 'high prio');
    assert.equal(pc.globalDefault, undefined);
    await k.ok(['create', 'poddisruptionbudget', 'pdb-a', '--selector=app=web', '--min-available=2']);
    const a = await k.getJSON(['pdb', 'pdb-a']);
    assert.equal(a.spec.minAvailable, 2);
    assert.deepEqual(a.spec.selector, { matchLabels: { app: 'web' } });
    await k.ok(['create', 'poddisruptionbudget', 'pdb-b', '--selector=app=web', '--max-unavailable=30%']);
    assert.equal((await k.getJSON(['pdb', 'pdb-b'])).spec.maxUnavailable, '30%');
  });

  test('a second create is 409 AlreadyExists, and --dry-run=server stores nothing', async () => {
    assert.match(
      await k.fails(['create', 'configmap', 'cfg', '--from-literal=a=1']),
      /configmaps "cfg" already exists/,
    );
    assert.match(
      await k.ok(['create', 'configmap', 'dry', '--from-literal=a=1', '--dry-run=server']),
      /configmap\/dry created \(server dry run\)/,
    );
    assert.match(await k.fails(['get', 'configmap', 'dry']), /NotFound/);
  });

  test('kubectl 1.32 (the first to send protobuf) and 1.27 (JSON) generators work too', async () => {
    for (const minor of [32, 27]) {
      const old = new Kubectl(versionedKubectl(minor), server.kubeconfig);
      try {
        await old.ok(['create', 'deployment', `web-${minor}`, '--image=nginx:1.27', `--replicas=${minor}`]);
        assert.equal((await k.getJSON(['deployment', `web-${minor}`])).spec.replicas, minor);
        await old.ok(['create', 'configmap', `cfg-${minor}`, `--from-literal=minor=${minor}`]);
        assert.deepEqual((await k.getJSON(['configmap', `cfg-${minor}`])).data, { minor: String(minor) });
      } finally {
        await old.close();
      }
    }
  });

  test('kubectl create token: its protobuf TokenRequest gets a token for the named ServiceAccount', async () => {
    await k.ok(['create', 'serviceaccount', 'tokens']);
    const token = (await k.ok(['create', 'token', 'tokens'])).trim();
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Obj;
    assert.equal(claims.sub, 'system:serviceaccount:default:tokens');
    assert.equal(claims.exp - claims.iat, 3600);
  });
});

describe('raw protobuf requests', () => {
  let server: TestServer;

  before(async () => {
    server = await startServer([...INSECURE_PORT]);
  });

  after(async () => {
    await server?.stop();
  });

  test('POST of a captured body creates it and answers JSON; PUT of the same body updates it', async () => {
    const created = await proto(
      server.url,
      'POST',
      '/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create&fieldValidation=Strict',
      golden('create-configmap'),
    );
    assert.equal(created.code, 201, created.text);
    assert.match(String(created.headers['content-type']), /^application\/json/);
    assert.deepEqual(created.body?.data, { a: '1', b: 'two' });
    const put = await proto(server.url, 'PUT', '/api/v1/namespaces/default/configmaps/cfg', golden('create-configmap'));
    assert.equal(put.code, 200, put.text);
    assert.deepEqual(put.body?.data, { a: '1', b: 'two' });
    // Nothing changed, so, like upstream, the update writes nothing and the resourceVersion stays.
    assert.equal(put.body?.metadata.resourceVersion, created.body?.metadata.resourceVersion);
    // The body decodes; then, as upstream (namespaces do not allow create on update), a missing one is 404.
    assertStatus(
      await proto(server.url, 'PUT', '/api/v1/namespaces/team-a', golden('create-namespace')),
      404,
      'NotFound',
    );
  });

  test('a body whose kind differs from the URL is 400, and the URL namespace must match', async () => {
    assertStatus(
      await proto(server.url, 'POST', '/api/v1/namespaces/default/secrets', golden('create-configmap')),
      400,
      'BadRequest',
      /kind/,
    );
    assertStatus(
      await proto(server.url, 'POST', '/apis/apps/v1/namespaces/default/deployments', golden('create-job')),
      400,
      'BadRequest',
      /version|kind/,
    );
    assertStatus(
      await proto(server.url, 'PUT', '/api/v1/namespaces/default/configmaps/other', golden('create-configmap')),
      400,
      'BadRequest',
      /does not match the name/,
    );
  });

  test('malformed bodies are 400 BadRequest Statuses and the server keeps serving', async () => {
    const body = golden('create-deployment');
    const path = '/apis/apps/v1/namespaces/default/deployments';
    const cases: [string, Buffer, RegExp][] = [
      [
        'no magic',
        Buffer.from('{"kind":"Deployment","apiVersion":"apps/v1"}'),
        /does not appear to be a protobuf message/,
      ],
      ['truncated', body.subarray(0, body.length - 40), /EOF|past the end/],
      ['a truncated varint', Buffer.concat([body.subarray(0, 29), Buffer.from([0xff])]), /EOF|past the end/],
      ['an illegal wire type', Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), Buffer.from([0x0f])]), /wireType/],
      [
        'an unknown kind',
        unknownKindEnvelope('node.k8s.io/v1', 'RuntimeClass'),
        /no kind "RuntimeClass" is registered/,
      ],
      [
        'garbage',
        Buffer.from([0x6b, 0x38, 0x73, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]),
        /proto/,
      ],
    ];
    for (const [what, bytes, message] of cases) {
      const r = await proto(server.url, 'POST', path, bytes);
      assert.equal(r.code, 400, `${what}: ${r.text}`);
      assertStatus(r, 400, 'BadRequest', message);
    }
    assertStatus(await proto(server.url, 'POST', path, Buffer.alloc(0)), 400, 'BadRequest', /empty/);
    assert.equal(server.process.exitCode, null);
    const ok = await proto(server.url, 'POST', path, body);
    assert.equal(ok.code, 201, ok.text);
  });

  test('an unknown field number is ignored even with fieldValidation=Strict, as upstream (no strict protobuf decoding)', async () => {
    // The namespace golden with field 99 (varint) appended to the Namespace message: the envelope's raw grows by 3 bytes.
    const ns = golden('create-namespace');
    const typeMetaEnd = 4 + 2 + ns[5]!;
    assert.equal(ns[typeMetaEnd], 0x12);
    const rawLen = ns[typeMetaEnd + 1]!;
    assert.ok(rawLen + 3 < 0x80, 'a one-byte length');
    const raw = Buffer.concat([
      ns.subarray(typeMetaEnd + 2, typeMetaEnd + 2 + rawLen),
      Buffer.from([0x98, 0x06, 0x01]),
    ]);
    const bytes = Buffer.concat([
      ns.subarray(0, typeMetaEnd),
      Buffer.from([0x12, raw.length]),
      raw,
      ns.subarray(typeMetaEnd + 2 + rawLen),
    ]);
    const r = await proto(server.url, 'POST', '/api/v1/namespaces?fieldValidation=Strict', bytes);
    assert.equal(r.code, 201, r.text);
    assert.equal(r.body?.metadata.name, 'team-a');
  });

  test('PATCH refuses protobuf (415), on the object and on the scale subresource', async () => {
    await proto(server.url, 'POST', '/apis/apps/v1/namespaces/default/deployments', golden('create-deployment'));
    assertStatus(
      await proto(server.url, 'PATCH', '/apis/apps/v1/namespaces/default/deployments/web', golden('create-deployment')),
      415,
      'UnsupportedMediaType',
    );
    assertStatus(
      await proto(
        server.url,
        'PATCH',
        '/apis/apps/v1/namespaces/default/deployments/web/scale',
        golden('create-deployment'),
      ),
      415,
      'UnsupportedMediaType',
    );
  });

  test('an Accept list of protobuf only is 406 NotAcceptable; protobuf then JSON is answered in JSON', async () => {
    assertStatus(
      await send(server.url, 'GET', '/api/v1/namespaces/default/configmaps', undefined, { Accept: PROTOBUF }),
      406,
      'NotAcceptable',
    );
    assertStatus(
      await proto(server.url, 'POST', '/api/v1/namespaces/default/configmaps', golden('create-configmap'), PROTOBUF),
      406,
      'NotAcceptable',
    );
    const list = await send(server.url, 'GET', '/api/v1/namespaces/default/configmaps', undefined, {
      Accept: `${PROTOBUF}, application/json`,
    });
    assert.equal(list.code, 200);
    assert.equal(list.body?.kind, 'ConfigMapList');
    const star = await send(server.url, 'GET', '/api/v1/namespaces/default/configmaps', undefined, {
      Accept: `${PROTOBUF}, */*`,
    });
    assert.equal(star.code, 200);
  });
});
