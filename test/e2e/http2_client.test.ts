/**
 * kscale's REST client speaks HTTP/2 to a real secure `kscale server`, as
 * client-go does: ALPN negotiates h2, one session (one TCP connection) carries
 * a client's requests and watches as streams, a stopped watch cancels its
 * stream, streams beyond the server's --http2-max-streams-per-connection wait
 * their turn, a GOAWAY (--goaway-chance) moves new requests to a new session
 * while open watches go on, an unanswered ping drops a dead session, and a
 * server restart is survived by retrying. DISABLE_HTTP2 keeps HTTP/1.1.
 */
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startServer, type TestServer } from './harness.js';
import { connectionsTo } from './fixtures/sockets.js';
import {
  Http2Transport,
  RESOURCES,
  RESTClient,
  loadKubeconfig,
  tlsOptions,
  type Http2TransportOptions,
  type RestConfig,
} from '../../src/client/index.js';
import type { ConfigMap } from '../../src/api/index.js';

const portOf = (url: string): number => Number(new URL(url).port);

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = performance.now() + ms;
  while (!(await ok())) {
    if (performance.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function client(config: RestConfig, opts: Http2TransportOptions = {}): { rest: RESTClient; h2: Http2Transport } {
  const h2 = new Http2Transport(config, opts);
  return { rest: new RESTClient(config, { transport: h2, maxRetries: 50 }), h2 };
}

/** How a watch ends: 'ended' cleanly, or the code of the error it throws. */
async function watchEnd(w: AsyncIterable<unknown>): Promise<string> {
  try {
    for await (const _ of w) void _;
    return 'ended';
  } catch (err) {
    return (err as { code?: string }).code ?? 'error';
  }
}

const cm = (name: string): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } });

