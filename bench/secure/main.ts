/**
 * Secure serving's cost (issue 23's target: TLS + Node,RBAC at least 70% of the insecure rate): single-object
 * GET/s against one `kscale server`, side by side in one run, on kept-alive connections:
 * - insecure: the plain-HTTP --insecure-port (system:masters, AlwaysAllow, exempt from flow control);
 * - TLS h1: HTTPS/1.1 with the admin's client certificate (kubeadm:cluster-admins: x509 authentication, Node and
 *   RBAC authorization, flow control), one kept-alive socket per worker;
 * - TLS h2: the same identity over one HTTP/2 connection carrying every worker's streams, as one client-go client does;
 * - TLS h2×N: an HTTP/2 connection per worker, as many clients (kubelets, controllers) give the server, and as h1 has
 *   a socket per worker.
 * Rounds alternate the modes so drift on a shared machine hits all of them alike.
 *
 *   node dist/bench/secure/main.js [--seconds 5] [--rounds 3] [--concurrency 16] [--modes insecure,h1,h2,h2n]
 *     [--server-node-args="--cpu-prof --cpu-prof-dir=DIR"]   (Node flags for the server, e.g. to profile it)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { connect, type ClientHttp2Session } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadKubeconfig } from '../../src/client/index.js';
import { openStream } from '../../src/client/rest/http2_request.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '16' },
    modes: { type: 'string', default: 'insecure,h1,h2,h2n' },
    'server-node-args': { type: 'string', default: '' },
  },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const CONCURRENCY = Number(values.concurrency);
const PATH = '/api/v1/namespaces/default/configmaps/bench';
const KSCALE = fileURLToPath(new URL('../../src/cmd/kscale.js', import.meta.url));

type Mode = 'insecure' | 'TLS h1' | 'TLS h2' | 'TLS h2×N';
const MODE_NAMES: Record<string, Mode> = { insecure: 'insecure', h1: 'TLS h1', h2: 'TLS h2', h2n: 'TLS h2×N' };

/** One GET of PATH by worker `w`; resolves with the status code. */
type Get = (w: number) => Promise<number>;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-bench-secure-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const server = spawn(
    process.execPath,
    [
      ...values['server-node-args'].split(' ').filter(Boolean),
      KSCALE,
      'server',
      '--secure-port',
      '0',
      '--insecure-port',
      '0',
      '--data-dir',
      join(dir, 'data'),
      '--storage-sync',
      'normal',
      '--write-kubeconfig',
      kubeconfig,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const sessions: ClientHttp2Session[] = [];
  try {
    const { plain, secure } = await urls(server.stdout!);
    const cfg = loadKubeconfig({ path: kubeconfig });
    const tls = { ca: cfg.ca, cert: cfg.cert, key: cfg.key };
    const plainAgent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const tlsAgent = new https.Agent({ keepAlive: true, maxSockets: CONCURRENCY, ...tls });
    const created = await request(
      http.request(`${plain}/api/v1/namespaces/default/configmaps`, {
        method: 'POST',
        agent: plainAgent,
        headers: { 'Content-Type': 'application/json' },
      }),
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bench' }, data: { k: 'v' } }),
    );
    if (created !== 201) throw new Error(`creating the ConfigMap: ${created}`);
    const wanted = new Set(values.modes.split(',').map((m) => MODE_NAMES[m] ?? m));
    const shared = connect(secure, tls);
    sessions.push(shared);
    const own = wanted.has('TLS h2×N') ? Array.from({ length: CONCURRENCY }, () => connect(secure, tls)) : [];
    sessions.push(...own);
    const gets: Record<Mode, Get> = {
      insecure: () => request(http.request(`${plain}${PATH}`, { agent: plainAgent })),
      'TLS h1': () => request(https.request(`${secure}${PATH}`, { agent: tlsAgent })),
      'TLS h2': () => h2Get(shared),
      'TLS h2×N': (w) => h2Get(own[w]!),
    };
    const modes = (Object.keys(gets) as Mode[]).filter((m) => wanted.has(m));
    const perMode = (): Record<Mode, number[]> => ({ insecure: [], 'TLS h1': [], 'TLS h2': [], 'TLS h2×N': [] });
    const rates = perMode();
    const cpu = perMode();
    const clientCpu = perMode();
    for (const mode of modes) await run(gets[mode], 0.5); // warm-up: connections, JIT
    for (let r = 0; r < ROUNDS; r++)
      for (const mode of modes) {
        const before = cpuSeconds(server.pid!);
        const clientBefore = process.cpuUsage();
        const { rate, count } = await run(gets[mode], SECONDS);
        const client = process.cpuUsage(clientBefore);
        rates[mode].push(rate);
        cpu[mode].push(((cpuSeconds(server.pid!) - before) / count) * 1e6);
        clientCpu[mode].push((client.user + client.system) / count);
      }
    const base = median(rates.insecure);
    process.stdout.write(
      `single-object GET/s, ${CONCURRENCY} workers, ${ROUNDS} × ${SECONDS} s per mode (median; rounds alternate);\n` +
        `server CPU µs per GET (from /proc, 10 ms ticks); the load generator's own CPU µs per GET (it shares the cores)\n`,
    );
    for (const mode of modes) {
      const m = median(rates[mode]);
      const share =
        mode === 'insecure' || !wanted.has('insecure')
          ? ''
          : `  ${((m / base) * 100).toFixed(0)}% of insecure (target ≥ 70%)`;
      process.stdout.write(
        `  ${mode.padEnd(10)} ${m.toFixed(0).padStart(7)} GET/s  [${rates[mode].map((x) => x.toFixed(0)).join(', ')}]` +
          `  ${median(cpu[mode]).toFixed(1)} µs server CPU/GET, ${median(clientCpu[mode]).toFixed(1)} µs client${share}\n`,
      );
    }
    plainAgent.destroy();
    tlsAgent.destroy();
  } finally {
    for (const s of sessions) s.close();
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The secure and plain URLs the server prints once it listens. */
function urls(stdout: NodeJS.ReadableStream): Promise<{ plain: string; secure: string }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('kscale server did not start in 30 s')), 30_000);
    let secure: string | undefined;
    createInterface({ input: stdout }).on('line', (line) => {
      secure ??= /serving securely on (https:\/\/\S+)/.exec(line)?.[1];
      const plain = /listening on (http:\/\/\S+)/.exec(line)?.[1];
      if (secure !== undefined && plain !== undefined) {
        clearTimeout(timer);
        resolve({ plain, secure });
      }
    });
  });
}

/** One GET on an HTTP/2 connection, its stream opened as kscale's clients open theirs (http2_request.ts). */
function h2Get(session: ClientHttp2Session): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = openStream(session, { ':path': PATH }, true);
    let code = 0;
    s.on('response', (h) => (code = Number(h[':status'])));
    s.on('error', reject);
    s.on('end', () => resolve(code));
    s.resume();
  });
}

/** Sends `req` with `body`, drains the answer, resolves with its status. */
function request(req: http.ClientRequest, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.end(body);
  });
}

/** The user + system CPU seconds process `pid` has used (Linux /proc; clock ticks of 10 ms). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime: fields 14 and 15 of stat(5)
}

/** GETs per second over `seconds` with CONCURRENCY workers each waiting for its answer; throws on a non-200. */
async function run(get: Get, seconds: number): Promise<{ rate: number; count: number }> {
  const end = performance.now() + seconds * 1000;
  let done = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, w) => {
      while (performance.now() < end) {
        const code = await get(w);
        if (code !== 200) throw new Error(`GET ${PATH}: ${code}`);
        done++;
      }
    }),
  );
  return { rate: done / ((performance.now() - t0) / 1000), count: done };
}

function median(v: number[]): number {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

await main();
