/**
 * The reference ceiling: bare Node `http` with no framework, no storage and no
 * handler chain. GET answers the Pod bytes from memory; PUT and POST read the
 * body, parse it, bump metadata.resourceVersion and re-encode it. Forked by
 * main.ts with the Pod bytes in an IPC message; replies with its port.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The message that starts the reference server. */
export interface BareStart {
  type: 'start';
  /** The Pod JSON served by GET (the bytes kscale serves for the same object). */
  pod: string;
}

function serve(podJSON: string): void {
  const pod = Buffer.from(podJSON);
  let rv = 1;
  // The same server settings as kscale's ApiServer.
  const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 0, headersTimeout: 60_000 }, (req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': pod.length });
      res.end(pod);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let out: Buffer;
      try {
        const obj = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { metadata?: { resourceVersion?: string } };
        obj.metadata ??= {};
        obj.metadata.resourceVersion = String(++rv);
        out = Buffer.from(JSON.stringify(obj));
      } catch (err) {
        res.writeHead(400, { 'Content-Type': 'text/plain' });
        res.end((err as Error).message);
        return;
      }
      res.writeHead(req.method === 'POST' ? 201 : 200, {
        'Content-Type': 'application/json',
        'Content-Length': out.length,
      });
      res.end(out);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    process.send!({ type: 'listening', port: (server.address() as AddressInfo).port });
  });
}

if (process.send !== undefined) {
  process.once('message', (m: BareStart) => serve(m.pod));
  process.on('disconnect', () => process.exit(0));
}
