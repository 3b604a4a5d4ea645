import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { RESTClient } from './client.js';
import { ResourceClient } from './resource.js';
import { RESOURCES } from './resources.js';

async function serve(handler: http.RequestListener, fn: (url: string) => Promise<void>): Promise<void> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    await fn(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

const ev = (type: string, rv: number): string =>
  JSON.stringify({ type, object: { kind: 'Pod', metadata: { name: `p${rv}`, resourceVersion: String(rv) } } });

test('events split across chunks are decoded line by line', async () => {
  let query = '';
  await serve(
    (req, res) => {
      query = req.url!;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const text = `${ev('ADDED', 1)}\n${ev('MODIFIED', 2)}\n${ev('BOOKMARK', 3)}\n`;
      res.write(text.slice(0, 17));
      setImmediate(() => res.end(text.slice(17)));
    },
    async (url) => {
      const pods = new ResourceClient(new RESTClient({ host: url }), RESOURCES.pods);
      const w = await pods.watch({
        namespace: 'ns',
        fieldSelector: 'spec.nodeName=n1',
        resourceVersion: '5',
        allowWatchBookmarks: true,
      });
      const got: string[] = [];
      for await (const e of w)
        got.push(`${e.type}:${(e.object as { metadata: { resourceVersion: string } }).metadata.resourceVersion}`);
      assert.deepEqual(got, ['ADDED:1', 'MODIFIED:2', 'BOOKMARK:3']);
      assert.match(query, /^\/api\/v1\/namespaces\/ns\/pods\?/);
      assert.match(query, /fieldSelector=spec.nodeName%3Dn1/);
      assert.match(query, /allowWatchBookmarks=true/);
      assert.match(query, /watch=true/);
    },
  );
});

test('a slow consumer pauses the socket instead of buffering without bound', async () => {
  let written = 0;
  let resOut: http.ServerResponse | undefined;
  await serve(
    (_req, res) => {
      resOut = res;
      res.writeHead(200);
      const big = 'x'.repeat(1000);
      const pump = (): void => {
        while (written < 100_000) {
          written++;
          if (!res.write(`{"type":"ADDED","object":{"metadata":{"name":"${big}"}}}\n`))
            return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    },
    async (url) => {
      const pods = new ResourceClient(new RESTClient({ host: url }), RESOURCES.pods);
      const w = await pods.watch({ bufferSize: 10 });
      const it = w[Symbol.asyncIterator]();
      await it.next();
      await new Promise((r) => setTimeout(r, 200));
      // Kernel socket buffers hold a few MB; without backpressure all 100 MB would be read into memory.
      assert.ok(written < 20_000, `server could write only until backpressure: ${written}`);
      w.stop();
      assert.equal((await it.next()).done, true, 'stop ends the iteration');
      assert.ok(resOut !== undefined);
    },
  );
});

test('a non-200 watch rejects with the Status', async () => {
  await serve(
    (_req, res) =>
      res
        .writeHead(410)
        .end(
          JSON.stringify({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 1 (5)' }),
        ),
    async (url) => {
      const pods = new ResourceClient(new RESTClient({ host: url }), RESOURCES.pods);
      await assert.rejects(pods.watch({ resourceVersion: '1' }), /too old resource version/);
    },
  );
});

test('a multi-byte character cut by a chunk boundary, and blank lines, decode intact', async () => {
  const name = 'π-ünïcødé-名前';
  await serve(
    (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const bytes = Buffer.from(
        `\n${JSON.stringify({ type: 'ADDED', object: { kind: 'ConfigMap', metadata: { name, resourceVersion: '7' } } })}\n \r\n`,
      );
      // Cut inside the first byte pair of 'π' and again inside '名'.
      const cut1 = bytes.indexOf(Buffer.from('π')) + 1;
      const cut2 = bytes.indexOf(Buffer.from('名')) + 2;
      res.write(bytes.subarray(0, cut1));
      setImmediate(() => {
        res.write(bytes.subarray(cut1, cut2));
        setImmediate(() => res.end(bytes.subarray(cut2)));
      });
    },
    async (url) => {
      const cms = new ResourceClient(new RESTClient({ host: url }), RESOURCES.configmaps);
      const got: string[] = [];
      for await (const e of await cms.watch({ namespace: 'ns' }))
        got.push(`${e.type}:${(e.object as { metadata: { name: string } }).metadata.name}`);
      assert.deepEqual(got, [`ADDED:${name}`]);
    },
  );
});

test('a consumed watch pushes what arrived before and after consume, then its end; stop() ends it silently', async () => {
  let resOut: http.ServerResponse | undefined;
  await serve(
    (_req, res) => {
      resOut = res;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(`${ev('ADDED', 1)}\n${ev('MODIFIED', 2)}\n`);
    },
    async (url) => {
      const pods = new ResourceClient(new RESTClient({ host: url }), RESOURCES.pods);
      const w = await pods.watch();
      // Let the first events arrive (and queue) before anyone consumes.
      await new Promise((r) => setTimeout(r, 100));
      const got: string[] = [];
      let ended: string | undefined;
      const endedP = new Promise<void>((resolve) =>
        w.consume!({
          event: (e) =>
            void got.push(
              `${e.type}:${(e.object as { metadata: { resourceVersion: string } }).metadata.resourceVersion}`,
            ),
          end: (err) => {
            ended = err === undefined ? 'clean' : err.message;
            resolve();
          },
        }),
      );
      assert.deepEqual(got, ['ADDED:1', 'MODIFIED:2'], 'the queued events, at once');
      resOut!.end(`${ev('DELETED', 3)}\n`);
      await endedP;
      assert.deepEqual(got, ['ADDED:1', 'MODIFIED:2', 'DELETED:3']);
      assert.equal(ended, 'clean');
      assert.throws(() => w.consume!({ event: () => undefined, end: () => undefined }), /already consumed/);

      const w2 = await pods.watch();
      let calls = 0;
      w2.consume!({ event: () => calls++, end: () => calls++ });
      await new Promise((r) => setTimeout(r, 100));
      const before = calls;
      w2.stop();
      resOut!.end(`${ev('ADDED', 4)}\n`);
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(calls, before, 'nothing after stop(), not even the end');
    },
  );
});

test('a consumed watch ends with the error when a line does not decode or the sink throws', async () => {
  let line = '';
  await serve(
    (_req, res) => {
      res.writeHead(200);
      res.write(`${ev('ADDED', 1)}\n${line}\n${ev('ADDED', 2)}\n`);
    },
    async (url) => {
      const pods = new ResourceClient(new RESTClient({ host: url }), RESOURCES.pods);
      for (const [bad, throwOn, want] of [
        ['{not json', 0, /cannot decode event/],
        [ev('MODIFIED', 9), 9, /sink refused 9/],
      ] as const) {
        line = bad;
        const w = await pods.watch();
        const seen: number[] = [];
        const err = await new Promise<Error | undefined>((resolve) =>
          w.consume!({
            event: (e) => {
              const rv = Number((e.object as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
              if (rv === throwOn) throw new Error(`sink refused ${rv}`);
              seen.push(rv);
            },
            end: resolve,
          }),
        );
        assert.match(String(err), want);
        assert.deepEqual(seen, [1], 'nothing after the failing line');
      }
    },
  );
});
