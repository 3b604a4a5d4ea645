import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { buildChain, toListener, withMaxInFlight, type Handler } from '../handler_chain.js';
import { MaxInFlight } from './max_inflight.js';
import { deadlineMs, TIMEOUT_MESSAGE, withTimeout } from './timeout.js';

test('the deadline is the request timeout, or a shorter valid ?timeout=', () => {
  assert.equal(deadlineMs(60_000, null), 60_000);
  assert.equal(deadlineMs(60_000, '1ms'), 1);
  assert.equal(deadlineMs(60_000, '30s'), 30_000);
  assert.equal(deadlineMs(60_000, '5m'), 60_000);
  assert.equal(deadlineMs(60_000, 'soon'), 60_000);
  assert.equal(deadlineMs(60_000, '0s'), 60_000);
  assert.equal(deadlineMs(0, '2s'), 2_000);
  assert.equal(deadlineMs(0, null), 0);
});

function get(server: Server, path: string): Promise<{ code: number; body: string }> {
  const port = (server.address() as AddressInfo).port;
  return new Promise((resolve, reject) => {
    request({ port, path, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (b: Buffer) => chunks.push(b));
      res.on('end', () => resolve({ code: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    })
      .on('error', reject)
      .end();
  });
}

test('past its deadline a request gets 504, its slot is released, and the late handler writes nothing', async () => {
  let lateWrite: (() => void) | undefined;
  const slow: Handler = async (_req, res, info) => {
    if (info.name !== 'slow') {
      res.writeHead(200).end('quick');
      return;
    }
    await new Promise<void>((r) => (lateWrite = r));
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('late');
  };
  const limiter = new MaxInFlight(1, 1);
  const server = createServer(toListener(buildChain(slow, [withTimeout(60_000), withMaxInFlight(limiter)])));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const timedOut = await get(server, '/api/v1/namespaces/d/pods/slow?timeout=50ms');
    assert.equal(timedOut.code, 504);
    const status = JSON.parse(timedOut.body) as { reason: string; code: number; message: string };
    assert.equal(status.reason, 'Timeout');
    assert.equal(status.code, 504);
    assert.equal(status.message, `Timeout: ${TIMEOUT_MESSAGE}`);
    // The one read-only slot came back at the deadline, though the slow handler still runs.
    assert.notEqual(lateWrite, undefined);
    const next = await get(server, '/api/v1/namespaces/d/pods/other');
    assert.deepEqual(next, { code: 200, body: 'quick' });
    lateWrite!();
    await new Promise((r) => setTimeout(r, 20));
    const after = await get(server, '/api/v1/namespaces/d/pods/other');
    assert.equal(after.code, 200);
  } finally {
    server.close();
  }
});

test('a watch has no deadline', async () => {
  const server = createServer(
    toListener(
      buildChain(
        async (_req, res) => {
          await new Promise((r) => setTimeout(r, 60));
          res.writeHead(200).end('events');
        },
        [withTimeout(10)],
      ),
    ),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    assert.deepEqual(await get(server, '/api/v1/pods?watch=true'), { code: 200, body: 'events' });
    assert.equal((await get(server, '/api/v1/pods')).code, 504);
  } finally {
    server.close();
  }
});
