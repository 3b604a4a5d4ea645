/**
 * Deadlines and connection limits against a real `kscale server` on loopback:
 * a request past its deadline is 504; clients stalling their bodies hold no
 * in-flight slot; one user's watches are capped with 429; oversized headers
 * are 431; connections past --max-connections get 429; a stalled TLS
 * handshake blocks nobody.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect as connectH2, type ClientHttp2Stream } from 'node:http2';
import { connect, type Socket } from 'node:net';
import { secureGet, startServer, type TestServer, INSECURE_PORT } from './harness.js';
import { readReply, send } from './raw_http.js';

const cm = (name: string): string => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

/** Opens a TCP connection to `url`'s host and port. */
function open(url: string): Promise<Socket> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(u.port), u.hostname, () => resolve(s));
    s.once('error', reject);
  });
}

describe('deadlines and limits, max-in-flight alone', () => {
  let server: TestServer;
  const sockets: Socket[] = [];

  before(async () => {
    server = await startServer([
      ...INSECURE_PORT,
      '--enable-priority-and-fairness=false',
      '--max-mutating-requests-inflight',
      '20',
    ]);
  });

  after(async () => {
    for (const s of sockets) s.destroy();
    await server?.stop();
  });

  test('a request past its ?timeout= gets 504 with a Timeout Status, and the server goes on serving', async () => {
    // A LIST at a revision the cache has not reached waits (up to 3 s) for it: an honest slow request.
    const started = Date.now();
    const r = await send(
      server.url,
      'GET',
      '/api/v1/pods?resourceVersion=999999999&resourceVersionMatch=NotOlderThan&timeout=200ms',
    );
    assert.equal(r.code, 504, r.text);
    assert.equal(r.body?.kind, 'Status');
    assert.equal(r.body?.reason, 'Timeout');
    assert.equal(
      r.body?.message,
      'Timeout: request did not complete within requested timeout - context deadline exceeded',
    );
    assert.ok(Date.now() - started < 2_500, `504 after ${Date.now() - started} ms`);
    assert.equal((await send(server.url, 'GET', '/api/v1/namespaces/default/configmaps')).code, 200);
  });

  test('500 clients stalling their bodies hold no slot: other clients still write', async () => {
    const body = Buffer.from(cm('stalled'));
    for (let i = 0; i < 500; i++) {
      const s = await open(server.url);
      sockets.push(s);
      s.write(
        `POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${body.length}\r\n\r\n${body.subarray(0, 5).toString()}`,
      );
    }
    await new Promise((r) => setTimeout(r, 300));
    // Only 20 mutating slots: stalled bodies holding them would make these 429.
    for (let i = 0; i < 30; i++) {
      const r = await send(server.url, 'POST', '/api/v1/namespaces/default/configmaps', cm(`ok-${i}`), {
        'Content-Type': 'application/json',
      });
      assert.equal(r.code, 201, r.text);
    }
    assert.equal((await send(server.url, 'GET', '/readyz')).code, 200);
    // A stalled body that finishes is served too.
    sockets[0]!.write(body.subarray(5));
    const reply = await new Promise<string>((resolve) =>
      sockets[0]!.once('data', (d: Buffer) => resolve(d.toString())),
    );
    assert.match(reply, /^HTTP\/1.1 201/);
    for (const s of sockets.splice(0)) s.destroy();
  });

  test('headers over 1 MiB are 431; headers past Node’s 16 KiB default are served', async () => {
    const big = await send(server.url, 'GET', '/api/v1/namespaces', undefined, { 'X-Big': 'a'.repeat(64 * 1024) });
    assert.equal(big.code, 200);
    const huge = await new Promise<number>((resolve, reject) => {
      const req = request(new URL('/api/v1/namespaces', server.url), {
        headers: { 'X-Huge': 'a'.repeat(1100 * 1024) },
      });
      req.on('error', reject);
      req.on('response', (res) => void readReply(res).then((x) => resolve(x.code)));
      req.end();
    });
    assert.equal(huge, 431);
  });
});

describe('connection limits and TLS handshakes', () => {
  let server: TestServer;

  before(async () => {
    server = await startServer([
      ...INSECURE_PORT,
      '--secure-port',
      '0',
      '--max-connections',
      '40',
      '--max-watches-per-user',
      '100',
    ]);
  });

  after(async () => server?.stop());

  test('connections past --max-connections get 429 and are closed; the server serves again once they go', async () => {
    const held: Socket[] = [];
    try {
      for (let i = 0; i < 40; i++) held.push(await open(server.url));
      const r = await send(server.url, 'GET', '/readyz');
      assert.equal(r.code, 429, r.text);
      assert.equal(r.headers.connection, 'close');
      assert.equal(r.headers['retry-after'], '1');
    } finally {
      for (const s of held) s.destroy();
    }
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await send(server.url, 'GET', '/readyz')).code, 200);
  });

  test('one client opening 10,000 watches is capped with 429 and the server stays healthy', async () => {
    // The admin's client certificate over one HTTP/2 session (the plain port's system:unsecured is not capped).
    const kc = readFileSync(server.kubeconfig, 'utf8');
    const field = (k: string): Buffer => Buffer.from(new RegExp(`${k}: (\\S+)`).exec(kc)![1]!, 'base64');
    const session = connectH2(/server: (https:\/\/\S+)/.exec(kc)![1]!, {
      ca: field('certificate-authority-data'),
      cert: field('client-certificate-data'),
      key: field('client-key-data'),
    });
    const codes = new Map<number, number>();
    const open: ClientHttp2Stream[] = [];
    const watch = (path = '/api/v1/namespaces/default/configmaps?watch=true'): Promise<number> =>
      new Promise((resolve, reject) => {
        const st = session.request({ ':path': path });
        st.on('error', reject);
        st.on('response', (h) => {
          const code = Number(h[':status']);
          codes.set(code, (codes.get(code) ?? 0) + 1);
          if (code === 200) {
            open.push(st);
            resolve(code);
          } else {
            st.resume();
            st.on('end', () => resolve(code));
          }
        });
        st.end();
      });
    try {
      // In batches below the session's 1,000 concurrent streams.
      for (let i = 0; i < 10_000; i += 500) await Promise.all(Array.from({ length: 500 }, () => watch()));
      assert.equal(codes.get(200), 100);
      assert.equal(codes.get(429), 9_900);
      assert.equal((await secureGet(server, '/readyz')).code, 200);
      assert.equal((await send(server.url, 'GET', '/api/v1/namespaces/default/configmaps')).code, 200);
    } finally {
      for (const st of open) st.close();
    }
    // Closed watches give their places back.
    await new Promise((r) => setTimeout(r, 300));
    try {
      assert.equal(await watch('/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1'), 200);
    } finally {
      session.destroy();
    }
  });

  test('clients stalled mid-TLS-handshake do not block others', async () => {
    const kc = readFileSync(server.kubeconfig, 'utf8');
    const secure = /server: (https:\/\/\S+)/.exec(kc)![1]!;
    const stalled: Socket[] = [];
    try {
      for (let i = 0; i < 10; i++) {
        const s = await open(secure);
        // The start of a ClientHello, never finished.
        s.write(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00]));
        stalled.push(s);
      }
      const started = Date.now();
      const r = await secureGet(server, '/readyz');
      assert.ok(r.code === 200, `readyz ${r.code}`);
      assert.ok(Date.now() - started < 2_000);
    } finally {
      for (const s of stalled) s.destroy();
    }
  });
});
