/**
 * The lab's own measurement cost: a `kscale server` under a steady hollow
 * fleet (node leases and status), its CPU over alternating windows with and
 * without the lab's scraper reading /metrics every --interval (as the lab's
 * Sampler does, parsing each scrape). Prints the server's cores in each and
 * the scraper's share. Target: the scraping costs at most 2% of the server's CPU.
 *
 * Then a burst of back-to-back scrapes gives the server's CPU per scrape directly.
 *
 *   node dist/bench/labscrape/main.js [--nodes=500] [--window=30s] [--rounds=3] [--interval=5s] [--burst=50]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { loadKubeconfig, RESTClient } from '../../src/client/index.js';
import { scrape, snapshotOf } from '../../src/lab/api_metrics.js';
import { readProc } from '../../src/lab/proc.js';

const args = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k!, v ?? 'true'];
  }),
);
const seconds = (s: string): number => Number(s.replace(/s$/, ''));
const NODES = Number(args.get('nodes') ?? 500);
const WINDOW_S = seconds(args.get('window') ?? '30s');
const ROUNDS = Number(args.get('rounds') ?? 3);
const INTERVAL_S = seconds(args.get('interval') ?? '5s');
const KSCALE = fileURLToPath(new URL('../../src/cmd/kscale.js', import.meta.url));

/** Spawns a kscale subcommand; resolves with the first match of `ready` on its stdout. */
async function start(argv: string[], ready: RegExp): Promise<{ p: ChildProcess; m: RegExpExecArray }> {
  const p = spawn(process.execPath, [KSCALE, ...argv], { stdio: ['ignore', 'pipe', 'inherit'] });
  const m = await new Promise<RegExpExecArray>((resolve, reject) => {
    p.once('exit', (code) => reject(new Error(`kscale ${argv[0]} exited with ${code}`)));
    createInterface({ input: p.stdout! }).on('line', (l) => {
      const x = ready.exec(l);
      if (x !== null) resolve(x);
    });
  });
  return { p, m };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The server's cores over one window, scraping or not. */
async function window(pid: number, client: RESTClient, scraping: boolean): Promise<number> {
  const a = readProc(pid)!;
  const t0 = Date.now();
  const end = t0 + WINDOW_S * 1000;
  while (Date.now() < end) {
    if (scraping) snapshotOf(await scrape(client), (Date.now() - t0) / 1000);
    await sleep(Math.min(INTERVAL_S * 1000, Math.max(0, end - Date.now())));
  }
  const b = readProc(pid)!;
  return (b.cpuMs - a.cpuMs) / (Date.now() - t0);
}

const dir = mkdtempSync(join(tmpdir(), 'kscale-labscrape-'));
const kubeconfig = join(dir, 'kubeconfig');
const server = await start(
  ['server', '--secure-port', '0', '--data-dir', join(dir, 'data'), '--write-kubeconfig', kubeconfig],
  /serving securely on (https:\/\/\S+)/,
);
// The lab scrapes over TLS as an authorized user, as here.
const client = new RESTClient({ ...loadKubeconfig({ path: kubeconfig }), qps: 0, burst: 1 });
const fleet = await start(
  ['nodes', '--kubeconfig', kubeconfig, '--count', String(NODES), '--port', '0'],
  /nodes registered in/,
);
try {
  await sleep(WINDOW_S * 1000); // the fleet's join settles
  const off: number[] = [];
  const on: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    off.push(await window(server.p.pid!, client, false));
    on.push(await window(server.p.pid!, client, true));
  }
  const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
  const median = (xs: number[]): number => {
    const v = [...xs].sort((x, y) => x - y);
    const m = v.length >> 1;
    return v.length % 2 === 1 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
  };
  const [a, b] = [mean(off), mean(on)];
  // The same cost measured directly, less exposed to a shared machine's noise: the server's CPU over a burst of
  // back-to-back scrapes, less its idle rate over the burst, per scrape; then at one scrape per --interval.
  const burst = Number(args.get('burst') ?? 50);
  const p0 = readProc(server.p.pid!)!;
  const t0 = Date.now();
  for (let i = 0; i < burst; i++) snapshotOf(await scrape(client), i);
  const burstMs = Date.now() - t0;
  const perScrapeMs = Math.max(0, readProc(server.p.pid!)!.cpuMs - p0.cpuMs - median(off) * burstMs) / burst;
  const perScrapeCores = perScrapeMs / (INTERVAL_S * 1000);
  // Each round pairs a window without the scraper with the next one with it.
  const perRound = off.map((x, i) => ((on[i]! - x) / x) * 100);
  process.stdout.write(
    `server CPU with ${NODES} hollow nodes: without the lab's scraper ${a.toFixed(3)} cores, with it (every ${INTERVAL_S} s) ${b.toFixed(3)} cores; scraping costs ${(((b - a) / a) * 100).toFixed(1)}% (${ROUNDS} rounds of ${WINDOW_S} s each)\n` +
      `per round (without → with, cost): ${off.map((x, i) => `${x.toFixed(3)} → ${on[i]!.toFixed(3)} ${perRound[i]!.toFixed(1)}%`).join('; ')}; median ${median(perRound).toFixed(1)}%\n` +
      `burst of ${burst} back-to-back scrapes in ${burstMs} ms: ${perScrapeMs.toFixed(1)} ms of server CPU per scrape, ` +
      `${(perScrapeCores * 1000).toFixed(1)} ms/s at one per ${INTERVAL_S} s: ${((perScrapeCores / median(off)) * 100).toFixed(1)}% of the server's median ${median(off).toFixed(3)} cores without it\n`,
  );
} finally {
  client.close();
  fleet.p.kill('SIGKILL');
  server.p.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
