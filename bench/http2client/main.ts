/**
 * What opening an HTTP/2 request costs the client: N small GETs over one node:http2 session, opened by
 * `session.request` (Node's own, the reference) and by kscale's `openStream` (the same request without Node 20's
 * two `deprecate()` wrappers per call), alternating, three rounds each. For each: this process's CPU per request
 * (the server runs in its own process), and its mark-compacts and scavenges.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/http2client/main.js [--quick] [--requests 30000]
 */
import { spawn } from 'node:child_process';
import http2, { type ClientHttp2Session, type ClientHttp2Stream, type OutgoingHttpHeaders } from 'node:http2';
import { cpus, loadavg } from 'node:os';
import { openStream } from '../../src/client/rest/http2_request.js';
import { positiveIntFlag } from '../args.js';
import { countGCs } from '../gc_counts.js';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const requests = positiveIntFlag(argv, '--requests', quick ? 2_000 : 30_000);
const ROUNDS = quick ? 1 : 3;
const CONCURRENCY = 32;

const gcs = countGCs();

/** A plain-text h2c server in its own process that answers every request with a small body; resolves its port. */
function startServer(): Promise<{ port: number; stop: () => void }> {
  const src = `const s = require('node:http2').createServer((q, r) => r.end('{"kind":"Status","status":"Success"}'));
    s.listen(0, '127.0.0.1', () => console.log(s.address().port));`;
  const child = spawn(process.execPath, ['-e', src], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (d: Buffer) => resolve({ port: Number(d.toString().trim()), stop: () => child.kill() }));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

type Open = (session: ClientHttp2Session, headers: OutgoingHttpHeaders) => ClientHttp2Stream;
const byNode: Open = (s, h) => s.request(h, { endStream: true });
const byKscale: Open = (s, h) => openStream(s, h, true);

async function run(session: ClientHttp2Session, open: Open): Promise<{ bytes: number }> {
  let next = 0;
  let bytes = 0;
  const one = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const st = open(session, { ':path': `/r/${next}` });
      st.on('data', (d: Buffer) => (bytes += d.length));
      st.on('end', resolve);
      st.on('error', reject);
    });
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests) {
        next++;
        await one();
      }
    }),
  );
  return { bytes };
}

async function main(): Promise<void> {
  const server = await startServer();
  const session = http2.connect(`http://127.0.0.1:${server.port}`);
  try {
    await run(session, byKscale); // warm up both paths' code
    await run(session, byNode);
    const rows: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, open] of [
        ['node session.request (reference)', byNode],
        ['kscale openStream', byKscale],
      ] as const) {
        const gc0 = { ...gcs };
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const { bytes } = await run(session, open);
        const wall = performance.now() - t0;
        const c = process.cpuUsage(c0);
        rows.push(
          `${name.padEnd(34)} ${String(round + 1).padStart(5)} ${((c.user + c.system) / requests).toFixed(1).padStart(9)} ` +
            `${(requests / (wall / 1000)).toFixed(0).padStart(8)} ${String(gcs.minor - gc0.minor).padStart(10)} ` +
            `${String(gcs.major - gc0.major).padStart(13)} ${bytes === requests * 36 ? 'ok' : `short read: ${bytes} bytes`}`,
        );
      }
    }
    console.log(`${requests} GETs per run, ${CONCURRENCY} at a time, one h2c session to a server in its own process`);
    console.log(`${'opened by'.padEnd(34)} round cpu µs/req    req/s scavenges mark-compacts read`);
    for (const r of rows) console.log(r);
    console.log(`machine: ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(2)}; node ${process.version}`);
  } finally {
    session.close();
    server.stop();
  }
}

await main();
