/**
 * The API server's CPU per TokenRequest as a kubelet sends it (POST serviceaccounts/token bound to a Pod on a
 * Node): at 2,500 nodes × 30 pods every pod start asks for one, about as many as pod creations. Prints, for one
 * `kscale server` on its plain port, the CPU per request of the whole process and of its main thread (the event
 * loop every request shares; signing may run elsewhere), read from /proc (10 ms ticks), and the requests/s.
 * Rounds alternate with a GET of the same Pod, so drift on a shared machine shows in both.
 *
 *   node dist/bench/tokenrequest/main.js [--requests 3000] [--rounds 3] [--concurrency 16]
 *     [--server-node-args "--cpu-prof --cpu-prof-dir=DIR"]   (Node flags for the server, e.g. to profile it)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { flagValue, positiveIntFlag } from '../args.js';
import { HttpConn, encodeRequest, type RawResponse } from '../apiserver/http_conn.js';
import { Cleanup, processCpuMs, startKscale, tempDir, type ServerProcess } from '../apiserver/processes.js';

const argv = process.argv.slice(2);
const REQUESTS = positiveIntFlag(argv, '--requests', 3000);
const ROUNDS = positiveIntFlag(argv, '--rounds', 3);
const CONCURRENCY = positiveIntFlag(argv, '--concurrency', 16);
const SERVER_NODE_ARGS = (flagValue(argv, '--server-node-args') ?? '').split(' ').filter(Boolean);
const NS = 'bench';

/** CPU (user + system) of one thread of `pid`, in ms. */
function threadCpuMs(pid: number, tid: number): number {
  const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'latin1');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

function send(conn: HttpConn, req: Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => conn.send(req, (err, res) => (err ? reject(err) : resolve(res!))));
}

async function must(conn: HttpConn, s: ServerProcess, method: string, path: string, body: object): Promise<void> {
  const res = await send(conn, encodeRequest(method, path, `${s.host}:${s.port}`, JSON.stringify(body)));
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.body.toString()}`);
}

/** The namespace, ServiceAccount, Node and Pod the tokens are bound to. */
async function seed(conn: HttpConn, s: ServerProcess): Promise<void> {
  await must(conn, s, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await must(conn, s, 'POST', `/api/v1/namespaces/${NS}/serviceaccounts`, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'app' },
  });
  await must(conn, s, 'POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'bench-node' } });
  await must(conn, s, 'POST', `/api/v1/namespaces/${NS}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'app-0' },
    spec: {
      serviceAccountName: 'app',
      nodeName: 'bench-node',
      containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }],
    },
  });
}

interface Round {
  perSec: number;
  processUs: number;
  mainUs: number;
}

/** Sends `n` copies of `req` over the connections, each one at a time; checks every status. */
async function round(conns: HttpConn[], s: ServerProcess, req: Buffer, want: number, n: number): Promise<Round> {
  let left = n;
  const cpu0 = processCpuMs(s.pid)!;
  const main0 = threadCpuMs(s.pid, s.pid);
  const t0 = performance.now();
  await Promise.all(
    conns.map(async (c) => {
      while (left > 0) {
        left--;
        const res = await send(c, req);
        if (res.status !== want) throw new Error(`status ${res.status}: ${res.body.toString().slice(0, 300)}`);
      }
    }),
  );
  const ms = performance.now() - t0;
  return {
    perSec: (n * 1000) / ms,
    processUs: ((processCpuMs(s.pid)! - cpu0) * 1000) / n,
    mainUs: ((threadCpuMs(s.pid, s.pid) - main0) * 1000) / n,
  };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const cleanup = new Cleanup();
  for (const sig of ['SIGINT', 'SIGTERM'] as const)
    process.once(sig, () => void cleanup.run().then(() => process.exit(130)));
  try {
    const dir = tempDir(cleanup, 'tokenrequest');
    const s = await startKscale(cleanup, join(dir, 'data'), [], SERVER_NODE_ARGS);
    const host = `${s.host}:${s.port}`;
    const conns = await Promise.all(Array.from({ length: CONCURRENCY }, () => HttpConn.open(s.host, s.port)));
    cleanup.add(() => conns.forEach((c) => c.close()));
    await seed(conns[0]!, s);
    const token = encodeRequest(
      'POST',
      `/api/v1/namespaces/${NS}/serviceaccounts/app/token`,
      host,
      JSON.stringify({
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds: 3600, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'app-0' } },
      }),
    );
    const get = encodeRequest('GET', `/api/v1/namespaces/${NS}/pods/app-0`, host);
    // Warm-up: JIT and caches.
    await round(conns, s, token, 201, Math.min(REQUESTS, 1000));
    await round(conns, s, get, 200, Math.min(REQUESTS, 1000));
    const rows: Record<string, Round[]> = { 'TokenRequest (bound to a Pod)': [], 'GET the Pod': [] };
    for (let i = 0; i < ROUNDS; i++) {
      rows['TokenRequest (bound to a Pod)']!.push(await round(conns, s, token, 201, REQUESTS));
      rows['GET the Pod']!.push(await round(conns, s, get, 200, REQUESTS));
    }
    console.log(`kscale server, plain port, ${CONCURRENCY} kept-alive connections, ${ROUNDS} rounds × ${REQUESTS}`);
    console.log('| request | per s | server CPU per request | of which the main thread |');
    console.log('|---|---|---|---|');
    for (const [name, rs] of Object.entries(rows)) {
      const f = (k: keyof Round, d: number): string => median(rs.map((r) => r[k])).toFixed(d);
      console.log(`| ${name} | ${f('perSec', 0)} | ${f('processUs', 0)} µs | ${f('mainUs', 0)} µs |`);
    }
  } finally {
    await cleanup.run();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