describe('the REST client over HTTP/2', { timeout: 120_000 }, () => {
  let server: TestServer;
  let config: RestConfig;

  before(async () => {
    server = await startServer(['--http2-max-streams-per-connection', '4']);
    config = loadKubeconfig({ path: server.kubeconfig });
  });
  after(async () => server?.stop());

  test('requests and watches share one h2 session: one connection, nothing per watch', async () => {
    const { rest, h2 } = client(config);
    const cms = rest.resource<ConfigMap>(RESOURCES.configmaps);
    const before = connectionsTo(portOf(server.secureURL));
    const w1 = await cms.watch({ namespace: 'default' });
    const w2 = await cms.watch({ namespace: 'default', fieldSelector: 'metadata.name=one' });
    assert.equal(rest.protocol, 'h2');
    await cms.create(cm('one'), { namespace: 'default' });
    for (const w of [w1, w2]) {
      for await (const ev of w) {
        if (ev.type === 'ADDED' && ev.object.metadata?.name === 'one') break;
      }
    }
    const got = await cms.get('one', { namespace: 'default' });
    assert.equal(got.data?.a, '1');
    assert.equal(h2.stats.sessions, 1);
    assert.equal(
      connectionsTo(portOf(server.secureURL)) - before,
      1,
      'one TCP connection for 2 watches and 2 requests',
    );
    rest.close();
  });

  test('bodies with multi-byte UTF-8 go out as strings with their byte length: create, patch and update', async () => {
    const { rest, h2 } = client(config);
    const cms = rest.resource<ConfigMap>(RESOURCES.configmaps);
    const made = await cms.create(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'utf8' }, data: { a: 'ä-名前-🙂' } },
      { namespace: 'default' },
    );
    assert.equal(made.data?.a, 'ä-名前-🙂');
    const patched = await rest.request<ConfigMap>({
      method: 'PATCH',
      path: '/api/v1/namespaces/default/configmaps/utf8',
      body: '{"data":{"b":"€uro"}}',
      contentType: 'application/merge-patch+json',
    });
    assert.deepEqual(patched.data, { a: 'ä-名前-🙂', b: '€uro' });
    const updated = await cms.update({ ...patched, data: { c: 'ß'.repeat(5000) } }, { namespace: 'default' });
    assert.equal(updated.data?.c, 'ß'.repeat(5000));
    assert.equal(rest.protocol, 'h2');
    h2.close();
  });

  test('a stopped watch cancels its stream and frees its slot', async () => {
    const { rest, h2 } = client(config);
    const cms = rest.resource<ConfigMap>(RESOURCES.configmaps);
    const w = await cms.watch({ namespace: 'default' });
    assert.equal(h2.activeStreams, 1);
    w.stop();
    await until('the stream to close', () => h2.activeStreams === 0);
    rest.close();
  });

  test("an aborted signal cancels a watch's stream and frees its slot; one aborted before the request sends nothing", async () => {
    const { rest, h2 } = client(config);
    const cms = rest.resource<ConfigMap>(RESOURCES.configmaps);
    const ac = new AbortController();
    const w = await cms.watch({ namespace: 'default', signal: ac.signal });
    assert.equal(h2.activeStreams, 1);
    const ended = watchEnd(w);
    ac.abort();
    await until('the stream to close', () => h2.activeStreams === 0);
    assert.notEqual(await ended, 'error', 'the watch ended with a classified error or cleanly');
    const requests = rest.stats.requests;
    await assert.rejects(cms.list({ namespace: 'default', signal: AbortSignal.abort() }), { name: 'AbortError' });
    assert.equal(h2.activeStreams, 0);
    assert.ok(rest.stats.requests <= requests + 1, 'no retry after an abort');
    // The session still serves.
    await cms.list({ namespace: 'default' });
    assert.equal(h2.stats.sessions, 1);
    rest.close();
  });

  test('signalUntilResponse: the signal cancels opening a watch, not the open watch, which stop() ends', async () => {
    const { rest, h2 } = client(config);
    const cms = rest.resource<ConfigMap>(RESOURCES.configmaps);
    await assert.rejects(cms.watch({ namespace: 'default', signal: AbortSignal.abort(), signalUntilResponse: true }), {
      name: 'AbortError',
    });
    const ac = new AbortController();
    const resourceVersion = (await cms.list({ namespace: 'default' })).metadata?.resourceVersion;
    const w = await cms.watch({ namespace: 'default', resourceVersion, signal: ac.signal, signalUntilResponse: true });
    assert.equal(h2.activeStreams, 1);
    ac.abort();
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(h2.activeStreams, 1, 'the open watch goes on after the abort');
    const got = new Promise<string>((resolve) =>
      w.consume!({
        event: (e) => resolve(`${e.type}:${(e.object as ConfigMap).metadata?.name ?? ''}`),
        end: () => resolve('ended'),
      }),
    );
    await cms.create(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after-abort' } },
      { namespace: 'default' },
    );
    assert.equal(await got, 'ADDED:after-abort');
    w.stop();
    await until('the stream to close', () => h2.activeStreams === 0);
    await cms.delete('after-abort', { namespace: 'default' });
    rest.close();
  });

  test('streams beyond the server SETTINGS_MAX_CONCURRENT_STREAMS (4) queue on the one session', async () => {
    const { rest, h2 } = client(config);
    const cms = rest.resource<ConfigMap>(RESOURCES.configmaps);
    await cms.list({ namespace: 'default' });
    const watches = await Promise.all([1, 2, 3].map(() => cms.watch({ namespace: 'default' })));
    const lists = await Promise.all(Array.from({ length: 12 }, () => cms.list({ namespace: 'default' })));
    assert.equal(lists.length, 12);
    assert.ok(h2.stats.queued > 0, 'some requests waited for a slot');
    assert.equal(h2.stats.sessions, 1, 'no second connection was opened');
    for (const w of watches) w.stop();
    rest.close();
  });

  test("the server's upload windows are kube-apiserver's: 256 KiB a stream, and that per stream allowed (4) on the connection", async () => {
    const session = http2.connect(server.secureURL, tlsOptions(config));
    try {
      await new Promise<void>((resolve, reject) => {
        session.once('remoteSettings', () => resolve());
        session.once('error', reject);
      });
      assert.equal(session.remoteSettings.initialWindowSize, 256 * 1024);
      assert.equal(session.remoteSettings.maxFrameSize, 256 * 1024);
      // The connection's window arrives as a WINDOW_UPDATE after the settings; HTTP/2's default is 64 KiB.
      await until('the connection window', () => session.state.remoteWindowSize === 4 * 256 * 1024);
    } finally {
      session.close();
    }
  });

  test('DISABLE_HTTP2 (config.disableHTTP2) keeps HTTP/1.1', async () => {
    const rest = new RESTClient({ ...config, disableHTTP2: true });
    await rest.resource<ConfigMap>(RESOURCES.configmaps).list({ namespace: 'default' });
    assert.equal(rest.protocol, 'http/1.1');
    rest.close();
  });

  test('an unanswered ping drops the session: a watch on a frozen server ends, and the client recovers', async () => {
    const { rest, h2 } = client(config, { pingIntervalMs: 200, pingTimeoutMs: 400 });
    const cms = rest.resource<ConfigMap>(RESOURCES.configmaps);
    const w = await cms.watch({ namespace: 'default' });
    server.process.kill('SIGSTOP');
    try {
      const ended = watchEnd(w);
      const outcome = await Promise.race([ended, new Promise((r) => setTimeout(() => r('still open'), 5_000))]);
      assert.notEqual(outcome, 'still open');
      assert.ok(h2.stats.pingTimeouts >= 1, 'the session was dropped for an unanswered ping');
    } finally {
      server.process.kill('SIGCONT');
    }
    await cms.list({ namespace: 'default' });
    assert.ok(h2.stats.sessions >= 2, 'a new session after the dead one');
    rest.close();
  });
});

