/**
 * Fuzzing a live `kscale server` with thousands of malformed requests:
 * random methods, paths built from real segments plus garbage, random query
 * parameters and content types, and bodies made by mutating valid objects
 * (truncation, garbling, invalid UTF-8, huge numbers, deep nesting, wrong
 * types). Every answer must be a well-formed Status (or a valid object for
 * the rare request that happens to be valid) and never a 5xx the server
 * cannot justify. Afterwards the server must still serve, and objects
 * created before the fuzz must be untouched.
 *
 * The PRNG is seeded: rerun a failure with FUZZ_SEED=<seed printed below>.
 * FUZZ_REQUESTS overrides the request count (default 3000).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { startServer, type TestServer, INSECURE_PORT } from './harness.js';
import { seededRandom as prng } from '../robustness/seeded_random.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- fuzz bodies and replies are dynamic JSON
type Obj = Record<string, any>;

/** Random choices over one seeded stream. */
class Gen {
  constructor(readonly rand: () => number) {}
  int(n: number): number {
    return Math.floor(this.rand() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  chance(p: number): boolean {
    return this.rand() < p;
  }
  /** A short string of printable ASCII, sometimes with percent escapes. */
  garbage(max = 12): string {
    const alphabet = "abcXYZ019-_.~!$&'()*+,;=:@%";
    let s = '';
    const n = 1 + this.int(max);
    for (let i = 0; i < n; i++) s += alphabet[this.int(alphabet.length)];
    return s;
  }
}

const METHODS = [
  'GET',
  'GET',
  'GET',
  'POST',
  'POST',
  'POST',
  'POST',
  'PUT',
  'PUT',
  'PUT',
  'PATCH',
  'PATCH',
  'PATCH',
  'PATCH',
  'DELETE',
  'DELETE',
  'HEAD',
  'OPTIONS',
  'PROPFIND',
  'TRACE',
];
const RESOURCES = [
  'pods',
  'configmaps',
  'secrets',
  'services',
  'nodes',
  'namespaces',
  'deployments',
  'replicasets',
  'events',
  'leases',
  'endpoints',
  'serviceaccounts',
  'jobs',
  'widgets',
];
const GROUPS = [
  'api/v1',
  'apis/apps/v1',
  'apis/batch/v1',
  'apis/coordination.k8s.io/v1',
  'apis/policy/v1',
  'apis/nosuch.io/v1',
  'api/v2',
  'apis/apps',
];
const SUBRESOURCES = [
  'status',
  'scale',
  'binding',
  'eviction',
  'finalize',
  'log',
  'proxy',
  'exec',
  'ephemeralcontainers',
];
const NAMESPACES = ['fuzz', 'default', 'kube-system', 'nonexistent'];
const NAMES = ['fz-cm', 'fz-pod', 'fz-dep', 'node-fz', 'fuzz', 'x', 'UPPER', '-bad-', 'a.b.c'];
const NON_RESOURCE = [
  '/',
  '/api',
  '/apis',
  '/version',
  '/healthz',
  '/readyz',
  '/livez',
  '/openapi/v2',
  '/openapi/v3',
  '/metrics',
  '/apis/apps',
  '/healthz/etcd',
  '/nope',
  '/api/',
  '/apis/apps/v1',
  '/.well-known/openid-configuration',
  '/openid/v1/jwks',
];
const PARAMS = [
  'watch',
  'resourceVersion',
  'resourceVersionMatch',
  'labelSelector',
  'fieldSelector',
  'limit',
  'continue',
  'timeoutSeconds',
  'dryRun',
  'fieldManager',
  'force',
  'fieldValidation',
  'gracePeriodSeconds',
  'propagationPolicy',
  'allowWatchBookmarks',
  'includeObject',
  'pretty',
  'orphanDependents',
  'sendInitialEvents',
];
const PARAM_VALUES = [
  'true',
  'false',
  '1',
  '0',
  '-1',
  '',
  'All',
  'Strict',
  'Warn',
  'Ignore',
  'Exact',
  'NotOlderThan',
  'Foreground',
  'Orphan',
  '99999999999999999999999',
  '1e309',
  'NaN',
  'app=web',
  'app in (a,b)',
  'a===b',
  'spec.nodeName=node-a',
  'metadata.name!=x',
  'status.phase=Running,spec.nodeName=',
  'spec.bogus=1',
  '!app',
  'x'.repeat(300),
  '%zz',
  '%00',
  '%E2%82',
  '\u00e9',
  'None',
  'Object',
  '2',
  '3600',
];
const CONTENT_TYPES = [
  'application/json',
  'application/json',
  'application/json',
  'application/yaml',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/json-patch+json',
  'application/apply-patch+yaml',
  'application/vnd.kubernetes.protobuf',
  'text/plain',
  'application/json; charset=utf-8',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'garbage/garbage',
  '',
  'APPLICATION/JSON',
  'application/json;;;',
];

/** Valid objects that the body mutations start from. */
function templates(): Obj[] {
  return [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fz-cm', labels: { app: 'web' } }, data: { a: 'b' } },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'fz-secret' }, type: 'Opaque', stringData: { p: 'q' } },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'fz-pod', labels: { app: 'web' } },
      spec: {
        nodeName: 'node-a',
        containers: [
          {
            name: 'c',
            image: 'busybox',
            ports: [{ containerPort: 80 }],
            resources: { requests: { cpu: '100m', memory: '64Mi' } },
          },
        ],
      },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'fz-dep' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'fz' } },
        template: { metadata: { labels: { app: 'fz' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'fz-svc' },
      spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
    },
    {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-fz' },
      spec: { unschedulable: true },
      status: { capacity: { cpu: '4', memory: '8Gi', pods: '110' } },
    },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fuzz-ns' } },
    {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'fz-lease' },
      spec: { holderIdentity: 'x', leaseDurationSeconds: 40 },
    },
    {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'fz-pod' },
      target: { apiVersion: 'v1', kind: 'Node', name: 'node-a' },
    },
    { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'fz-pod' } },
    { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'fz-dep' }, spec: { replicas: 3 } },
  ];
}

