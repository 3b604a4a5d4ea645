/**
 * What one benchmark run reads from the processes: the fleet process (spawned
 * here), CPU and RSS from /proc, disk writes from /proc/<pid>/io, and the API
 * server's apiserver_request_total and apiserver_storage_size_bytes scraped
 * from /metrics, so rates are deltas over the steady window.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { KSCALE, type Cleanup } from '../apiserver/processes.js';

/** A running fleet process. */
export interface FleetProcess {
  pid: number;
  /** ms from spawn until the fleet said every node registered. */
  registeredMs: number;
}

/** Spawns `kscale nodes` and resolves once every node registered (timeout: 5 min). */
export async function startFleet(cleanup: Cleanup, kubeconfig: string, args: string[]): Promise<FleetProcess> {
  const t0 = Date.now();
  const p = spawn(process.execPath, [KSCALE, 'nodes', '--kubeconfig', kubeconfig, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = async (): Promise<void> => {
    if (p.exitCode !== null || p.signalCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGTERM');
    const t = setTimeout(() => p.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(t);
  };
  cleanup.add(stop, () => {
    if (p.exitCode === null) p.kill('SIGKILL');
  });
  let err = '';
  p.stderr!.on('data', (d: Buffer) => {
    if (err.length < 16 * 1024) err += d.toString();
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`fleet did not register in 5 min: ${err}`)), 300_000);
    p.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`fleet exited with ${code}: ${err}`));
    });
    createInterface({ input: p.stdout! }).on('line', (line) => {
      if (/nodes registered in/.test(line)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return { pid: p.pid!, registeredMs: Date.now() - t0 };
}

/** Resident set size in bytes, from /proc/<pid>/status. */
export function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m === null ? NaN : Number(m[1]) * 1024;
}

/** Bytes a process has caused to be written to storage (write_bytes of /proc/<pid>/io). */
export function diskWriteBytes(pid: number): number {
  const m = /write_bytes:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
  return m === null ? NaN : Number(m[1]);
}

/** One scrape of the API server's metrics. */
export interface Scrape {
  /** apiserver_request_total summed over codes, keyed "VERB resource[/subresource]". */
  requests: Map<string, number>;
  /** Requests answered with a code >= 400 (429 included). */
  failed: number;
  storageBytes: number;
}

/** Scrapes /metrics. */
export async function scrape(base: string): Promise<Scrape> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const requests = new Map<string, number>();
  let failed = 0;
  let storageBytes = NaN;
  for (const line of text.split('\n')) {
    if (line.startsWith('apiserver_request_total{')) {
      const labels = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
      const v = Number(line.slice(line.lastIndexOf(' ') + 1));
      const key = `${labels.verb} ${labels.resource}${labels.subresource ? `/${labels.subresource}` : ''}`;
      requests.set(key, (requests.get(key) ?? 0) + v);
      if (Number(labels.code) >= 400) failed += v;
    } else if (line.startsWith('apiserver_storage_size_bytes'))
      storageBytes = Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return { requests, failed, storageBytes };
}

/** Per-second rates between two scrapes, largest first; WATCH (long-running) is left out. */
export function requestRates(a: Scrape, b: Scrape, seconds: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of b.requests) {
    const d = (v - (a.requests.get(k) ?? 0)) / seconds;
    if (d > 0 && !k.startsWith('WATCH')) out.set(k, d);
  }
  return new Map([...out].sort((x, y) => y[1] - x[1]));
}
