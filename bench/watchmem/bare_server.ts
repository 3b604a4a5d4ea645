/**
 * The reference for the watch memory benchmark: Node's own HTTP/2 server
 * (TLS, the compatibility request/response API that `kscale server` is
 * built on) answering each request with 200 and headers, then holding the
 * stream open as a watch would. What a watch costs here is Node's floor;
 * the rest of kscale's figure is kscale's. With `--core` it answers on
 * node:http2's core stream API instead ('stream' events, no request and
 * response objects): the floor of a server that keeps only the stream.
 *
 *   node --inspect=127.0.0.1:0 dist/bench/watchmem/bare_server.js KEY_PEM CERT_PEM [--core]
 */
import { createSecureServer, type Http2ServerResponse, type ServerHttp2Stream } from 'node:http2';
import { readFileSync } from 'node:fs';

const [keyFile, certFile, mode] = process.argv.slice(2);
if (keyFile === undefined || certFile === undefined) throw new Error('usage: bare_server.js KEY_PEM CERT_PEM [--core]');
const held = new Set<Http2ServerResponse | ServerHttp2Stream>();
const options = {
  key: readFileSync(keyFile),
  cert: readFileSync(certFile),
  allowHTTP1: true,
  settings: { maxConcurrentStreams: 1000 },
};
const server =
  mode === '--core'
    ? createSecureServer(options).on('stream', (stream) => {
        stream.respond({ ':status': 200, 'content-type': 'application/json', 'cache-control': 'no-cache, private' });
        held.add(stream);
        stream.once('close', () => held.delete(stream));
      })
    : createSecureServer(options, (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
        // As kscale's watch does (flushHeaders, which Node's types leave off the HTTP/2 response).
        (res as unknown as { flushHeaders(): void }).flushHeaders();
        held.add(res);
        res.once('close', () => held.delete(res));
      });
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  if (a === null || typeof a === 'string') throw new Error('no address');
  console.log(`bare server listening on https://127.0.0.1:${a.port}`);
});
process.on('SIGTERM', () => process.exit(0));
