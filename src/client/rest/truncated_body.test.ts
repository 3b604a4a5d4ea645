/**
 * A response body cut short is never handed on as the response: node:http2 ends a reset stream's body as it ends
 * a whole one, so the client tells them apart by Content-Length and by its own aborted signal. Over a real TLS
 * HTTP/2 server (node:http2) whose handler misbehaves on purpose.
 */
import assert from 'node:assert/strict';
import http2, { type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { selfSignedServingCert } from '../serving/self_signed.js';
import { RESTClient } from './client.js';

const WHOLE = '{"kind":"ConfigMap","data":{"a":"' + 'x'.repeat(60_000) + '"}}';
let server: http2.Http2SecureServer;
let client: RESTClient;
/** Responses the slow handler holds until the test lets them go. */
const held: Http2ServerResponse[] = [];

function handle(req: Http2ServerRequest, res: Http2ServerResponse): void {
  const length = { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(WHOLE) };
  switch (req.url) {
    case '/whole':
      res.writeHead(200, length).end(WHOLE);
      return;
    case '/reset':
      // Part of the body, then RST_STREAM(NO_ERROR): the client sees the stream end.
      res.writeHead(200, length);
      res.write(WHOLE.slice(0, 1000), () => res.stream.close(http2.constants.NGHTTP2_NO_ERROR));
      return;
    case '/slow':
      // Part of a body without a length (as a metrics exposition may be), then nothing until the test ends.
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('# HELP first\n');
      held.push(res);
      return;
  }
  res.writeHead(404).end();
}

before(async () => {
  const { certPEM, keyPEM } = await selfSignedServingCert('127.0.0.1');
  server = http2.createSecureServer({ key: keyPEM, cert: certPEM }, handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  client = new RESTClient({ host: `https://127.0.0.1:${port}`, ca: Buffer.from(certPEM) }, { maxRetries: 0 });
});

after(async () => {
  for (const r of held) r.end();
  client.close();
  await new Promise((r) => server.close(r));
});

test('a whole body with its Content-Length is the response', async () => {
  assert.equal(client.protocol, 'h2');
  const res = await client.requestRaw({ method: 'GET', path: '/whole' });
  assert.equal(res.body.toString(), WHOLE);
});

test('a body the server resets short of its Content-Length fails as a lost connection', async () => {
  await assert.rejects(
    client.requestRaw({ method: 'GET', path: '/reset' }),
    (err: Error & { code?: string }) => err.code === 'ECONNRESET' && /ended after \d+ of \d+ bytes/.test(err.message),
  );
});

test("a body still arriving when the caller's signal aborts fails with AbortError, not with the part that came", async () => {
  const ac = new AbortController();
  const pending = client.requestRaw({ method: 'GET', path: '/slow', signal: ac.signal });
  // The head and the first line are in; then the caller gives up, as the lab's scraper does on its timeout.
  while (held.length === 0) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 50));
  ac.abort();
  await assert.rejects(pending, (err: Error) => err.name === 'AbortError');
});
