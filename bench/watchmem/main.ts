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
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { liveMemory, type LiveMemory } from '../watchcache/inspector.js';
import { openWatches, start, startKscaleServer, stop, type Credentials, type Started } from './streams.js';
import { flagValue, positiveIntFlag } from '../args.js';

const argv = process.argv.slice(2);
const value = (f: string): string | undefined => flagValue(argv, f);
const quick = argv.includes('--quick');
const watches = positiveIntFlag(argv, '--watches', quick ? 200 : 4_000);
const connections = positiveIntFlag(argv, '--connections', quick ? 10 : 80);
const kscale = value('--kscale') ?? fileURLToPath(new URL('../../src/cmd/kscale.js', import.meta.url));
const bare = fileURLToPath(new URL('./bare_server.js', import.meta.url));

/** Heap and external bytes per watch between two full-GC readings. */
async function measure(s: Started, tls: Credentials): Promise<{ heap: number; external: number; codes: string }> {
  // Let start-up work (informers, bootstrap objects) settle before the first reading.
  await new Promise((r) => setTimeout(r, 2_000));
  const before: LiveMemory = await liveMemory(s.inspector);
  const { sessions, codes } = await openWatches(s.url, tls, watches, connections, 'watchmem');
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
  const { server, tls } = await startKscaleServer(kscale, dir, 'watchmem');
  let kscaleFigures;
  try {
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
  const bareFigures = async (mode: string[]) => {
    const ref = await start([bare, key, cert, ...mode], /listening on (https:\/\/\S+)/);
    try {
      return await measure(ref, { rejectUnauthorized: false });
    } finally {
      await stop(ref);
    }
  };
  const compatFigures = await bareFigures([]);
  const coreFigures = await bareFigures(['--core']);
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
    ['bare Node HTTP/2 (reference)', compatFigures],
    ['bare, core stream API', coreFigures],
  ] as const)
    console.log(
      `${label.padEnd(28)} ${f.heap.toFixed(0).padStart(12)}  ${f.external.toFixed(0).padStart(16)}  ${f.codes}`,
    );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
