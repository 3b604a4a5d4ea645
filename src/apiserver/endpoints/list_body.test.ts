import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, get, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EncodedObject, jsonCodec } from '../../storage/index.js';
import { ChunkedBody } from './list_body.js';

/** Serves one list of `n` objects of about `size` bytes through ChunkedBody over a real loopback socket. */
async function served(n: number, size: number, head = '{"items":['): Promise<{ text: string; writes: number }> {
  let writes = 0;
  const server = createServer((_req, res: ServerResponse) => {
    const write = res.write.bind(res);
    res.write = ((...args: Parameters<typeof write>) => {
      writes++;
      return write(...args);
    }) as typeof res.write;
    void (async () => {
      const body = new ChunkedBody(res);
      body.text(head);
      for (let i = 0; i < n; i++) {
        const stored = Buffer.from(
          JSON.stringify({
            kind: 'ConfigMap',
            apiVersion: 'v1',
            metadata: { name: `cm-${i}` },
            data: { v: 'x'.repeat(size) },
          }),
        );
        const o = new EncodedObject(`/cm-${i}`, stored, i + 1, jsonCodec);
        if (i > 0) body.text(',');
        if (!body.object(o) && !(await body.flushThen(o))) return;
      }
      body.text(']}');
      body.end();
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const port = (server.address() as AddressInfo).port;
    const text = await new Promise<string>((resolve, reject) =>
      get({ host: '127.0.0.1', port, path: '/' }, (res) => {
        let t = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (t += d));
        res.on('end', () => resolve(t));
      }).on('error', reject),
    );
    return { text, writes };
  } finally {
    server.close();
  }
}

function check(text: string, n: number): void {
  const list = JSON.parse(text) as { items: { metadata: { name: string; resourceVersion: string } }[] };
  assert.equal(list.items.length, n);
  list.items.forEach((o, i) => {
    assert.equal(o.metadata.name, `cm-${i}`);
    assert.equal(o.metadata.resourceVersion, String(i + 1));
  });
}

test('a small list is one write at the end, in a buffer grown from 16 KiB as it filled', async () => {
  const { text, writes } = await served(40, 1000);
  check(text, 40);
  assert.equal(writes, 0, 'no chunk was flushed: the body went out with end()');
});

test('a list past 1 MiB streams in chunks and arrives whole and in order', async () => {
  const { text, writes } = await served(3000, 1000);
  check(text, 3000);
  assert.ok(writes >= 2, `about 3 MiB in 1 MiB chunks: ${writes} writes before the end`);
});

test('an object larger than a chunk, and a head larger than the first buffer, still arrive whole', async () => {
  check((await served(2, 1_200_000)).text, 2);
  const head = `{"metadata":{"continue":"${'c'.repeat(40_000)}"},"items":[`;
  const { text } = await served(3, 10, head);
  check(text, 3);
  assert.equal((JSON.parse(text) as { metadata: { continue: string } }).metadata.continue.length, 40_000);
});
