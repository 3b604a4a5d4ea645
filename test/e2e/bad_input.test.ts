/**
 * Bad input against a real `kscale server`: every mistake a client can make
 * gets the Kubernetes Status upstream sends (kind Status, code, reason), and
 * the server keeps serving afterwards, including when clients vanish
 * mid-body or mid-watch and when the in-flight limits are tiny (429).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { startServer, type TestServer, INSECURE_PORT } from './harness.js';
import { readReply, send, type Obj, type Reply } from './raw_http.js';

const json = (
  base: string,
  method: string,
  path: string,
  body: unknown,
  contentType = 'application/json',
): Promise<Reply> => send(base, method, path, JSON.stringify(body), { 'Content-Type': contentType });

/** Asserts a response is a well-formed Failure Status with this code and reason. */
function assertStatus(r: Reply, code: number, reason: string, message?: RegExp): Obj {
  assert.equal(r.code, code, `HTTP ${r.code}: ${r.text.slice(0, 300)}`);
  assert.match(String(r.headers['content-type']), /^application\/json/);
  const s = r.body;
  assert.ok(s !== undefined, `a JSON body: ${r.text.slice(0, 200)}`);
  assert.equal(s.kind, 'Status');
  assert.equal(s.apiVersion, 'v1');
  assert.equal(s.status, 'Failure');
  assert.equal(s.code, code);
  assert.equal(s.reason, reason);
  assert.equal(typeof s.message, 'string');
  if (message !== undefined) assert.match(s.message as string, message);
  return s;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const CM = '/api/v1/namespaces/default/configmaps';
const configMap = (name: string, extra: Obj = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data: { k: 'v' },
  ...extra,
});

