/**
 * A LIST served from the watch cache streams its items through two reused
 * 1 MiB chunks. Against a real `kscale server`: a list several chunks long
 * is valid JSON whose every item is byte-for-byte what a GET of it answers,
 * objects larger than a chunk go out whole, and a client that leaves in the
 * middle of a list neither breaks the server nor the next list.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startServer, type TestServer, INSECURE_PORT } from './harness.js';
import { send, type Obj } from './raw_http.js';

const CMS = '/api/v1/namespaces/default/configmaps';
const COUNT = 900;

let server: TestServer;
before(async () => {
  server = await startServer([...INSECURE_PORT]);
  // 900 ConfigMaps of ~4 KiB: ~3.6 MiB, so a list fills both chunks and reuses each. Two are bigger than a chunk (1 MiB of data plus metadata).
  const filler = 'x'.repeat(4_000);
  for (let i = 0; i < COUNT; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, COUNT - i) }, async (_, j) => {
        const n = i + j;
        const data = n === 100 || n === 600 ? { big: 'y'.repeat(1_048_500) } : { v: `${filler}${n}` };
        const r = await send(
          server.url,
          'POST',
          CMS,
          JSON.stringify({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: `cm-${String(n).padStart(4, '0')}` },
            data,
          }),
          { 'Content-Type': 'application/json' },
        );
        assert.equal(r.code, 201, r.text);
      }),
    );
  }
});
after(async () => {
  await server.stop();
});

test('a list of several chunks is valid JSON and each item is what its GET answers', async () => {
  for (const rv of ['0', '']) {
    const r = await send(server.url, 'GET', `${CMS}${rv === '' ? '' : `?resourceVersion=${rv}`}`);
    assert.equal(r.code, 200);
    assert.ok(r.text.length > 4 * 1024 * 1024, `the list spans several chunks (${r.text.length} bytes)`);
    const items = r.body!.items as Obj[];
    assert.equal(items.length, COUNT);
    assert.deepEqual(
      items.map((o) => o.metadata.name),
      Array.from({ length: COUNT }, (_, n) => `cm-${String(n).padStart(4, '0')}`),
    );
    for (const i of [0, 99, 100, 101, 450, 600, COUNT - 1]) {
      const one = await send(server.url, 'GET', `${CMS}/${items[i]!.metadata.name}`);
      assert.equal(JSON.stringify(items[i]), one.text.trim(), `item ${i} is its GET, resourceVersion included`);
    }
    assert.equal(items[100]!.data.big.length, 1_048_500);
    assert.ok(JSON.stringify(items[100]).length > 1 << 20, 'one item is larger than a whole chunk');
  }
});

test('a client that leaves in the middle of a list does not break the server or the next list', async () => {
  for (let k = 0; k < 3; k++) {
    await new Promise<void>((resolve, reject) => {
      const req = request(new URL(`${CMS}?resourceVersion=0`, server.url), (res) => {
        let got = 0;
        res.on('data', (d: Buffer) => {
          got += d.length;
          if (got > 1_500_000) req.destroy();
        });
        res.on('close', () => resolve());
      });
      req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve() : reject(err)));
      req.end();
    });
  }
  const ready = await send(server.url, 'GET', '/readyz');
  assert.equal(ready.code, 200);
  const r = await send(server.url, 'GET', `${CMS}?resourceVersion=0`);
  assert.equal(r.code, 200);
  assert.equal((r.body!.items as Obj[]).length, COUNT);
});
