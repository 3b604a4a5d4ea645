import assert from 'node:assert/strict';
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { openStream, plainBind } from './http2_request.js';

const currentBind = (): unknown => Reflect.get(AsyncResource.prototype, 'bind');
const originalBind = currentBind();

async function withServer(fn: (url: string) => Promise<void>): Promise<void> {
  const server = http2.createServer((req, res) => res.end(`${req.method} ${req.url}`));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    await fn(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    await new Promise((r) => server.close(r));
  }
}

function body(stream: http2.ClientHttp2Stream): Promise<string> {
  return new Promise((resolve, reject) => {
    let s = '';
    stream.setEncoding('utf8');
    stream.on('data', (d: string) => (s += d));
    stream.on('end', () => resolve(s));
    stream.on('error', reject);
  });
}

test('streams opened while the session connects and after it has connected both get their answers', async () => {
  await withServer(async (url) => {
    const session = http2.connect(url);
    try {
      // Before 'connect': node:http2 queues the bound connect callback and calls it on connect.
      const early = openStream(session, { ':path': '/early' }, true);
      assert.equal(await body(early), 'GET /early');
      const late = openStream(session, { ':path': '/late', ':method': 'POST' }, false);
      late.end('x');
      assert.equal(await body(late), 'POST /late');
      assert.equal(currentBind(), originalBind, 'bind is restored');
    } finally {
      session.close();
    }
  });
});

test('a stream opened before the session connects still runs in the async context it was opened in', async () => {
  await withServer(async (url) => {
    const als = new AsyncLocalStorage<string>();
    const session = http2.connect(url);
    try {
      let seen: string | undefined;
      const stream = als.run('opener', () => openStream(session, { ':path': '/ctx' }, true));
      // 'ready' is emitted from the connect callback, which runs when the session connects, in another context.
      stream.once('ready', () => (seen = als.getStore()));
      assert.equal(await body(stream), 'GET /ctx');
      assert.equal(seen, 'opener');
    } finally {
      session.close();
    }
  });
});

test('bind is restored when opening a stream throws', async () => {
  await withServer(async (url) => {
    const session = http2.connect(url);
    await new Promise((r) => session.once('connect', r));
    session.destroy();
    assert.throws(() => openStream(session, { ':path': '/' }, true), /session/i);
    assert.equal(currentBind(), originalBind);
  });
});

test('plainBind keeps the async scope, this, arguments and length, without the deprecated accessor', () => {
  const als = new AsyncLocalStorage<string>();
  const resource = als.run('bound', () => new AsyncResource('test'));
  const fn = function (this: unknown, a: unknown, b: unknown): unknown[] {
    return [this, a, b, als.getStore()];
  };
  const bound = plainBind.call(resource, fn as (...args: unknown[]) => unknown);
  const self = { me: true };
  assert.deepEqual(bound.call(self, 1, 2), [self, 1, 2, 'bound']);
  assert.equal(bound.length, 2);
  assert.equal(Object.getOwnPropertyDescriptor(bound, 'asyncResource'), undefined);
  // With a thisArg, Node's own bind is used.
  const withThis = plainBind.call(resource, fn as (...args: unknown[]) => unknown, self);
  assert.deepEqual(withThis(3, 4), [self, 3, 4, 'bound']);
});
