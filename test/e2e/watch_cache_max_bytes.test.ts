/**
 * --watch-cache-max-bytes on a real server: with a tiny watermark the cache sheds its history and then refuses
 * LISTs it would serve from memory with 429, a Retry-After and a TooManyRequests Status, while the process stays
 * up; the bytes held, the events shed and the LISTs refused show in /metrics.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { INSECURE_PORT, startServer, type TestServer } from './harness.js';

let server: TestServer | undefined;
after(async () => {
  await server?.stop();
});

/** The value of one series of `name` for `resource` in a Prometheus text exposition (0 when absent). */
function series(text: string, name: string, resource: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{resource="${resource}"}`));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

test('over a tiny --watch-cache-max-bytes, lists from the cache get 429 with Retry-After, the server stays up, and metrics say so', async () => {
  server = await startServer([...INSECURE_PORT, '--watch-cache-max-bytes', '20000']);
  const base = `${server.url}/api/v1/namespaces/default/configmaps`;
  for (let i = 0; i < 10; i++) {
    const r = await fetch(base, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${i}` },
        data: { v: 'x'.repeat(4000) },
      }),
    });
    assert.equal(r.status, 201, 'writes do not go through the cache and are accepted');
  }
  // resourceVersion=0: served from the cache, which now holds more than the watermark even with no history.
  const list = await fetch(`${base}?resourceVersion=0`);
  assert.equal(list.status, 429, await list.clone().text());
  assert.equal(list.headers.get('retry-after'), '1');
  const status = (await list.json()) as { kind: string; reason: string; code: number; message: string };
  assert.equal(status.kind, 'Status');
  assert.equal(status.reason, 'TooManyRequests');
  assert.equal(status.code, 429);
  assert.match(status.message, /--watch-cache-max-bytes 20000/);
  // A GET of one object is still served, and the process is alive.
  assert.equal((await fetch(`${base}/cm-3`)).status, 200);
  assert.equal(server.process.exitCode, null);
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  assert.ok(series(metrics, 'apiserver_watch_cache_list_refused_total', 'configmaps') >= 1, 'the refusal is counted');
  assert.ok(
    series(metrics, 'apiserver_watch_cache_memory_bytes', 'configmaps') > 40_000,
    'the bytes held are reported',
  );
  assert.ok(series(metrics, 'apiserver_watch_cache_shed_events_total', 'configmaps') > 0, 'history was shed first');
});
