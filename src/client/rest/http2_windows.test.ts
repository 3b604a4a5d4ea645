/**
 * The HTTP/2 transport advertises client-go's receive windows (4 MiB a stream, 1 GiB the connection), so a server
 * sends a body without waiting for the client's event loop to hand back a window every 64 KiB. Over a real TLS
 * HTTP/2 server (node:http2): two 2 MiB bodies leave the server whole before the client reads a byte of either.
 * With HTTP/2's default windows (64 KiB a stream and 64 KiB shared by the connection), about 64 KiB of them would.
 */
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { selfSignedServingCert } from '../serving/self_signed.js';
import { RESTClient } from './client.js';

const CHUNK = Buffer.alloc(64 * 1024, 'x');
const CHUNKS = 32;
let server: http2.Http2SecureServer;
let client: RESTClient;
/** Bytes the server's streams have handed to the connection (write callbacks), per path. */
const flushed = new Map<string, number>();

before(async () => {
  const { certPEM, keyPEM } = await selfSignedServingCert('127.0.0.1');
  server = http2.createSecureServer({ key: keyPEM, cert: certPEM }, (req, res) => {
    const path = req.url;
    flushed.set(path, 0);
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': CHUNK.length * CHUNKS });
    for (let i = 0; i < CHUNKS; i++)
      res.stream.write(CHUNK, () => flushed.set(path, (flushed.get(path) ?? 0) + CHUNK.length));
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  client = new RESTClient({ host: `https://127.0.0.1:${port}`, ca: Buffer.from(certPEM) }, { maxRetries: 0 });
});

after(async () => {
  client.close();
  await new Promise((r) => server.close(r));
});

test('two 2 MiB bodies leave the server before the client reads either', async () => {
  const [a, b] = await Promise.all([
    client.stream({ method: 'GET', path: '/a' }),
    client.stream({ method: 'GET', path: '/b' }),
  ]);
  assert.equal(client.protocol, 'h2');
  const whole = CHUNK.length * CHUNKS;
  const deadline = Date.now() + 5_000;
  while ((flushed.get('/a') !== whole || flushed.get('/b') !== whole) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual([flushed.get('/a'), flushed.get('/b')], [whole, whole], 'every byte sent, none read yet');
  // And every byte arrives intact once read.
  for (const res of [a, b]) {
    let n = 0;
    for await (const c of res) n += (c as Buffer).length;
    assert.equal(n, whole);
  }
});