/** Every (parent, key) slot in a JSON value, for mutations. */
function slots(v: unknown, out: [Obj | unknown[], string | number][] = []): [Obj | unknown[], string | number][] {
  if (Array.isArray(v))
    v.forEach((x, i) => {
      out.push([v, i]);
      slots(x, out);
    });
  else if (v !== null && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      out.push([v as Obj, k]);
      slots(x, out);
    }
  return out;
}

/** A value of a random (usually wrong) type. */
function oddValue(g: Gen): unknown {
  return g.pick<() => unknown>([
    () => null,
    () => true,
    () => -1,
    () => 0,
    () => 2 ** 53 + 1,
    () => 1e308,
    () => -1e-320,
    () => 3.5,
    () => '',
    () => 'x'.repeat(g.int(5000)),
    () => [],
    () => [1, 'a', null],
    () => ({}),
    () => ({ a: { b: { c: [] } } }),
    () => '\u0000\u001f',
    () => '\ud800',
    () => 'ünïcödé',
    () => g.garbage(),
  ])();
}

/** Deep nesting as text, wrapped in a valid object head. */
function deepBody(g: Gen): string {
  const depth = g.pick([100, 1_000, 5_000, 9_990, 100_000]);
  const open = g.chance(0.5) ? '[' : '{"a":';
  const close = open === '[' ? ']' : '}';
  const inner = open.repeat(depth) + '1' + (g.chance(0.8) ? close.repeat(depth) : '');
  return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep-${g.int(1e6)}","annotations":${inner}}}`;
}

