/**
 * What an idle watch costs the API server's heap: a real `kscale server`
 * (secure port, HTTP/2 over TLS with the break-glass admin's client
 * certificate, watch cache on) gets W watches of single ConfigMaps by
 * `fieldSelector=metadata.name=…`, the hollow kubelet's per-object watch
 * (~127,000 of them at 2,500 nodes × 30 pods), spread over C connections;
 * heap and external bytes after a full GC (through the inspector) before and
 * after, per watch. The reference in the same run is Node's own HTTP/2
 * server holding the same streams open (bare_server.ts). Every mark-compact
 * walks this heap, so it is what a 2,500-node server's GC pauses scale with.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/watchmem/main.js [--quick] [--watches 4000] [--connections 80]
 *     [--kscale PATH/kscale.js (another build, e.g. main's)]
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type ClientHttp2Session } from 'node:http2';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { inspectorUrl, liveMemory, type LiveMemory } from '../watchcache/inspector.js';

const argv = process.argv.slice(2);
const value = (f: string): string | undefined => {
  const i = argv.indexOf(f);
  return i < 0 ? undefined : argv[i + 1];
};
const quick = argv.includes('--quick');
const watches = Number(value('--watches') ?? (quick ? 200 : 4_000));
const connections = Number(value('--connections') ?? (quick ? 10 : 80));
const kscale = value('--kscale') ?? fileURLToPath(new URL('../../src/cmd/kscale.js', import.meta.url));
const bare = fileURLToPath(new URL('./bare_server.js', import.meta.url));
if (!Number.isInteger(watches) || watches <= 0) throw new Error('--watches must be a positive integer');
if (!Number.isInteger(connections) || connections <= 0) throw new Error('--connections must be a positive integer');

interface Started {
  child: ChildProcess;
  url: string;
  inspector: string;
}

/** Starts a node process under the inspector and waits for the line that carries its URL. */
async function start(args: string[], urlLine: RegExp): Promise<Started> {
  const child = spawn(process.execPath, ['--inspect=127.0.0.1:0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL in 60 s: ${stderr}`)), 60_000);
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
    createInterface({ input: child.stdout! }).on('line', (l) => {
      const m = urlLine.exec(l);
      if (m !== null) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
  });
  const inspector = inspectorUrl(stderr);
  if (inspector === undefined) throw new Error(`no inspector URL: ${stderr}`);
  return { child, url, inspector };
}

async function stop(s: Started): Promise<void> {
  s.child.kill('SIGTERM');
  await new Promise((r) => s.child.once('exit', r));
}

interface Credentials {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  rejectUnauthorized?: boolean;
}

/** Opens `watches` watch streams over `connections` HTTP/2 sessions; resolves once every one has its headers. */
async function openWatches(
  url: string,
  tls: Credentials,
): Promise<{ sessions: ClientHttp2Session[]; codes: Map<number, number> }> {
  const sessions = Array.from({ length: connections }, () => connect(url, tls));
  const codes = new Map<number, number>();
  let answered = 0;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${answered}/${watches} watches answered in 120 s`)), 120_000);
    for (let i = 0; i < watches; i++) {
      const r = sessions[i % connections]!.request({
        ':path': `/api/v1/namespaces/watchmem/configmaps?allowWatchBookmarks=true&fieldSelector=metadata.name%3Dcm-${i}&resourceVersion=1&timeoutSeconds=3600&watch=true`,
        accept: 'application/json, */*',
        'user-agent': 'kubelet/v1.31.0 (linux/amd64) kubernetes/watchmem',
      });
      r.on('response', (h) => {
        const code = Number(h[':status']);
        codes.set(code, (codes.get(code) ?? 0) + 1);
        if (++answered === watches) {
          clearTimeout(timer);
          resolve();
        }
      });
      r.on('data', () => undefined);
      r.on('error', () => undefined);
    }
  });
  return { sessions, codes };
}

/** Heap and external bytes per watch between two full-GC readings. */
async function measure(s: Started, tls: Credentials): Promise<{ heap: number; external: number; codes: string }> {
  // Let start-up work (informers, bootstrap objects) settle before the first reading.
  await new Promise((r) => setTimeout(r, 2_000));
  const before: LiveMemory = await liveMemory(s.inspector);
  const { sessions, codes } = await openWatches(s.url, tls);
  await new Promise((r) => setTimeout(r, 1_000));
  const after = await liveMemory(s.inspector);
  for (const x of sessions) x.destroy();
  return {
    heap: (after.heapUsed - before.heapUsed) / watches,
    external: (after.external - before.external) / watches,
    codes: [...codes].map(([c, n]) => `${c}×${n}`).join(' '),
  };
}

const dir = mkdtempSync(join(tmpdir(), 'kscale-watchmem-'));
try {
  const kc = join(dir, 'super-admin.conf');
  const server = await start(
    [kscale, 'server', '--secure-port', '0', '--data-dir', join(dir, 'data'), '--write-super-admin-kubeconfig', kc],
    /serving securely on (https:\/\/\S+)/,
  );
  let kscaleFigures;
  try {
    const yaml = readFileSync(kc, 'utf8');
    const field = (k: string): Buffer => Buffer.from(new RegExp(`${k}: (\\S+)`).exec(yaml)![1]!, 'base64');
    const tls = {
      ca: field('certificate-authority-data'),
      cert: field('client-certificate-data'),
      key: field('client-key-data'),
    };
    const ns = await fetchNamespace(server.url, tls);
    if (ns !== 201) throw new Error(`creating namespace watchmem: ${ns}`);
    kscaleFigures = await measure(server, tls);
  } finally {
    await stop(server);
  }
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  const ssl = spawnSync('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
  ]);
  if (ssl.status !== 0) throw new Error(`openssl: ${ssl.stderr.toString()}`);
  const ref = await start([bare, key, cert], /listening on (https:\/\/\S+)/);
  let bareFigures;
  try {
    bareFigures = await measure(ref, { rejectUnauthorized: false });
  } finally {
    await stop(ref);
  }
  const load = (): string =>
    loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
  console.log(
    `watch memory benchmark${quick ? ' (--quick: figures are not meaningful)' : ''}: ${watches} watches over ${connections} HTTP/2 connections, server ${kscale}`,
  );
  console.log(`machine: ${cpus().length} cores, load average ${load()}`);
  console.log('server                       heap B/watch  external B/watch  answers');
  for (const [label, f] of [
    ['kscale server', kscaleFigures],
    ['bare Node HTTP/2 (reference)', bareFigures],
  ] as const)
    console.log(
      `${label.padEnd(28)} ${f.heap.toFixed(0).padStart(12)}  ${f.external.toFixed(0).padStart(16)}  ${f.codes}`,
    );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** Creates the namespace the watches name (a watch needs none, but a real kubelet's objects live in one). */
async function fetchNamespace(url: string, tls: Credentials): Promise<number> {
  const s = connect(url, tls);
  try {
    return await new Promise<number>((resolve, reject) => {
      const r = s.request({ ':method': 'POST', ':path': '/api/v1/namespaces', 'content-type': 'application/json' });
      r.on('response', (h) => resolve(Number(h[':status'])));
      r.on('error', reject);
      r.on('data', () => undefined);
      r.end(JSON.stringify({ metadata: { name: 'watchmem' } }));
    });
  } finally {
    s.close();
  }
}
