/**
 * What received bytes cost the garbage collector: N GETs of one ConfigMap of `--size` bytes from a real
 * `kscale server` (HTTP/2 over TLS, the server in its own process), read by kscale's RESTClient and, as the
 * reference, by a bare node:http2 client stream. For each, the mark-compacts and scavenges of this process,
 * and the ArrayBuffer bytes (`process.memoryUsage().arrayBuffers`) at their highest, per 100 MB received.
 * The floor is the same number of ArrayBuffers of the same size made in JavaScript and dropped at once.
 *
 * Why: on this Node (20), the ArrayBuffers node's C++ makes for bytes read from a socket are freed only by a
 * mark-compact, never by a scavenge, even when they are dropped at once; V8 starts a full marking whenever
 * external memory has grown 64 MB since the last one. So a process's full GC rate follows the bytes it receives
 * (a 2,500-node fleet receives ~4.5 MB/s: one marking of its 1.5 GB heap every ~15 s). This script shows it on
 * its own, for checking a Node upgrade or a change to what the clients receive.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/recvgc/main.js [--quick] [--requests 20000] [--size 30000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadKubeconfig, RESOURCES, RESTClient } from '../../src/client/index.js';
import type { ConfigMap } from '../../src/api/index.js';
import { startKscaleServer, stop } from '../watchmem/streams.js';
import { positiveIntFlag } from '../args.js';
import { countGCs } from '../gc_counts.js';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const requests = positiveIntFlag(argv, '--requests', quick ? 2_000 : 20_000);
const size = positiveIntFlag(argv, '--size', 30_000);
const CONCURRENCY = 50;
const NS = 'recvgc';
const KSCALE = fileURLToPath(new URL('../../src/cmd/kscale.js', import.meta.url));

const gcs = countGCs();

interface Figures {
  received: number;
  major: number;
  minor: number;
  arrayBuffersMax: number;
}

/** Runs `one` `n` times, CONCURRENCY at a time, counting GCs and the highest arrayBuffers figure. */
async function measure(n: number, one: (i: number) => Promise<number>): Promise<Figures> {
  const m0 = gcs.major;
  const s0 = gcs.minor;
  let received = 0;
  let next = 0;
  let arrayBuffersMax = 0;
  const worker = async (): Promise<void> => {
    while (next < n) {
      const got = await one(next++);
      received += got;
      if (next % 200 === 0) arrayBuffersMax = Math.max(arrayBuffersMax, process.memoryUsage().arrayBuffers);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { received, major: gcs.major - m0, minor: gcs.minor - s0, arrayBuffersMax };
}

/** One GET by a bare node:http2 stream; the bytes of its body. */
function bareGet(session: http2.ClientHttp2Session, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = session.request({ ':path': path });
    const chunks: Buffer[] = [];
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('end', () => {
      const body = Buffer.concat(chunks);
      JSON.parse(body.toString());
      resolve(body.length);
    });
    s.on('error', reject);
    s.end();
  });
}

function row(name: string, f: Figures): string {
  const per100MB = (x: number): string => ((x * 100e6) / Math.max(1, f.received)).toFixed(1);
  return `${name.padEnd(38)} ${(f.received / 1e6).toFixed(0).padStart(8)} ${per100MB(f.major).padStart(14)} ${per100MB(f.minor).padStart(11)} ${(f.arrayBuffersMax / 1e6).toFixed(1).padStart(13)}`;
}

const dir = mkdtempSync(join(tmpdir(), 'kscale-recvgc-'));
try {
  const { server, kubeconfig: kc, tls } = await startKscaleServer(KSCALE, dir, NS);
  try {
    const config = loadKubeconfig({ path: kc });
    const rest = new RESTClient({ ...config, qps: 0 });
    const cms = rest.resource<ConfigMap>(RESOURCES.configmaps);
    const cm: ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'big' },
      data: { a: 'x'.repeat(size) },
    };
    await cms.create(cm, { namespace: NS });
    const path = `/api/v1/namespaces/${NS}/configmaps/big`;
    const session = http2.connect(server.url, tls);
    // A round of each first, so what loads and compiles is not counted.
    await measure(200, async () => JSON.stringify(await cms.get('big', { namespace: NS })).length);
    await measure(200, () => bareGet(session, path));
    const k = await measure(requests, async () => {
      const got = await cms.get('big', { namespace: NS });
      return got.data!.a!.length;
    });
    const b = await measure(requests, () => bareGet(session, path));
    const j = await measure(requests, async () => {
      const buf = Buffer.allocUnsafeSlow(size);
      buf[0] = 1;
      await new Promise((r) => setImmediate(r));
      return buf.length;
    });
    session.close();
    rest.close();
    const load = loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
    console.log(
      `received-bytes GC benchmark${quick ? ' (--quick: figures are not meaningful)' : ''}: ${requests} GETs of a ${size}-byte ConfigMap, ${CONCURRENCY} at a time, node ${process.version}`,
    );
    console.log(
      `${'reader'.padEnd(38)} ${'MB read'.padStart(8)} ${'major/100MB'.padStart(14)} ${'minor/100MB'.padStart(11)} ${'max AB MB'.padStart(13)}`,
    );
    console.log(row('kscale RESTClient (HTTP/2)', k));
    console.log(row('bare Node HTTP/2 (reference)', b));
    console.log(row('JS ArrayBuffers, dropped (floor)', j));
    console.log(`machine: ${cpus().length} cores, load average ${load}`);
  } finally {
    await stop(server);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