/** A request body: a mutated valid object, encoded, and often damaged on the way. */
function body(g: Gen, resource = ''): Buffer | undefined {
  if (g.chance(0.12)) return undefined;
  if (g.chance(0.05)) return Buffer.from(deepBody(g));
  if (g.chance(0.05)) {
    // A JSON patch, valid or not.
    return Buffer.from(
      JSON.stringify(
        g.chance(0.5)
          ? [
              {
                op: g.pick(['add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus']),
                path: g.pick(['/metadata/labels/x', '/spec', '', '/a/b/c', '/metadata/name', '/~2']),
                value: oddValue(g),
                from: '/metadata',
              },
            ]
          : oddValue(g),
      ),
    );
  }
  // Usually the kind the path expects, so the body gets past the kind check into decoding and validation.
  const matching = templates().filter((o) => `${(o.kind as string).toLowerCase()}s` === resource);
  const obj = structuredClone(matching.length > 0 && g.chance(0.7) ? matching[0]! : g.pick(templates()));
  const nMut = g.int(4);
  for (let i = 0; i < nMut; i++) {
    const all = slots(obj);
    if (all.length === 0) break;
    const [parent, key] = g.pick(all);
    switch (g.int(4)) {
      case 0:
        if (Array.isArray(parent)) parent.splice(key as number, 1);
        else delete parent[key as string];
        break;
      case 1:
        (parent as Obj)[key as string] = oddValue(g);
        break;
      case 2:
        if (!Array.isArray(parent)) parent[g.garbage(6)] = oddValue(g);
        break;
      default:
        if (!Array.isArray(parent)) parent[key as string] = structuredClone(obj);
    }
  }
  let text = g.chance(0.1) && obj.metadata !== undefined ? yamlish(obj) : JSON.stringify(obj);
  if (g.chance(0.1))
    text = text.replace(
      /\d+/,
      g.pick(['1e400', '99999999999999999999999999999', '-0', '0x10', '1.', '.5', 'Infinity', 'NaN']),
    );
  let bytes = Buffer.from(text);
  if (g.chance(0.15)) bytes = bytes.subarray(0, g.int(bytes.length));
  if (g.chance(0.1)) {
    bytes = Buffer.from(bytes);
    for (let i = 0; i < 1 + g.int(5); i++) if (bytes.length > 0) bytes[g.int(bytes.length)] = g.int(256);
  }
  if (g.chance(0.08)) {
    const at = g.int(bytes.length + 1);
    bytes = Buffer.concat([
      bytes.subarray(0, at),
      Buffer.from(g.pick([[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf0, 0x28, 0x8c, 0x28], [0xe2, 0x82], [0x00]])),
      bytes.subarray(at),
    ]);
  }
  return bytes;
}

/** A rough YAML rendering (flow style is valid YAML), sometimes broken. */
function yamlish(obj: Obj): string {
  const lines = [
    `apiVersion: ${String(obj.apiVersion)}`,
    `kind: ${String(obj.kind)}`,
    `metadata: ${JSON.stringify(obj.metadata)}`,
  ];
  for (const [k, v] of Object.entries(obj))
    if (!['apiVersion', 'kind', 'metadata'].includes(k)) lines.push(`${k}: ${JSON.stringify(v)}`);
  return lines.join('\n') + '\n';
}

/** Real resources with their group-version, scope, existing target names and subresources. */
const REAL: { gv: string; resource: string; namespaced: boolean; names: string[]; subs: string[] }[] = [
  { gv: 'api/v1', resource: 'configmaps', namespaced: true, names: ['fz-cm'], subs: [] },
  { gv: 'api/v1', resource: 'secrets', namespaced: true, names: ['fz-secret'], subs: [] },
  { gv: 'api/v1', resource: 'pods', namespaced: true, names: ['fz-pod'], subs: ['status', 'binding', 'eviction'] },
  { gv: 'api/v1', resource: 'services', namespaced: true, names: ['fz-svc'], subs: ['status'] },
  { gv: 'api/v1', resource: 'nodes', namespaced: false, names: ['node-fz'], subs: ['status'] },
  // Never the "fuzz" namespace itself: deleting it would turn the rest of the run into 404s.
  { gv: 'api/v1', resource: 'namespaces', namespaced: false, names: ['fuzz-ns'], subs: ['status', 'finalize'] },
  { gv: 'apis/apps/v1', resource: 'deployments', namespaced: true, names: ['fz-dep'], subs: ['status', 'scale'] },
  { gv: 'apis/coordination.k8s.io/v1', resource: 'leases', namespaced: true, names: ['fz-lease'], subs: [] },
  { gv: 'api/v1', resource: 'events', namespaced: true, names: ['fz-ev'], subs: [] },
  { gv: 'api/v1', resource: 'serviceaccounts', namespaced: true, names: ['default'], subs: ['token'] },
];

/** A well-formed path to a real resource: most requests reach the handlers and their decoding. */
function realPath(g: Gen, method: string): string {
  const r = g.pick(REAL);
  let p = `/${r.gv}`;
  if (g.chance(0.05)) p += '/watch';
  if (r.namespaced && g.chance(0.9)) p += `/namespaces/${g.chance(0.9) ? 'fuzz' : 'default'}`;
  p += `/${r.resource}`;
  // POST mostly goes to a collection, the rest mostly to an item.
  if (method === 'POST' ? g.chance(0.15) : g.chance(0.8)) {
    p += `/${g.chance(0.7) ? g.pick(r.names) : g.pick(['fz-new', `fz-${g.int(50)}`])}`;
    if (r.subs.length > 0 && g.chance(0.2)) p += `/${g.pick(r.subs)}`;
  }
  return p;
}

