/**
 * Writes to the status subresource against a real `kscale server`: every
 * patch type and PUT change the status and nothing else, keep metadata's
 * preconditions and generation, record the manager against the status
 * subresource, and leave the object's other fields (spec) as they were, also
 * when the patch names them. A kubelet's status patch (metadata and status
 * only) and a patch naming spec must give the same stored status.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer, INSECURE_PORT } from './harness.js';
import { send, type Obj } from './raw_http.js';

const PODS = '/api/v1/namespaces/default/pods';
const MERGE = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';

let server: TestServer;
before(async () => {
  server = await startServer([...INSECURE_PORT]);
});
after(async () => {
  await server.stop();
});

async function createPod(name: string): Promise<Obj> {
  const body = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'a' } },
    spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'img:1', env: [{ name: 'A', value: '1' }] }] },
  };
  const r = await send(server.url, 'POST', PODS, JSON.stringify(body), { 'Content-Type': 'application/json' });
  assert.equal(r.code, 201, r.text);
  return r.body!;
}

function patchStatus(name: string, type: string, patch: unknown, manager = 'kubelet'): ReturnType<typeof send> {
  return send(server.url, 'PATCH', `${PODS}/${name}/status?fieldManager=${manager}`, JSON.stringify(patch), {
    'Content-Type': type,
  });
}

const readyCondition = { type: 'Ready', status: 'True', lastTransitionTime: '2026-12-04T00:00:00Z' };

/** The managed fields entry of `manager`. */
function entryOf(obj: Obj, manager: string): Obj | undefined {
  return (obj.metadata.managedFields as Obj[]).find((e) => e.manager === manager);
}

test('a kubelet-style strategic status patch (metadata uid + status) changes only the status and records the manager on the status subresource', async () => {
  const pod = await createPod('st-kubelet');
  const r = await patchStatus('st-kubelet', STRATEGIC, {
    metadata: { uid: pod.metadata.uid },
    status: { phase: 'Running', podIP: '10.0.0.7', conditions: [readyCondition] },
  });
  assert.equal(r.code, 200, r.text);
  const got = r.body!;
  assert.equal(got.status.phase, 'Running');
  assert.equal(got.status.podIP, '10.0.0.7');
  assert.deepEqual(
    got.status.conditions.map((c: Obj) => c.type),
    ['Ready'],
  );
  assert.deepEqual(got.spec, pod.spec, 'spec is untouched');
  assert.deepEqual(got.metadata.labels, pod.metadata.labels);
  assert.equal(got.metadata.generation, pod.metadata.generation, 'a status write does not bump generation');
  assert.notEqual(got.metadata.resourceVersion, pod.metadata.resourceVersion);
  const entry = entryOf(got, 'kubelet');
  assert.ok(entry !== undefined, 'the kubelet manages fields now');
  assert.equal(entry.subresource, 'status');
  assert.deepEqual(Object.keys(entry.fieldsV1), ['f:status'], 'it owns status fields only');
  assert.ok('f:podIP' in entry.fieldsV1['f:status']);
  // What is stored is what was answered.
  const again = await send(server.url, 'GET', `${PODS}/st-kubelet`);
  assert.deepEqual(again.body, got);
});

test('a status patch that also names spec or labels ignores all but the status, as upstream', async () => {
  await createPod('st-spec');
  const r = await patchStatus('st-spec', STRATEGIC, {
    metadata: { labels: { app: 'changed' } },
    spec: { containers: [{ name: 'c', image: 'img:2' }] },
    status: { phase: 'Running' },
  });
  assert.equal(r.code, 200, r.text);
  assert.equal(r.body!.status.phase, 'Running');
  assert.equal(r.body!.spec.containers[0].image, 'img:1');
  assert.deepEqual(r.body!.spec.containers[0].env, [{ name: 'A', value: '1' }]);
  assert.equal(r.body!.metadata.labels.app, 'a');
  const m = await patchStatus('st-spec', MERGE, { spec: { nodeName: 'elsewhere' }, status: { podIP: '10.0.0.9' } });
  assert.equal(m.code, 200, m.text);
  assert.equal(m.body!.spec.nodeName, 'node-1');
  assert.equal(m.body!.status.podIP, '10.0.0.9');
  assert.equal(m.body!.status.phase, 'Running', 'a merge patch keeps the status fields it does not name');
});

test('merge and strategic status patches of metadata and status give the same stored status', async () => {
  const status = {
    phase: 'Running',
    hostIP: '192.168.0.1',
    conditions: [readyCondition],
    containerStatuses: [
      {
        name: 'c',
        ready: true,
        restartCount: 0,
        image: 'img:1',
        imageID: '',
        started: true,
        state: { running: { startedAt: '2026-12-04T00:00:00Z' } },
        lastState: {},
      },
    ],
  };
  const a = await createPod('st-merge');
  const b = await createPod('st-strategic');
  const ra = await patchStatus('st-merge', MERGE, { metadata: { uid: a.metadata.uid }, status });
  const rb = await patchStatus('st-strategic', STRATEGIC, { metadata: { uid: b.metadata.uid }, status });
  assert.equal(ra.code, 200, ra.text);
  assert.equal(rb.code, 200, rb.text);
  assert.deepEqual(ra.body!.status, rb.body!.status);
  assert.deepEqual(ra.body!.status.containerStatuses[0].state, { running: { startedAt: '2026-12-04T00:00:00Z' } });
  // Strategic merge merges conditions by type; merge patch replaces the list.
  const probe = { type: 'ContainersReady', status: 'True', lastTransitionTime: '2026-12-04T00:00:01Z' };
  const sa = await patchStatus('st-strategic', STRATEGIC, { status: { conditions: [probe] } });
  assert.deepEqual(
    sa.body!.status.conditions.map((c: Obj) => c.type),
    ['ContainersReady', 'Ready'],
  );
  const ma = await patchStatus('st-merge', MERGE, { status: { conditions: [probe] } });
  assert.deepEqual(
    ma.body!.status.conditions.map((c: Obj) => c.type),
    ['ContainersReady'],
  );
});

