import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  connect,
  createSecureServer,
  type ClientHttp2Session,
  type Http2SecureServer,
  type IncomingHttpHeaders,
} from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { serveBodylessGets, StreamRequest, StreamResponse } from './http2_streams.js';
import { generateCA, issueCert, type CertKeyPair } from './pki/certs.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

describe('bodyless GETs on the HTTP/2 core stream API', () => {
  let ca: CertKeyPair;
  let serving: CertKeyPair;
  let client: CertKeyPair;
  let server: Http2SecureServer;
  let session: ClientHttp2Session;
  let handler: Handler = () => undefined;

  before(async () => {
    ca = await generateCA('test-ca');
    serving = await issueCert(ca, {
      commonName: '127.0.0.1',
      altNames: ['127.0.0.1'],
      usages: ['server'],
      validityDays: 1,
    });
    client = await issueCert(ca, { commonName: 'alice', usages: ['client'], validityDays: 1 });
    const listener: Handler = (req, res) => handler(req, res);
    server = createSecureServer(
      { cert: serving.certPEM, key: serving.keyPEM, ca: ca.certPEM, requestCert: true, allowHTTP1: true },
      listener as unknown as Parameters<typeof createSecureServer>[1],
    );
    serveBodylessGets(server, listener);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    session = connect(`https://127.0.0.1:${port}`, { ca: ca.certPEM, cert: client.certPEM, key: client.keyPEM });
  });

  after(async () => {
    session.close();
    server.close();
  });

  /** Sends a request; resolves with the response's headers once they arrive, and its body when it ends. */
  function request(headers: Record<string, string>, body?: string) {
    // Node's client ends a GET's stream with its headers unless told otherwise, as real clients do.
    const s = session.request(headers, body === undefined ? {} : { endStream: false });
    if (body !== undefined) s.end(body);
    let text = '';
    s.setEncoding('utf8');
    s.on('data', (c: string) => (text += c));
    const response = once(s, 'response').then(([h]) => h as IncomingHttpHeaders);
    const ended = once(s, 'end').then(() => text);
    s.on('error', () => undefined);
    return { stream: s, response, ended };
  }

  it('serves a bodyless watch GET on its stream: headers, method, URL, TLS peer, status and lines as written', async () => {
    let seen: { req: unknown; res: unknown } | undefined;
    handler = (req, res) => {
      seen = { req, res };
      assert.equal(req.method, 'GET');
      assert.equal(req.url, '/api/v1/pods?watch=true');
      assert.equal(req.headers.accept, 'application/json');
      assert.equal(req.httpVersionMajor, 2);
      assert.equal((req.socket as TLSSocket).getPeerCertificate().subject.CN, 'alice');
      res.setHeader('Audit-Id', 'abc');
      res.writeHead(200, { 'Content-Type': 'application/json' });
      assert.equal(res.headersSent, true);
      res.write('{"type":"ADDED"}\n', 'latin1');
      res.write('{"type":"MODIFIED"}\n');
      res.end();
      assert.equal(res.writableEnded, true);
    };
    const r = request({ ':path': '/api/v1/pods?watch=true', accept: 'application/json' });
    const h = await r.response;
    assert.equal(h[':status'], 200);
    assert.equal(h['audit-id'], 'abc');
    assert.equal(h['content-type'], 'application/json');
    assert.equal(await r.ended, '{"type":"ADDED"}\n{"type":"MODIFIED"}\n');
    assert.ok(seen?.req instanceof StreamRequest);
    assert.ok(seen?.res instanceof StreamResponse);
  });

  it('counts the bytes written and not yet sent, as a watch needs to bound what it buffers', async () => {
    const lengths: number[] = [];
    handler = (_req, res) => {
      res.writeHead(200);
      for (let i = 0; i < 8; i++) {
        res.write('x'.repeat(4000));
        lengths.push(res.writableLength);
      }
      res.end();
    };
    assert.equal((await request({ ':path': '/api/v1/pods?watch=1' }).ended).length, 32_000);
    // Nothing leaves before the handler's turn ends: every write is still counted.
    assert.deepEqual(lengths, [4000, 8000, 12_000, 16_000, 20_000, 24_000, 28_000, 32_000]);
  });

  it('serves every bodyless GET on its stream, and leaves requests with a body or another method to the compatibility layer', async () => {
    const kinds: string[] = [];
    handler = (req, res) => {
      kinds.push(req instanceof StreamRequest ? 'stream' : 'compat');
      res.writeHead(200).end('ok');
    };
    for (const path of ['/api/v1/pods', '/api/v1/namespaces/a/pods/b', '/api/v1/pods?watch=true'])
      assert.equal(await request({ ':path': path }).ended, 'ok');
    // A GET with a body (never sent by a real client) still gets the full request object to read it from.
    assert.equal(await request({ ':path': '/api/v1/pods', ':method': 'GET' }, 'x').ended, 'ok');
    assert.equal(await request({ ':path': '/api/v1/pods/a', ':method': 'DELETE' }).ended, 'ok');
    assert.equal(await request({ ':path': '/api/v1/pods', ':method': 'POST' }, '{}').ended, 'ok');
    assert.deepEqual(kinds, ['stream', 'stream', 'stream', 'compat', 'compat', 'compat']);
  });

  it("sends a whole body with end, and 'finish' follows on the response as Node's does", async () => {
    const finished = new Promise<boolean>((resolve) => {
      handler = (_req, res) => {
        res.setHeader('Content-Type', 'application/json');
        res.statusCode = 404;
        res.once('finish', () => resolve(res.writableEnded));
        res.end('{"kind":"Status"}');
      };
    });
    const r = request({ ':path': '/api/v1/namespaces/a/configmaps/b' });
    const h = await r.response;
    assert.equal(h[':status'], 404);
    assert.equal(h['content-type'], 'application/json');
    assert.equal(await r.ended, '{"kind":"Status"}');
    assert.equal(await finished, true);
  });

  it('answers an error with writeHead and end, as the response writers do', async () => {
    handler = (_req, res) => {
      res.writeHead(403, { 'Content-Type': 'application/json', 'Content-Length': 2, Connection: 'close' });
      res.end('{}');
    };
    const r = request({ ':path': '/api/v1/pods?watch=1' });
    assert.equal((await r.response)[':status'], 403);
    assert.equal(await r.ended, '{}');
  });

  it('ends a response that wrote nothing with its status and headers only', async () => {
    handler = (_req, res) => {
      res.statusCode = 204;
      res.end();
    };
    const r = request({ ':path': '/api/v1/pods?watch=1' });
    assert.equal((await r.response)[':status'], 204);
    assert.equal(await r.ended, '');
  });

  it('tells the handler when the client resets the stream: both sides close, and later writes go nowhere', async () => {
    const events: string[] = [];
    const closed = new Promise<void>((resolve) => {
      handler = (req, res) => {
        const never = (): number => events.push('removed listener called');
        req.once('close', never);
        req.off('close', never);
        req.on('close', () => events.push('req close'));
        res.on('close', () => {
          events.push('res close');
          assert.equal(res.write('late'), false);
          resolve();
        });
        res.writeHead(200).flushHeaders();
      };
    });
    const r = request({ ':path': '/api/v1/watch/pods' });
    await r.response;
    r.stream.close();
    await closed;
    assert.deepEqual(events, ['req close', 'res close']);
  });

  it('reports backpressure: write returns false while the stream is full, then one drain', async () => {
    let drains = 0;
    const full = new Promise<boolean[]>((resolve) => {
      handler = (_req, res) => {
        res.writeHead(200);
        const results: boolean[] = [];
        const chunk = 'x'.repeat(64 * 1024);
        // Bounded: a 64 KiB window fills within a few chunks.
        for (let i = 0; i < 64; i++) {
          const ok = res.write(chunk);
          results.push(ok);
          if (!ok) break;
        }
        res.write(chunk);
        res.on('drain', () => {
          drains++;
          res.end();
        });
        resolve(results);
      };
    });
    const r = request({ ':path': '/api/v1/pods?watch=true' });
    r.stream.pause();
    const results = await full;
    assert.equal(results.at(-1), false);
    r.stream.resume();
    const body = await r.ended;
    assert.equal(body.length, (results.length + 1) * 64 * 1024);
    assert.equal(drains, 1);
  });
});