function path(g: Gen, method: string): string {
  if (g.chance(0.65)) return realPath(g, method);
  if (g.chance(0.08)) return g.pick(NON_RESOURCE) + (g.chance(0.3) ? `/${g.garbage()}` : '');
  const segs: string[] = [g.pick(GROUPS)];
  if (g.chance(0.08)) segs.push('watch');
  if (g.chance(0.6)) segs.push('namespaces', g.chance(0.9) ? g.pick(NAMESPACES) : g.garbage());
  segs.push(g.chance(0.92) ? g.pick(RESOURCES) : g.garbage());
  if (g.chance(0.55)) segs.push(g.chance(0.85) ? g.pick(NAMES) : g.garbage(40));
  if (g.chance(0.15)) segs.push(g.chance(0.8) ? g.pick(SUBRESOURCES) : g.garbage());
  if (g.chance(0.05)) segs.push(g.garbage());
  let p = `/${segs.join('/')}`;
  if (g.chance(0.04)) p = p.replace(/\//g, () => g.pick(['/', '//', '/./', '/../']));
  if (g.chance(0.03)) p += '/';
  return p;
}

function query(g: Gen): string {
  const n = g.chance(0.5) ? 0 : 1 + g.int(4);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    const k = g.chance(0.9) ? g.pick(PARAMS) : g.garbage(8);
    const v = g.pick(PARAM_VALUES);
    parts.push(`${k}=${g.chance(0.8) ? encodeURIComponent(v) : v.replace(/[^\u0021-\u007e]/g, '')}`);
  }
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string | number>;
  body: Buffer | undefined;
}

function generate(g: Gen): FuzzRequest {
  const method = g.pick(METHODS);
  const headers: Record<string, string | number> = {};
  const p = path(g, method);
  const resource = /\/(configmaps|secrets|pods|services|nodes|namespaces|deployments|leases)(\/|$)/.exec(p)?.[1] ?? '';
  const b =
    method === 'GET' || method === 'HEAD' ? (g.chance(0.05) ? body(g, resource) : undefined) : body(g, resource);
  const ct = g.pick(CONTENT_TYPES);
  if (ct !== '') headers['Content-Type'] = ct;
  if (g.chance(0.2))
    headers.Accept = g.pick([
      'application/json;as=Table;v=v1;g=meta.k8s.io',
      'application/vnd.kubernetes.protobuf',
      '*/*',
      'text/html',
      'application/json;as=Table;v=v9;g=x',
      'application/yaml',
    ]);
  return { method, path: p + query(g), headers, body: b };
}

interface Reply {
  code: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The client cut a streaming (watch) response after its first bytes. */
  cut: boolean;
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/** Sends one request; a response still streaming after `streamMs` (a watch) is cut and returned as is. */
function send(base: string, r: FuzzRequest, streamMs = 300): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers = { ...r.headers };
    if (r.body !== undefined) headers['Content-Length'] = r.body.length;
    // Host and path apart: a path like //apis/... must not be read as a protocol-relative URL.
    const u = new URL(base);
    const req = request({ host: u.hostname, port: u.port, path: r.path, method: r.method, headers, agent });
    const hard = setTimeout(() => {
      req.destroy();
      reject(new Error('no response within 10 s'));
    }, 10_000);
    req.on('error', (err) => {
      clearTimeout(hard);
      reject(err);
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let cut = false;
      const t = setTimeout(() => {
        cut = true;
        req.destroy();
        done();
      }, streamMs);
      const done = (): void => {
        clearTimeout(t);
        clearTimeout(hard);
        resolve({ code: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), cut });
      };
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', done);
      res.on('error', () => {
        if (!cut) done();
      });
    });
    req.end(r.body);
  });
}

