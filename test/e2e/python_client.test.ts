/**
 * The official Python client (Debian's python3-kubernetes, run by Debian's
 * /usr/bin/python3) against a real `kscale server`: its watch helper sends
 * `?watch=True`, which upstream reads as true.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { startServer, type TestServer } from './harness.js';

const PYTHON = '/usr/bin/python3';

/** Runs a Python script with the server's kubeconfig; throws with its stderr when it fails. */
function python(server: TestServer, script: string): string {
  const r = spawnSync(PYTHON, ['-c', script], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, KUBECONFIG: server.kubeconfig },
  });
  if (r.error !== undefined) throw new Error(`${PYTHON} did not run: ${r.error.message}`);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

describe('the official Python client (python3-kubernetes) against kscale server', () => {
  let server: TestServer;

  before(async () => {
    const probe = spawnSync(PYTHON, ['-c', 'import kubernetes'], { encoding: 'utf8' });
    if (probe.status !== 0)
      throw new Error(`the Python client is missing (scripts/setup.sh installs python3-kubernetes): ${probe.stderr}`);
    server = await startServer();
  });

  after(async () => {
    await server?.stop();
  });

  test('watch.Watch().stream sends watch=True and receives the events of a watch, not a list', () => {
    const out = python(
      server,
      `
import json
from kubernetes import client, config, watch
config.load_kube_config()
v1 = client.CoreV1Api()
v1.create_namespaced_config_map('default', client.V1ConfigMap(metadata=client.V1ObjectMeta(name='py-a'), data={'k': 'v'}))
w = watch.Watch()
seen = []
for ev in w.stream(v1.list_namespaced_config_map, 'default', allow_watch_bookmarks=True, timeout_seconds=10):
    seen.append([ev['type'], ev['object'].metadata.name])
    if len(seen) == 1:
        v1.create_namespaced_config_map('default', client.V1ConfigMap(metadata=client.V1ObjectMeta(name='py-b')))
    if len(seen) == 2:
        w.stop()
print(json.dumps(seen))
`,
    );
    assert.deepEqual(JSON.parse(out), [
      ['ADDED', 'py-a'],
      ['ADDED', 'py-b'],
    ]);
  });
});
