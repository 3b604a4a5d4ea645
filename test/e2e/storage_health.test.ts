import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { INSECURE_PORT, startServer, type TestServer } from './harness.js';

let server: TestServer;
let exitFile: string;
before(async () => {
  // The writer thread checks this file before each batch (a test hook); the server starts with it absent.
  process.env.KSCALE_TEST_WRITER_EXIT_FILE = exitFile = join(
    process.env.TMPDIR ?? '/tmp',
    `kscale-writer-exit-${process.pid}`,
  );
  server = await startServer([...INSECURE_PORT]);
  delete process.env.KSCALE_TEST_WRITER_EXIT_FILE;
});
after(async () => {
  rmSync(exitFile, { force: true });
  await server.stop();
});

const configMap = (name: string): string =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } });

async function create(name: string): Promise<Response> {
  return fetch(`${server.url}/api/v1/namespaces/default/configmaps`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: configMap(name),
  });
}

test('when the storage writer thread dies, /healthz, /livez and /readyz fail and say why, while reads go on', async () => {
  const first = await create('before');
  assert.equal(first.status, 201, await first.text());
  for (const path of ['/healthz', '/livez', '/readyz']) assert.equal((await fetch(server.url + path)).status, 200);

  writeFileSync(exitFile, '');
  const failed = await create('after');
  assert.equal(failed.status, 503, 'a write after the writer died is refused');
  const status = (await failed.json()) as { kind: string; reason: string; message: string };
  assert.equal(status.kind, 'Status');
  assert.equal(status.reason, 'ServiceUnavailable');
  assert.match(status.message, /storage writer exited/);

  for (const path of ['/healthz', '/livez', '/readyz']) {
    const r = await fetch(`${server.url}${path}?verbose`);
    const body = await r.text();
    assert.equal(r.status, 500, `${path} fails: ${body}`);
    assert.match(body, /^\[-\]etcd failed: storage writer exited \(code 70\)$/m, body);
    assert.match(body, /check failed\n$/);
  }
  // Reads still answer from the data written before.
  const read = await fetch(`${server.url}/api/v1/namespaces/default/configmaps/before`);
  assert.equal(read.status, 200);
  assert.equal(server.process.exitCode, null, 'the server process itself is still running');
});