/** Why a reply is not acceptable, or undefined when it is. */
function judge(r: FuzzRequest, rep: Reply): string | undefined {
  const ct = String(rep.headers['content-type'] ?? '');
  const text = rep.body.toString('utf8');
  const bare = r.path.split('?')[0]!;
  const isResourcePath =
    /^\/apis?\/[^/]+\/[^/]+/.test(bare.replace(/\/+/g, '/')) && !/^\/apis\/[^/]+\/[^/]+\/?$/.test(bare);
  if (rep.code >= 500) {
    // Justified: a resourceVersion beyond the store's is 504 Timeout, as upstream.
    const st = parseJSON(text);
    if (
      rep.code === 504 &&
      st?.kind === 'Status' &&
      st.reason === 'Timeout' &&
      /Too large resource version/.test(String(st.message))
    )
      return undefined;
    // HEAD has no body to check; the same 504 for a resourceVersion ahead of the store.
    if (r.method === 'HEAD' && rep.code === 504 && /[?&]resourceVersion=/.test(r.path)) return undefined;
    return `server error ${rep.code}: ${text.slice(0, 300)}`;
  }
  if (rep.code >= 400) {
    if (r.method === 'HEAD') return undefined;
    const st = parseJSON(text);
    if (st === undefined) return `error ${rep.code} without a JSON Status: ${ct} ${text.slice(0, 200)}`;
    if (st.kind !== 'Status' || st.apiVersion !== 'v1' || st.status !== 'Failure')
      return `error ${rep.code} body is not a Failure Status: ${text.slice(0, 200)}`;
    if (st.code !== rep.code) return `Status code ${st.code} differs from HTTP ${rep.code}`;
    if (typeof st.reason !== 'string' || st.reason === '' || typeof st.message !== 'string')
      return `Status without reason or message: ${text.slice(0, 200)}`;
    if (!/^application\/json/.test(ct)) return `Status with Content-Type ${ct}`;
    return undefined;
  }
  // 1xx-3xx: the rare valid request.
  if (r.method === 'HEAD' || rep.code === 204) return undefined;
  if (!/^application\/json/.test(ct)) {
    // Non-resource endpoints answer text (healthz, metrics) or protobuf (openapi/v2).
    return isResourcePath ? `resource reply ${rep.code} with Content-Type ${ct}` : undefined;
  }
  if (rep.cut || /[?&]watch=(true|1)\b/.test(r.path) || bare.includes('/watch/')) {
    // A watch stream: every complete line is one event.
    const lines = text.split('\n');
    lines.pop();
    for (const line of lines) {
      const ev = parseJSON(line);
      if (ev === undefined || typeof ev.type !== 'string' || typeof ev.object !== 'object')
        return `bad watch line: ${line.slice(0, 200)}`;
      if (ev.type === 'ERROR' && typeof ev.object.code === 'number' && ev.object.code >= 500)
        return `watch ERROR ${line.slice(0, 200)}`;
    }
    return undefined;
  }
  const obj = parseJSON(text);
  if (obj === undefined) return `reply ${rep.code} is not JSON: ${text.slice(0, 200)}`;
  if (isResourcePath && typeof obj.kind !== 'string') return `reply ${rep.code} without kind: ${text.slice(0, 200)}`;
  return undefined;
}

function parseJSON(text: string): Obj | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
  } catch {
    return undefined;
  }
}

async function call(base: string, method: string, p: string, b?: unknown): Promise<{ code: number; body: Obj }> {
  const rep = await send(
    base,
    {
      method,
      path: p,
      headers: b === undefined ? {} : { 'Content-Type': 'application/json' },
      body: b === undefined ? undefined : Buffer.from(JSON.stringify(b)),
    },
    5_000,
  );
  return { code: rep.code, body: JSON.parse(rep.body.toString('utf8')) as Obj };
}

