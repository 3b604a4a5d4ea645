/**
 * What the benchmark reads about the server under test: its /metrics (the
 * storage calls by operation, the watch cache's gauges), its memory from
 * /proc, and a LIST timed to the last byte by a streaming reader that counts
 * the body instead of keeping it.
 */
import { connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { ResponseStream } from './http_stream.js';
import { monoMs, type Target } from './protocol.js';

/** Metric samples by their full name with labels, e.g. `etcd_request_duration_seconds_count{operation="get",type="pods"}`. */
export type Samples = Map<string, number>;

const WANTED =
  /^(etcd_request_duration_seconds_count|apiserver_watch_cache_|apiserver_cache_list_|apiserver_registered_watchers|apiserver_terminated_watchers_total|kscale_watch_cache_)/;

/** Scrapes the samples the report uses. */
export async function scrapeMetrics(t: Target): Promise<Samples> {
  const res = await fetch(`http://${t.host}:${t.port}/metrics`);
  if (!res.ok) throw new Error(`/metrics: HTTP ${res.status}`);
  const out: Samples = new Map();
  for (const line of (await res.text()).split('\n')) {
    if (!WANTED.test(line)) continue;
    const sp = line.lastIndexOf(' ');
    out.set(line.slice(0, sp), Number(line.slice(sp + 1)));
  }
  return out;
}

/** Sum of the samples whose name matches `re`. */
export function sum(s: Samples, re: RegExp): number {
  let n = 0;
  for (const [k, v] of s) if (re.test(k)) n += v;
  return n;
}

/** Per-operation storage call counts between two scrapes (etcd_request_duration_seconds_count, all resources). */
export function storageCallsBetween(a: Samples, b: Samples): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of b) {
    const m = /^etcd_request_duration_seconds_count\{operation="([^"]+)"/.exec(k);
    if (m === null) continue;
    out[m[1]!] = (out[m[1]!] ?? 0) + v - (a.get(k) ?? 0);
  }
  return out;
}

/** Resident and peak resident memory of a process, in bytes (Linux). */
export function memoryOf(pid: number): { rss: number; peak: number } | undefined {
  try {
    const st = readFileSync(`/proc/${pid}/status`, 'latin1');
    const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(st)?.[1] ?? NaN) * 1024;
    return { rss: kb('VmRSS'), peak: kb('VmHWM') };
  } catch {
    return undefined;
  }
}

/** One timed LIST: status, body bytes, and ms from sending the request to the body's last byte. */
export interface TimedList {
  status: number;
  bytes: number;
  ms: number;
}

/** GETs `path` on a fresh connection and times it to the last byte of the body; bounded by timeoutMs. */
export function timedList(t: Target, path: string, timeoutMs: number): Promise<TimedList> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: t.host, port: t.port });
    let status = 0;
    let t0 = 0;
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`LIST ${path}: not complete after ${timeoutMs} ms`));
    }, timeoutMs);
    const stream = new ResponseStream({
      head: (st) => (status = st),
      data: () => undefined,
      end: () => {
        const ms = monoMs() - t0;
        clearTimeout(timer);
        s.destroy();
        resolve({ status, bytes: stream.bodyBytes, ms });
      },
    });
    s.on('connect', () => {
      t0 = monoMs();
      s.write(
        `GET ${path} HTTP/1.1\r\nHost: ${t.host}:${t.port}\r\nAccept: application/json\r\nUser-Agent: kscale-bench-list\r\n\r\n`,
        'latin1',
      );
    });
    s.on('data', (d: Buffer) => stream.feed(d));
    s.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    s.on('close', () => {
      if (stream.done) return;
      clearTimeout(timer);
      reject(new Error(`LIST ${path}: connection closed after ${stream.bodyBytes} body bytes`));
    });
  });
}