describe('the REST client over HTTP/2 when the server goes away', { timeout: 120_000 }, () => {
  test('GOAWAY (--goaway-chance): new requests move to a new session, an open watch goes on', async () => {
    const server = await startServer(['--goaway-chance', '0.02']);
    try {
      const config = loadKubeconfig({ path: server.kubeconfig });
      const { rest, h2 } = client(config);
      const cms = rest.resource<ConfigMap>(RESOURCES.configmaps);
      const w = await cms.watch({ namespace: 'default', fieldSelector: 'metadata.name=late' });
      // 0.98^600: the chance that no request draws a GOAWAY is below 1e-5.
      for (let i = 0; i < 30; i++)
        await Promise.all(Array.from({ length: 20 }, () => cms.list({ namespace: 'default' })));
      assert.ok(h2.stats.goaways >= 1, 'the server sent GOAWAY');
      assert.ok(h2.stats.sessions >= 2, 'later requests used a new session');
      await cms.create(cm('late'), { namespace: 'default' });
      for await (const ev of w) if (ev.type === 'ADDED') break;
      rest.close();
    } finally {
      await server.stop();
    }
  });

  test('a server restart: the open watch ends, requests retry until the new server answers on a new session', async () => {
    let server = await startServer();
    const kept = mkdtempSync(join(tmpdir(), 'kscale-h2-'));
    const port = portOf(server.secureURL);
    try {
      cpSync(join(server.dir, 'data', 'tls'), join(kept, 'data', 'tls'), { recursive: true });
      const config = loadKubeconfig({ path: server.kubeconfig });
      const { rest, h2 } = client(config);
      const cms = rest.resource<ConfigMap>(RESOURCES.configmaps);
      const w = await cms.watch({ namespace: 'default' });
      const ended = watchEnd(w);
      await server.stop();
      assert.ok(['ended', 'ECONNRESET'].includes(await ended), 'the watch ended so an informer would re-watch');
      const listed = cms.list({ namespace: 'default' });
      server = await startServer(['--secure-port', String(port)], kept);
      assert.equal((await listed).kind, 'ConfigMapList');
      assert.equal(h2.stats.sessions, 2);
      rest.close();
    } finally {
      await server.stop();
    }
  });
});