describe('fuzz', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startServer([...INSECURE_PORT]);
  });
  after(async () => {
    agent.destroy();
    await srv?.stop();
  });

  test('thousands of malformed requests get well-formed Statuses, and the server and its data survive', async (t) => {
    const seed =
      process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
    const total = Number(process.env.FUZZ_REQUESTS ?? 3000);
    t.diagnostic(`FUZZ_SEED=${seed}`);
    process.stdout.write(`# fuzz: FUZZ_SEED=${seed} FUZZ_REQUESTS=${total}\n`);
    const g = new Gen(prng(seed));

    // Objects the fuzz must not touch: the protected namespace never appears in generated paths.
    assert.equal(
      (
        await call(srv.url, 'POST', '/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: 'fuzz-protected' },
        })
      ).code,
      201,
    );
    assert.equal(
      (
        await call(srv.url, 'POST', '/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: 'fuzz' },
        })
      ).code,
      201,
    );
    const protectedPaths: string[] = [];
    for (const tpl of templates().filter((o) =>
      ['ConfigMap', 'Secret', 'Pod', 'Deployment', 'Service'].includes(o.kind as string),
    )) {
      const plural = `${(tpl.kind as string).toLowerCase()}s`;
      const base =
        tpl.apiVersion === 'v1'
          ? `/api/v1/namespaces/fuzz-protected/${plural}`
          : `/apis/${tpl.apiVersion}/namespaces/fuzz-protected/${plural}`;
      const r = await call(srv.url, 'POST', base, tpl);
      assert.equal(r.code, 201, JSON.stringify(r.body));
      protectedPaths.push(`${base}/${tpl.metadata.name}`);
      // The same objects in the fuzz namespace, as targets.
      await call(srv.url, 'POST', base.replace('fuzz-protected', 'fuzz'), tpl);
    }
    // Targets in the fuzz namespace come back every so often, so deletes early on do not turn the rest into 404s.
    const replenish = async (): Promise<void> => {
      for (const tpl of templates()) {
        const ns = ['Node', 'Namespace'].includes(tpl.kind as string) ? '' : '/namespaces/fuzz';
        const plural = `${(tpl.kind as string).toLowerCase()}s`;
        if (['Binding', 'Eviction', 'Scale'].includes(tpl.kind as string)) continue;
        const gv = tpl.apiVersion === 'v1' ? 'api/v1' : `apis/${tpl.apiVersion}`;
        await call(srv.url, 'POST', `/${gv}${ns}/${plural}`, tpl);
      }
    };
    await replenish();
    const snapshot = new Map<string, Obj>();
    for (const p of protectedPaths) snapshot.set(p, (await call(srv.url, 'GET', p)).body);

    const failures: string[] = [];
    const codes = new Map<number, number>();
    const deadline = Date.now() + 45_000;
    let sent = 0;
    const requests: FuzzRequest[] = [];
    for (let i = 0; i < total; i++) requests.push(generate(g));
    const worker = async (): Promise<void> => {
      while (sent < requests.length && Date.now() < deadline && failures.length < 20) {
        const i = sent++;
        if (i % 250 === 249) await replenish();
        const r = requests[i]!;
        let rep: Reply;
        try {
          rep = await send(srv.url, r);
        } catch (err) {
          failures.push(`#${i} ${r.method} ${r.path}: transport error ${(err as Error).message}`);
          continue;
        }
        codes.set(rep.code, (codes.get(rep.code) ?? 0) + 1);
        const why = judge(r, rep);
        if (why !== undefined) {
          const shown = r.body === undefined ? '' : ` body=${JSON.stringify(r.body.toString('latin1').slice(0, 300))}`;
          failures.push(`#${i} ${r.method} ${r.path} ct=${String(r.headers['Content-Type'] ?? '')}${shown}: ${why}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    t.diagnostic(
      `sent ${sent} requests; codes ${JSON.stringify(Object.fromEntries([...codes].sort((a, b) => a[0] - b[0])))}`,
    );
    assert.deepEqual(failures, [], `seed ${seed}`);
    assert.ok(sent >= Math.min(total, 1000), `only ${sent} requests within the time budget`);

    // The server is alive and serves correctly.
    assert.equal(srv.process.exitCode, null, srv.stderr());
    const created = await call(srv.url, 'POST', '/api/v1/namespaces/fuzz-protected/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'after-fuzz' },
      data: { ok: 'yes' },
    });
    assert.equal(created.code, 201, JSON.stringify(created.body));
    const read = await call(srv.url, 'GET', '/api/v1/namespaces/fuzz-protected/configmaps/after-fuzz');
    assert.deepEqual(read.body.data, { ok: 'yes' });
    assert.equal((await call(srv.url, 'GET', '/api/v1/namespaces/fuzz-protected/configmaps')).body.items.length, 2);
    // The objects created before the fuzz are unchanged: same resourceVersion, same content.
    for (const [p, before] of snapshot) {
      const now = await call(srv.url, 'GET', p);
      assert.equal(now.code, 200, p);
      assert.deepEqual(now.body, before, p);
    }
    assert.doesNotMatch(srv.stderr(), /unexpected error/, `seed ${seed}`);
  });
});