test('a stale resourceVersion in a status patch is a 409, and a JSON patch may test spec fields on the status subresource', async () => {
  const pod = await createPod('st-precondition');
  const ok = await patchStatus('st-precondition', MERGE, {
    metadata: { resourceVersion: pod.metadata.resourceVersion },
    status: { phase: 'Running' },
  });
  assert.equal(ok.code, 200, ok.text);
  const stale = await patchStatus('st-precondition', MERGE, {
    metadata: { resourceVersion: pod.metadata.resourceVersion },
    status: { phase: 'Failed' },
  });
  assert.equal(stale.code, 409, stale.text);
  assert.equal(stale.body!.reason, 'Conflict');
  const tested = await patchStatus('st-precondition', JSON_PATCH, [
    { op: 'test', path: '/spec/nodeName', value: 'node-1' },
    { op: 'replace', path: '/status/phase', value: 'Succeeded' },
  ]);
  assert.equal(tested.code, 200, tested.text);
  assert.equal(tested.body!.status.phase, 'Succeeded');
  const failed = await patchStatus('st-precondition', JSON_PATCH, [
    { op: 'test', path: '/spec/nodeName', value: 'node-2' },
    { op: 'replace', path: '/status/phase', value: 'Failed' },
  ]);
  assert.equal(failed.code, 422, failed.text);
});

test('PUT of the status replaces the status only, and a later spec update still bumps generation', async () => {
  await createPod('st-put');
  const cur = (await send(server.url, 'GET', `${PODS}/st-put`)).body!;
  const body = { ...cur, spec: { ...cur.spec, nodeName: 'other' }, status: { phase: 'Running', podIP: '10.0.0.3' } };
  const r = await send(server.url, 'PUT', `${PODS}/st-put/status`, JSON.stringify(body), {
    'Content-Type': 'application/json',
  });
  assert.equal(r.code, 200, r.text);
  assert.deepEqual(r.body!.status, { phase: 'Running', podIP: '10.0.0.3' });
  assert.equal(r.body!.spec.nodeName, 'node-1');
  // The stored spec is the pod's own (not shared with anything the status write touched): an ordinary update changes it.
  const upd = await send(
    server.url,
    'PATCH',
    `${PODS}/st-put`,
    JSON.stringify({ spec: { activeDeadlineSeconds: 30 } }),
    { 'Content-Type': MERGE },
  );
  assert.equal(upd.code, 200, upd.text);
  assert.equal(upd.body!.spec.activeDeadlineSeconds, 30);
  assert.deepEqual(upd.body!.status, { phase: 'Running', podIP: '10.0.0.3' });
});

test('server-side apply to the status subresource records its manager on status, with conflicts and force', async () => {
  await createPod('st-apply');
  const apply = (manager: string, phase: string, force: boolean): ReturnType<typeof send> =>
    send(
      server.url,
      'PATCH',
      `${PODS}/st-apply/status?fieldManager=${manager}${force ? '&force=true' : ''}`,
      `apiVersion: v1\nkind: Pod\nmetadata:\n  name: st-apply\nstatus:\n  phase: ${phase}\n`,
      { 'Content-Type': 'application/apply-patch+yaml' },
    );
  const r = await apply('applier', 'Running', false);
  assert.equal(r.code, 200, r.text);
  assert.equal(r.body!.status.phase, 'Running');
  const entry = entryOf(r.body!, 'applier');
  assert.ok(entry !== undefined, `the applier is recorded: ${JSON.stringify(r.body!.metadata.managedFields)}`);
  assert.equal(entry.operation, 'Apply');
  assert.equal(entry.subresource, 'status');
  assert.deepEqual(entry.fieldsV1, { 'f:status': { 'f:phase': {} } });
  assert.equal(
    (await send(server.url, 'GET', `${PODS}/st-apply`)).body!.metadata.managedFields.some(
      (e: Obj) => e.manager === 'applier',
    ),
    true,
    'and stored',
  );
  const conflict = await apply('other', 'Failed', false);
  assert.equal(conflict.code, 409, conflict.text);
  const forced = await apply('other', 'Failed', true);
  assert.equal(forced.code, 200, forced.text);
  assert.equal(forced.body!.status.phase, 'Failed');
  assert.deepEqual(entryOf(forced.body!, 'other')?.fieldsV1, { 'f:status': { 'f:phase': {} } });
});