/** The server still works: its process is alive and it answers a list and a write. */
async function assertServing(srv: TestServer): Promise<void> {
  assert.equal(srv.process.exitCode, null, `server exited: ${srv.stderr()}`);
  assert.equal(srv.process.signalCode, null);
  const list = await send(srv.url, 'GET', CM);
  assert.equal(list.code, 200);
  assert.equal(list.body?.kind, 'ConfigMapList');
  const name = `alive-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  assert.equal((await json(srv.url, 'POST', CM, configMap(name))).code, 201);
}

describe('bad input', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startServer([...INSECURE_PORT]);
    assert.equal((await json(srv.url, 'POST', CM, configMap('existing'))).code, 201);
  });
  after(async () => {
    await srv?.stop();
  });

  test('malformed JSON is 400 BadRequest', async () => {
    for (const body of ['{"apiVersion":', '{', 'not json', '{"kind":"ConfigMap",}', '\u0000\u0001']) {
      assertStatus(await send(srv.url, 'POST', CM, body, { 'Content-Type': 'application/json' }), 400, 'BadRequest');
    }
  });

  test('malformed YAML is 400 BadRequest', async () => {
    for (const body of ['apiVersion: v1\nkind: [ConfigMap\n  : :', 'a: b: c\n  - d', 'key: "unterminated']) {
      assertStatus(await send(srv.url, 'POST', CM, body, { 'Content-Type': 'application/yaml' }), 400, 'BadRequest');
    }
  });

  test('valid YAML is accepted, so the 400s above are about syntax', async () => {
    const r = await send(
      srv.url,
      'POST',
      CM,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  a: b\n',
      { 'Content-Type': 'application/yaml' },
    );
    assert.equal(r.code, 201, r.text);
  });

  test('an empty body is 400 BadRequest', async () => {
    assertStatus(await send(srv.url, 'POST', CM, '', { 'Content-Type': 'application/json' }), 400, 'BadRequest');
  });

  test('a body over 3 MiB is 413 RequestEntityTooLarge, declared or chunked', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 1024, 0x61);
    assertStatus(
      await send(srv.url, 'POST', CM, big, { 'Content-Type': 'application/json' }),
      413,
      'RequestEntityTooLarge',
    );
    // Without Content-Length the limit applies while reading.
    const chunked = await new Promise<Reply>((resolve, reject) => {
      const req = request(new URL(CM, srv.url), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
      });
      req.on('error', reject);
      req.on('response', (res) => void readReply(res).then(resolve, reject));
      const piece = Buffer.alloc(256 * 1024, 0x61);
      let sent = 0;
      const pump = (): void => {
        while (sent < big.length) {
          sent += piece.length;
          if (!req.write(piece)) {
            req.once('drain', pump);
            return;
          }
        }
        req.end();
      };
      pump();
    });
    assertStatus(chunked, 413, 'RequestEntityTooLarge');
    await assertServing(srv);
  });

  test('an unknown content type is 415 UnsupportedMediaType', async () => {
    for (const ct of ['text/plain', 'application/xml', 'image/png', 'application/x-www-form-urlencoded']) {
      assertStatus(
        await send(srv.url, 'POST', CM, JSON.stringify(configMap('ct')), { 'Content-Type': ct }),
        415,
        'UnsupportedMediaType',
      );
    }
  });

  test('a truncated protobuf body is 400 BadRequest, one of another kind (an empty v1 Pod) too; PATCH refuses protobuf with 415', async () => {
    // typeMeta claims 11 bytes and has 9.
    const truncated = Buffer.from([
      0x6b, 0x38, 0x73, 0x00, 0x0a, 0x0b, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x05, 0x50, 0x6f, 0x64,
    ]);
    assertStatus(
      await send(srv.url, 'POST', CM, truncated, { 'Content-Type': 'application/vnd.kubernetes.protobuf' }),
      400,
      'BadRequest',
      /runs past the end/,
    );
    const proto = Buffer.from([
      0x6b, 0x38, 0x73, 0x00, 0x0a, 0x09, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x03, 0x50, 0x6f, 0x64,
    ]);
    assertStatus(
      await send(srv.url, 'POST', CM, proto, { 'Content-Type': 'application/vnd.kubernetes.protobuf' }),
      400,
      'BadRequest',
      /kind in the data \(Pod\)/,
    );
    assertStatus(
      await send(srv.url, 'PUT', `${CM}/existing`, proto, { 'Content-Type': 'application/vnd.kubernetes.protobuf' }),
      400,
      'BadRequest',
      /kind in the data \(Pod\)/,
    );
    assertStatus(
      await send(srv.url, 'PATCH', `${CM}/existing`, proto, { 'Content-Type': 'application/vnd.kubernetes.protobuf' }),
      415,
      'UnsupportedMediaType',
    );
  });

  test('a wrong kind or apiVersion in the body is 400 BadRequest', async () => {
    assertStatus(await json(srv.url, 'POST', CM, { ...configMap('wk'), kind: 'Secret' }), 400, 'BadRequest', /kind/);
    assertStatus(
      await json(srv.url, 'POST', CM, { ...configMap('wv'), apiVersion: 'v2' }),
      400,
      'BadRequest',
      /version/i,
    );
    assertStatus(await json(srv.url, 'POST', CM, { ...configMap('wg'), apiVersion: 'apps/v1' }), 400, 'BadRequest');
    assertStatus(
      await json(srv.url, 'PUT', `${CM}/existing`, { ...configMap('existing'), kind: 'Pod' }),
      400,
      'BadRequest',
    );
    assertStatus(await json(srv.url, 'POST', CM, [configMap('arr')]), 400, 'BadRequest');
    assertStatus(await json(srv.url, 'POST', CM, 'a string'), 400, 'BadRequest');
  });

  test('a name that differs between URL and body on PUT is 400 BadRequest', async () => {
    assertStatus(await json(srv.url, 'PUT', `${CM}/existing`, configMap('other')), 400, 'BadRequest', /name/);
  });

  test('a namespace that differs between URL and body is 400 BadRequest', async () => {
    const cm = configMap('nsx');
    cm.metadata.namespace = 'kube-system';
    assertStatus(await json(srv.url, 'POST', CM, cm), 400, 'BadRequest', /namespace/);
  });

  test('an unknown resource, group or version is 404 NotFound', async () => {
    assertStatus(await send(srv.url, 'GET', '/api/v1/namespaces/default/widgets'), 404, 'NotFound');
    assertStatus(await send(srv.url, 'GET', '/apis/nosuch.example.com/v1/things'), 404, 'NotFound');
    assertStatus(await send(srv.url, 'GET', '/api/v9/pods'), 404, 'NotFound');
    assertStatus(await json(srv.url, 'POST', '/api/v1/namespaces/default/widgets', configMap('w')), 404, 'NotFound');
    const missing = assertStatus(await send(srv.url, 'GET', `${CM}/no-such-object`), 404, 'NotFound');
    assert.equal(missing.details?.name, 'no-such-object');
    assert.equal(missing.details?.kind, 'configmaps');
  });

  test('a method the path does not allow is 405 MethodNotAllowed', async () => {
    assertStatus(
      await send(srv.url, 'PATCH', CM, '{}', { 'Content-Type': 'application/merge-patch+json' }),
      405,
      'MethodNotAllowed',
    );
    assertStatus(await json(srv.url, 'PUT', CM, configMap('x')), 405, 'MethodNotAllowed');
    assertStatus(await json(srv.url, 'POST', `${CM}/existing`, configMap('existing')), 405, 'MethodNotAllowed');
    // Writes to a namespaced collection need a namespace.
    assertStatus(await json(srv.url, 'POST', '/api/v1/configmaps', configMap('nons')), 405, 'MethodNotAllowed');
    // The object was not created by any of them.
    assertStatus(await send(srv.url, 'GET', `${CM}/x`), 404, 'NotFound');
  });

  test('invalid names are 422 Invalid with causes', async () => {
    for (const name of ['Bad_Name!', 'UPPER', '-leading', 'a'.repeat(254), 'dots..dots']) {
      const s = assertStatus(await json(srv.url, 'POST', CM, configMap(name)), 422, 'Invalid');
      assert.equal(s.details?.kind, 'ConfigMap');
      const causes = s.details?.causes as Obj[] | undefined;
      assert.ok(Array.isArray(causes) && causes.length > 0, `causes for ${name}`);
      assert.equal(causes[0]!.field, 'metadata.name');
      assert.equal(causes[0]!.reason, 'FieldValueInvalid');
    }
    const noName = assertStatus(
      await json(srv.url, 'POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }),
      422,
      'Invalid',
    );
    assert.equal((noName.details?.causes as Obj[])[0]!.reason, 'FieldValueRequired');
    // Label values are validated too.
    const lbl = assertStatus(
      await json(srv.url, 'POST', CM, { ...configMap('lbl'), metadata: { name: 'lbl', labels: { 'bad key!': 'v' } } }),
      422,
      'Invalid',
    );
    assert.ok((lbl.details?.causes as Obj[]).some((c) => String(c.field).startsWith('metadata.labels')));
  });

  test('a create of an existing name is 409 AlreadyExists', async () => {
    const s = assertStatus(await json(srv.url, 'POST', CM, configMap('existing')), 409, 'AlreadyExists');
    assert.equal(s.details?.name, 'existing');
  });

  test('an update with a stale resourceVersion is 409 Conflict', async () => {
    const cur = await send(srv.url, 'GET', `${CM}/existing`);
    const rv = cur.body!.metadata.resourceVersion as string;
    const bumped = await json(srv.url, 'PUT', `${CM}/existing`, { ...cur.body, data: { k: 'v2' } });
    assert.equal(bumped.code, 200, bumped.text);
    const stale: Obj = { ...cur.body, data: { k: 'v3' } };
    stale.metadata = { ...cur.body!.metadata, resourceVersion: rv };
    const s = assertStatus(await json(srv.url, 'PUT', `${CM}/existing`, stale), 409, 'Conflict');
    assert.equal(s.details?.name, 'existing');
    // A merge patch carrying a stale resourceVersion is a precondition too.
    assertStatus(
      await json(
        srv.url,
        'PATCH',
        `${CM}/existing`,
        { metadata: { resourceVersion: rv }, data: { k: 'v4' } },
        'application/merge-patch+json',
      ),
      409,
      'Conflict',
    );
    const after = await send(srv.url, 'GET', `${CM}/existing`);
    assert.equal(after.body!.data.k, 'v2');
  });

  test('a JSON patch of more than 10,000 operations is 413, and a copy bomb is 422; the object is unchanged', async () => {
    const before = await send(srv.url, 'GET', `${CM}/existing`);
    const many = Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/kind', value: 'ConfigMap' }));
    assertStatus(
      await json(srv.url, 'PATCH', `${CM}/existing`, many, 'application/json-patch+json'),
      413,
      'RequestEntityTooLarge',
    );
    // Each copy doubles the data map: 40 of them would make terabytes.
    const bomb = [
      { op: 'add', path: '/data/seed', value: 'x'.repeat(1000) },
      ...Array.from({ length: 40 }, (_, i) => ({ op: 'copy', from: '/data', path: `/data/d${i}` })),
    ];
    const s = assertStatus(
      await json(srv.url, 'PATCH', `${CM}/existing`, bomb, 'application/json-patch+json'),
      422,
      'Invalid',
    );
    assert.match(s.message ?? '', /accumulated size increase of copy/);
    const after = await send(srv.url, 'GET', `${CM}/existing`);
    assert.equal(after.body!.metadata.resourceVersion, before.body!.metadata.resourceVersion);
  });

  test('an update with resourceVersion "0" is unconditional, like upstream', async () => {
    const cur = await send(srv.url, 'GET', `${CM}/existing`);
    const body: Obj = { ...cur.body, metadata: { ...cur.body!.metadata, resourceVersion: '0' }, data: { k: 'rv0' } };
    const r = await json(srv.url, 'PUT', `${CM}/existing`, body);
    assert.equal(r.code, 200, r.text);
    assert.equal(r.body!.data.k, 'rv0');
    assert.notEqual(r.body!.metadata.resourceVersion, cur.body!.metadata.resourceVersion);
  });

  test('invalid resourceVersion, limit, dryRun and fieldValidation parameters are 400 BadRequest', async () => {
    assertStatus(await send(srv.url, 'GET', `${CM}?resourceVersion=abc`), 400, 'BadRequest');
    assertStatus(await send(srv.url, 'GET', `${CM}?limit=-1`), 400, 'BadRequest');
    assertStatus(await json(srv.url, 'POST', `${CM}?dryRun=Some`, configMap('dr')), 400, 'BadRequest');
    assertStatus(await json(srv.url, 'POST', `${CM}?fieldValidation=Loose`, configMap('fv')), 400, 'BadRequest');
    assertStatus(await send(srv.url, 'GET', `${CM}?watch=true&timeoutSeconds=-5`), 400, 'BadRequest');
  });

  test('an unknown field under fieldValidation=Strict is 400 strict decoding error', async () => {
    assertStatus(
      await json(srv.url, 'POST', `${CM}?fieldValidation=Strict`, { ...configMap('strict'), spec: { foo: 1 } }),
      400,
      'BadRequest',
      /strict decoding error: unknown field "spec"/,
    );
  });

  test('an invalid label selector is 400 BadRequest, on list and on watch', async () => {
    for (const sel of ['a===b', 'a in (b', '!', 'a=b,,', 'x notin']) {
      assertStatus(await send(srv.url, 'GET', `${CM}?labelSelector=${encodeURIComponent(sel)}`), 400, 'BadRequest');
    }
    assertStatus(
      await send(srv.url, 'GET', `${CM}?watch=true&labelSelector=${encodeURIComponent('a in (b')}`),
      400,
      'BadRequest',
    );
  });

  test('an unsupported field selector is 400 BadRequest, on list and on watch', async () => {
    assertStatus(
      await send(srv.url, 'GET', `/api/v1/pods?fieldSelector=${encodeURIComponent('spec.foo=x')}`),
      400,
      'BadRequest',
      /field label not supported/,
    );
    assertStatus(
      await send(srv.url, 'GET', `/api/v1/pods?watch=true&fieldSelector=${encodeURIComponent('spec.foo=x')}`),
      400,
      'BadRequest',
    );
    assertStatus(
      await send(srv.url, 'GET', `${CM}?fieldSelector=${encodeURIComponent('data.k=v')}`),
      400,
      'BadRequest',
    );
    assertStatus(
      await send(srv.url, 'GET', `${CM}?fieldSelector=${encodeURIComponent('metadata.name')}`),
      400,
      'BadRequest',
    );
  });

  test('a client that disconnects mid-body leaves the server serving', async () => {
    for (let i = 0; i < 5; i++) {
      await new Promise<void>((resolve) => {
        const sock = connect(Number(new URL(srv.url).port), '127.0.0.1', () => {
          sock.write(
            `POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"half"`,
          );
          setTimeout(() => {
            sock.destroy();
            resolve();
          }, 50);
        });
        sock.on('error', () => resolve());
      });
    }
    await sleep(100);
    await assertServing(srv);
    assertStatus(await send(srv.url, 'GET', `${CM}/half`), 404, 'NotFound');
  });

  test('a client that disconnects mid-watch leaves the server serving', async () => {
    for (let i = 0; i < 5; i++) {
      await new Promise<void>((resolve, reject) => {
        const req = request(new URL(`${CM}?watch=true`, srv.url));
        req.on('error', () => resolve());
        req.on('response', (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.end();
        setTimeout(() => reject(new Error('no watch event within 5 s')), 5_000).unref();
      });
    }
    // A raw socket that sends only half of the watch request line and then leaves.
    await new Promise<void>((resolve) => {
      const sock = connect(Number(new URL(srv.url).port), '127.0.0.1', () => {
        sock.write(`GET ${CM}?watch=tr`);
        setTimeout(() => {
          sock.destroy();
          resolve();
        }, 50);
      });
      sock.on('error', () => resolve());
    });
    // Changes after the watchers left must not trip over their closed sockets.
    for (let i = 0; i < 5; i++)
      assert.equal((await json(srv.url, 'POST', CM, configMap(`after-watch-${i}`))).code, 201);
    await sleep(200);
    await assertServing(srv);
  });

  test('nothing above caused an unexpected (500) error in the server', async () => {
    assert.doesNotMatch(srv.stderr(), /unexpected error/);
  });
});

describe('in-flight limits', () => {
  let srv: TestServer;
  before(async () => {
    // The max-in-flight filter itself: with APF on (the default) the plain port's system:masters is exempt.
    srv = await startServer([
      ...INSECURE_PORT,
      '--max-mutating-requests-inflight',
      '1',
      '--max-requests-inflight',
      '1',
      '--enable-priority-and-fairness=false',
    ]);
  });
  after(async () => {
    await srv?.stop();
  });

  test('a mutating request beyond --max-mutating-requests-inflight gets 429 with Retry-After', async () => {
    // A write whose body trickles in holds no slot (bodies are read before dispatch, beyond upstream).
    const body = Buffer.from(JSON.stringify(configMap('slow')));
    let finish!: () => void;
    const slow = new Promise<Reply>((resolve, reject) => {
      const req = request(new URL(CM, srv.url), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Length': body.length },
      });
      req.on('error', reject);
      req.on('response', (res) => void readReply(res).then(resolve, reject));
      req.write(body.subarray(0, 10));
      req.flushHeaders();
      finish = () => req.end(body.subarray(10));
    });
    await sleep(200);
    assert.equal((await json(srv.url, 'POST', CM, configMap('beside-slow'))).code, 201);
    // A bounded burst of concurrent writes over one slot: those arriving while it is held are refused.
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, i) => json(srv.url, 'POST', CM, configMap(`burst-${i}`))),
    );
    const refused = burst.filter((r) => r.code !== 201);
    assert.ok(refused.length >= 1, 'no write of the burst was refused');
    for (const r of refused) {
      const s = assertStatus(r, 429, 'TooManyRequests');
      assert.ok(Number(r.headers['retry-after']) >= 1, `Retry-After: ${r.headers['retry-after']}`);
      assert.ok(Number(s.details?.retryAfterSeconds) >= 1);
    }
    // Reads have their own pool, so a list still works.
    assert.equal((await send(srv.url, 'GET', CM)).code, 200);
    finish();
    assert.equal((await slow).code, 201);
    // Once the slot is free, writes succeed again.
    assert.equal((await json(srv.url, 'POST', CM, configMap('after-burst'))).code, 201);
  });

  test('a burst of concurrent writes is partly refused, and every reply is 201 or 429', async () => {
    const burst = await Promise.all(
      Array.from({ length: 40 }, (_, i) => json(srv.url, 'POST', CM, configMap(`many-${i}`))),
    );
    const codes = burst.map((r) => r.code);
    assert.ok(
      codes.every((c) => c === 201 || c === 429),
      `codes: ${codes.join(',')}`,
    );
    assert.ok(codes.includes(201));
    for (const r of burst.filter((x) => x.code === 429)) {
      assertStatus(r, 429, 'TooManyRequests');
      assert.ok(r.headers['retry-after'] !== undefined);
    }
    const list = await send(srv.url, 'GET', CM);
    const names = new Set((list.body!.items as Obj[]).map((o) => o.metadata.name as string));
    burst.forEach((r, i) => assert.equal(names.has(`many-${i}`), r.code === 201));
  });

  test('watches do not count against the read-only limit', async () => {
    const watches = await Promise.all(
      Array.from(
        { length: 3 },
        () =>
          new Promise<() => void>((resolve, reject) => {
            const req = request(new URL(`${CM}?watch=true&timeoutSeconds=10`, srv.url));
            req.on('error', reject);
            req.on('response', (res) => {
              assert.equal(res.statusCode, 200);
              resolve(() => req.destroy());
            });
            req.end();
          }),
      ),
    );
    assert.equal((await send(srv.url, 'GET', CM)).code, 200);
    for (const stop of watches) stop();
    assert.equal(srv.process.exitCode, null);
  });
});
