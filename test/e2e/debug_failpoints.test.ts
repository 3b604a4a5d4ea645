/**
 * /debug/failpoints/<name> on a real server: a loopback peer in system:masters arms a point in the storage writer
 * thread (PUT, the action in KSCALE_FAILPOINTS' form), reads it back (GET) and disarms it (DELETE); the cluster
 * admin outside system:masters gets 403, a bad action 400. The server binds loopback only, as every test server
 * here; that a peer which is not loopback is refused is src/apiserver/storage_maintenance.test.ts's (fromLoopback).
 */
import assert from 'node:assert/strict';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { after, before, test } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { startServer, type TestServer } from './harness.js';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

/** One HTTPS request with `kubeconfig`'s client certificate. */
async function call(
  kubeconfig: string,
  method: string,
  path: string,
  body?: string,
): Promise<{ code: number; text: string }> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const url = new URL(kc.getCurrentCluster()!.server);
  const opts: RequestOptions = { method, host: url.hostname, port: url.port, path, agent: false };
  await kc.applyToHTTPSOptions(opts);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(opts, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ code: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const createCm = (name: string): Promise<{ code: number; text: string }> =>
  call(
    server.superAdminKubeconfig,
    'POST',
    '/api/v1/namespaces/default/configmaps',
    JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }),
  );

test('system:masters on loopback arms a writer failpoint, reads it back and disarms it', async () => {
  const fp = '/debug/failpoints/sqlite/beforeCommit';
  assert.equal((await call(server.superAdminKubeconfig, 'GET', fp)).code, 404, 'nothing is armed at first');
  assert.equal((await call(server.superAdminKubeconfig, 'PUT', fp, 'error*1')).code, 204);
  const got = await call(server.superAdminKubeconfig, 'GET', fp);
  assert.deepEqual([got.code, got.text.trim()], [200, 'error*1']);
  const all = await call(server.superAdminKubeconfig, 'GET', '/debug/failpoints');
  assert.deepEqual(JSON.parse(all.text), { 'sqlite/beforeCommit': 'error*1' });
  // The point fires once in the writer thread: that write fails, the next one commits.
  const failed = await createCm('fp-a');
  assert.ok(failed.code >= 500, `the armed point failed the write: ${failed.code} ${failed.text}`);
  assert.match(failed.text, /failpoint sqlite\/beforeCommit injected an error/);
  assert.equal((await createCm('fp-b')).code, 201, 'error*1 fired once');
  assert.equal((await call(server.superAdminKubeconfig, 'DELETE', fp)).code, 204);
  assert.equal((await call(server.superAdminKubeconfig, 'GET', fp)).code, 404, 'disarmed');
  assert.equal((await call(server.superAdminKubeconfig, 'DELETE', fp)).code, 404, 'disarming twice is NotFound');
  // Armed again through the endpoint after a DELETE, an error action fails every write until disarmed.
  assert.equal((await call(server.superAdminKubeconfig, 'PUT', fp, 'error')).code, 204);
  assert.ok((await createCm('fp-c')).code >= 500);
  assert.equal((await call(server.superAdminKubeconfig, 'DELETE', fp)).code, 204);
  assert.equal((await createCm('fp-c')).code, 201, 'writes commit again once disarmed');
});

test('a bad action is 400 and arms nothing', async () => {
  const r = await call(server.superAdminKubeconfig, 'PUT', '/debug/failpoints/sqlite/beforeCommit', 'sleep');
  assert.equal(r.code, 400);
  const status = JSON.parse(r.text) as { kind: string; reason: string; message: string };
  assert.deepEqual([status.kind, status.reason], ['Status', 'BadRequest']);
  assert.match(status.message, /sleep needs a duration/);
  assert.equal((await call(server.superAdminKubeconfig, 'GET', '/debug/failpoints/sqlite/beforeCommit')).code, 404);
});

test('the cluster admin outside system:masters gets 403', async () => {
  const r = await call(server.kubeconfig, 'PUT', '/debug/failpoints/sqlite/beforeCommit', 'panic');
  assert.equal(r.code, 403);
  const status = JSON.parse(r.text) as { reason: string; message: string };
  assert.equal(status.reason, 'Forbidden');
  assert.match(status.message, /system:masters/);
  assert.equal((await call(server.superAdminKubeconfig, 'GET', '/debug/failpoints/sqlite/beforeCommit')).code, 404);
});

test('a write slowed in the storage writer is logged as a slow request with its steps, not as an event loop stall', async () => {
  const fp = '/debug/failpoints/sqlite/beforeCommit';
  assert.equal((await call(server.superAdminKubeconfig, 'PUT', fp, 'sleep(700)*1')).code, 204);
  const started = performance.now();
  assert.equal((await createCm('slow-trace')).code, 201);
  assert.ok(performance.now() - started >= 700);
  let line: Record<string, unknown> | undefined;
  for (let i = 0; i < 50 && line === undefined; i++) {
    line = server
      .stderr()
      .split('\n')
      .filter((l) => l.includes('"slow request trace"') && l.includes('"resource":"configmaps"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)[0];
    if (line === undefined) await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(line !== undefined, `no trace logged: ${server.stderr()}`);
  assert.equal(line.verb, 'create');
  assert.equal(line.resource, 'configmaps');
  assert.equal(line.code, 201);
  const total = line.totalMs as number;
  assert.ok(total >= 700, `totalMs ${total}`);
  // Steps in order: authenticated, authorized, about to store, stored; the write's time is between the last two.
  const steps = new Map(
    (line.steps as string[]).map((s) => {
      const at = s.lastIndexOf('@');
      return [s.slice(0, at), Number(s.slice(at + 1))] as const;
    }),
  );
  for (const s of ['authenticated', 'authorized', 'about to store', 'stored'])
    assert.ok(steps.has(s), JSON.stringify(line.steps));
  assert.ok(steps.get('authenticated')! <= steps.get('authorized')!);
  assert.ok(steps.get('stored')! - steps.get('about to store')! >= 650, JSON.stringify(line.steps));
  // The sleep was in the writer thread: the event loop went on meanwhile.
  assert.ok((line.stalledMs as number) < total / 2, `stalledMs ${String(line.stalledMs)} of ${total}`);
});
