import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { Clock, Timer } from '../../clock/index.js';
import { StatusError } from '../../api/index.js';
import { RESTClient } from './client.js';
import { isTooManyRequests } from './errors.js';

/** A clock whose sleeps return at once and are recorded, so retry delays are checked without waiting. */
class InstantClock implements Clock {
  slept: number[] = [];
  private t = 0;
  now(): number {
    return this.t;
  }
  monotonic(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): Timer {
    this.slept.push(ms);
    this.t += ms;
    queueMicrotask(fn);
    return { cancel: () => undefined };
  }
  setInterval(): Timer {
    throw new Error('unused');
  }
  async sleep(ms: number): Promise<void> {
    this.slept.push(ms);
    this.t += ms;
  }
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void;

async function withServer(handler: Handler, fn: (url: string, calls: () => number) => Promise<void>): Promise<void> {
  let n = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => handler(req, res, n++));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    await fn(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, () => n);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

const status = (code: number, reason: string): string =>
  JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: reason, reason, code });

test('429 with Retry-After is retried after the given delay, for writes too', async () => {
  await withServer(
    (_req, res, n) => {
      if (n < 2)
        res
          .writeHead(429, { 'Retry-After': '2', 'Content-Type': 'application/json' })
          .end(status(429, 'TooManyRequests'));
      else res.writeHead(201, { 'Content-Type': 'application/json' }).end('{"kind":"Pod"}');
    },
    async (url, calls) => {
      const clock = new InstantClock();
      const c = new RESTClient({ host: url }, { clock, random: () => 0 });
      const got = await c.request<{ kind: string }>({
        method: 'POST',
        path: '/api/v1/namespaces/default/pods',
        body: {},
      });
      assert.equal(got.kind, 'Pod');
      assert.equal(calls(), 3);
      assert.deepEqual(clock.slept, [2000, 2000]);
      c.close();
    },
  );
});

test('retries stop after maxRetries and surface the Status', async () => {
  await withServer(
    (_req, res) => res.writeHead(429, { 'Retry-After': '1' }).end(status(429, 'TooManyRequests')),
    async (url, calls) => {
      const c = new RESTClient({ host: url }, { clock: new InstantClock(), maxRetries: 3 });
      await assert.rejects(c.request({ method: 'GET', path: '/api/v1/pods' }), (e) => isTooManyRequests(e));
      assert.equal(calls(), 4);
      c.close();
    },
  );
});

test('5xx without Retry-After is retried with backoff for GET but not for POST', async () => {
  await withServer(
    (_req, res, n) => (n % 3 < 2 ? res.writeHead(500).end(status(500, 'InternalError')) : res.writeHead(200).end('{}')),
    async (url, calls) => {
      const clock = new InstantClock();
      const c = new RESTClient({ host: url }, { clock, random: () => 0 });
      await c.request({ method: 'GET', path: '/api/v1/pods' });
      assert.equal(calls(), 3);
      assert.deepEqual(clock.slept, [100, 200]);
      await assert.rejects(
        c.request({ method: 'POST', path: '/api/v1/namespaces/default/pods', body: {} }),
        (e: unknown) => e instanceof StatusError && e.code === 500,
      );
      assert.equal(calls(), 4, 'the POST was sent once');
      c.close();
    },
  );
});

test('a connection reset is retried for GET but never for a write that may have arrived', async () => {
  await withServer(
    (req, res, n) => (n === 0 || req.method === 'POST' ? res.socket!.destroy() : res.writeHead(200).end('{"ok":true}')),
    async (url, calls) => {
      const c = new RESTClient({ host: url }, { clock: new InstantClock() });
      assert.deepEqual(await c.request({ method: 'GET', path: '/x' }), { ok: true });
      assert.equal(calls(), 2);
      await assert.rejects(c.request({ method: 'POST', path: '/x', body: {} }), /socket hang up|ECONNRESET/);
      assert.equal(calls(), 3);
      c.close();
    },
  );
});

test('connection refused is retried even for writes, up to maxRetries', async () => {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  await new Promise((r) => server.close(r));
  const clock = new InstantClock();
  const c = new RESTClient({ host: `http://127.0.0.1:${port}` }, { clock, maxRetries: 2 });
  await assert.rejects(c.request({ method: 'POST', path: '/x', body: {} }), /ECONNREFUSED/);
  assert.equal(clock.slept.length, 2);
  c.close();
});

test('errors carry the server Status; non-Status bodies get a generic one', async () => {
  await withServer(
    (req, res) =>
      req.url!.startsWith('/status')
        ? res.writeHead(404).end(status(404, 'NotFound'))
        : res.writeHead(404).end('404 page not found'),
    async (url) => {
      const c = new RESTClient({ host: url, bearerToken: 't' }, { clock: new InstantClock() });
      await assert.rejects(
        c.request({ method: 'GET', path: '/status' }),
        (e: unknown) => e instanceof StatusError && e.reason === 'NotFound' && e.message === 'NotFound',
      );
      await assert.rejects(
        c.request({ method: 'GET', path: '/plain' }),
        (e: unknown) => e instanceof StatusError && e.code === 404 && /could not find/.test(e.message),
      );
      c.close();
    },
  );
});

test('requests carry the bearer token and wait for the QPS limiter', async () => {
  const auth: string[] = [];
  await withServer(
    (req, res) => {
      auth.push(req.headers.authorization ?? '');
      res.writeHead(200).end('{}');
    },
    async (url) => {
      const clock = new InstantClock();
      const c = new RESTClient({ host: url, bearerToken: 'secret', qps: 10, burst: 2 }, { clock });
      for (let i = 0; i < 4; i++) await c.request({ method: 'GET', path: '/x' });
      assert.deepEqual(auth, Array(4).fill('Bearer secret'));
      assert.equal(clock.slept.length, 2, 'two requests beyond the burst waited');
      c.close();
    },
  );
});

test('a body is sent as JSON text with its UTF-8 byte length, whether given as an object or a string', async () => {
  const got: { length: string | undefined; type: string | undefined; body: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({
        length: req.headers['content-length'],
        type: req.headers['content-type'],
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const rest = new RESTClient({ host: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    const obj = { metadata: { name: 'ä-名前-🙂' } };
    await rest.request({ method: 'POST', path: '/x', body: obj });
    await rest.request({ method: 'PATCH', path: '/x', body: '{"a":"€"}', contentType: 'application/merge-patch+json' });
    await rest.request({ method: 'PUT', path: '/x', body: Buffer.from('{"b":"ß"}') });
    assert.deepEqual(got, [
      { length: String(Buffer.byteLength(JSON.stringify(obj))), type: 'application/json', body: JSON.stringify(obj) },
      { length: '11', type: 'application/merge-patch+json', body: '{"a":"€"}' },
      { length: '10', type: 'application/json', body: '{"b":"ß"}' },
    ]);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});
