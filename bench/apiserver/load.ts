/**
 * Load phases, run inside the load-generator process: a closed loop (each
 * connection sends its next request as soon as the previous answer arrives,
 * which finds the maximum rate) and an open loop (requests scheduled at a
 * fixed arrival rate; latency counts from the scheduled send time, so a slow
 * server cannot hide its queueing: no coordinated omission). Every phase is
 * bounded by a count and by a duration.
 */
import { performance } from 'node:perf_hooks';
import { encodeRequest, HttpConn, type RawResponse } from './http_conn.js';

/** What a phase sends. */
export type Op = 'get' | 'create' | 'update';

/** An object one connection updates exclusively, so updates never conflict. */
export interface UpdateObject {
  path: string;
  /** The object's JSON with the placeholders __RV__ and __SEQ__. */
  template: string;
  /** Its current resourceVersion. */
  rv: string;
}

/** A phase to run. */
export interface Job {
  host: string;
  port: number;
  op: Op;
  mode: 'closed' | 'open';
  connections: number;
  maxCount: number;
  maxMs: number;
  /** Open loop only: arrivals per second. */
  rate?: number;
  /** GET target. */
  getPath: string;
  /** POST target. */
  createPath: string;
  /** The create body, with the placeholder __NAME__. */
  createTemplate: string;
  /** A prefix that makes created names unique across phases. */
  namePrefix: string;
  /** One per connection for `update`; at least `connections` of them. */
  updates: UpdateObject[];
}

/** Latency percentiles in milliseconds. */
export interface Latency {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** What a phase measured. */
export interface JobResult {
  /** Responses with a 2xx status. */
  ok: number;
  /** Non-2xx responses and transport errors. */
  errors: number;
  statuses: Record<string, number>;
  firstError?: string;
  /** Open loop: scheduled requests never answered before the time bound. */
  incomplete: number;
  elapsedMs: number;
  /** ok per second over elapsedMs. */
  perSec: number;
  /** Generator CPU over the phase, as a percent of one core. */
  cpuPercent: number;
  /** Open loop only: from the scheduled send time to the full response. */
  latency?: Latency;
  /** The update objects' resourceVersions after the phase. */
  rvs: string[];
}

const RV_KEY = Buffer.from('"resourceVersion":"');

/** The first resourceVersion in a JSON body (metadata's: it precedes any nested one). */
function resourceVersionOf(body: Buffer): string | undefined {
  const at = body.indexOf(RV_KEY);
  if (at < 0) return undefined;
  const end = body.indexOf(0x22, at + RV_KEY.length);
  return body.toString('latin1', at + RV_KEY.length, end);
}

/** Percentiles from a sorted copy (hdr-histogram-js is not installed; counts are bounded). */
export function percentiles(samples: Float64Array): Latency {
  const s = Float64Array.from(samples).sort();
  const at = (q: number): number => (s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!);
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: s.length === 0 ? NaN : s[s.length - 1]! };
}

/** A connection with its request builder and, for updates, its object. */
class Worker {
  constructor(
    readonly conn: HttpConn,
    readonly next: () => Buffer,
    readonly obj: UpdateObject | undefined,
  ) {}
}

function requestBuilder(
  job: Job,
  hostHeader: string,
  obj: UpdateObject | undefined,
  counter: { n: number },
): () => Buffer {
  switch (job.op) {
    case 'get': {
      const req = encodeRequest('GET', job.getPath, hostHeader);
      return () => req;
    }
    case 'create': {
      const [pre, post] = job.createTemplate.split('__NAME__') as [string, string];
      return () => encodeRequest('POST', job.createPath, hostHeader, pre + `${job.namePrefix}-${counter.n++}` + post);
    }
    case 'update': {
      if (obj === undefined) throw new Error('update phase without an object for every connection');
      // Split once: even parts are literal JSON, odd parts the placeholders.
      const parts = obj.template.split(/(__RV__|__SEQ__)/);
      let seq = 0;
      return () => {
        seq++;
        let body = '';
        for (let i = 0; i < parts.length; i++)
          body += i % 2 === 0 ? parts[i] : parts[i] === '__RV__' ? obj.rv : String(seq);
        return encodeRequest('PUT', obj.path, hostHeader, body);
      };
    }
  }
}

/** Runs one phase and resolves with its figures. */
export async function runJob(job: Job): Promise<JobResult> {
  const hostHeader = `${job.host}:${job.port}`;
  const counter = { n: 0 };
  const workers: Worker[] = [];
  try {
    for (let i = 0; i < job.connections; i++) {
      const conn = await HttpConn.open(job.host, job.port);
      const obj = job.op === 'update' ? job.updates[i] : undefined;
      workers.push(new Worker(conn, requestBuilder(job, hostHeader, obj, counter), obj));
    }
    return job.mode === 'closed' ? await closedLoop(job, workers) : await openLoop(job, workers);
  } finally {
    for (const w of workers) w.conn.close();
  }
}

/** Tallies responses; shared by both loops. */
class Tally {
  ok = 0;
  errors = 0;
  statuses: Record<string, number> = {};
  firstError: string | undefined;

  record(w: Worker, err: Error | undefined, res: RawResponse | undefined): boolean {
    if (err !== undefined || res === undefined) {
      this.errors++;
      this.statuses.transport = (this.statuses.transport ?? 0) + 1;
      this.firstError ??= err?.message ?? 'no response';
      return false;
    }
    this.statuses[res.status] = (this.statuses[res.status] ?? 0) + 1;
    if (res.status < 200 || res.status > 299) {
      this.errors++;
      this.firstError ??= `HTTP ${res.status}: ${res.body.toString('utf8', 0, Math.min(300, res.body.length))}`;
      return false;
    }
    this.ok++;
    trackVersion(w, res);
    return true;
  }
}

/** Keeps an update object's resourceVersion current after a successful write. */
function trackVersion(w: Worker, res: RawResponse | undefined): void {
  if (w.obj === undefined || res === undefined || res.status < 200 || res.status > 299) return;
  w.obj.rv = resourceVersionOf(res.body) ?? w.obj.rv;
}

function result(
  job: Job,
  t: Tally,
  elapsedMs: number,
  cpu: NodeJS.CpuUsage,
  incomplete: number,
  latency?: Latency,
): JobResult {
  const used = process.cpuUsage(cpu);
  return {
    ok: t.ok,
    errors: t.errors,
    statuses: t.statuses,
    ...(t.firstError === undefined ? {} : { firstError: t.firstError }),
    incomplete,
    elapsedMs,
    perSec: elapsedMs > 0 ? (t.ok * 1000) / elapsedMs : 0,
    cpuPercent: elapsedMs > 0 ? ((used.user + used.system) / 1000 / elapsedMs) * 100 : 0,
    ...(latency === undefined ? {} : { latency }),
    rvs: job.op === 'update' ? job.updates.map((u) => u.rv) : [],
  };
}

function closedLoop(job: Job, workers: Worker[]): Promise<JobResult> {
  return new Promise((resolve) => {
    const tally = new Tally();
    const cpu = process.cpuUsage();
    const start = performance.now();
    const end = start + job.maxMs;
    let sent = 0;
    let inFlight = 0;
    let last = start;
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      clearTimeout(guard);
      resolve(result(job, tally, last - start, cpu, 0));
    };
    // If the server stops answering, the duration bound still ends the phase.
    const guard = setTimeout(finish, job.maxMs + 5_000);
    const go = (w: Worker): void => {
      if (sent >= job.maxCount || performance.now() >= end) {
        if (inFlight === 0) finish();
        return;
      }
      sent++;
      inFlight++;
      w.conn.send(w.next(), (err, res) => {
        inFlight--;
        const now = performance.now();
        if (now <= end) {
          tally.record(w, err, res);
          last = now;
        } else {
          trackVersion(w, res); // answered after the bound: not counted, but the version moved
        }
        if (err !== undefined) {
          if (inFlight === 0) finish();
          return;
        }
        go(w);
      });
    };
    for (const w of workers) go(w);
  });
}

function openLoop(job: Job, workers: Worker[]): Promise<JobResult> {
  return new Promise((resolve) => {
    const rate = job.rate ?? 1;
    const count = Math.max(1, Math.min(job.maxCount, Math.floor((rate * job.maxMs) / 1000)));
    const interval = 1000 / rate;
    const tally = new Tally();
    const latencies = new Float64Array(count);
    let recorded = 0;
    const idle: Worker[] = [...workers];
    const queue: number[] = []; // scheduled send times, oldest first
    let qHead = 0;
    let scheduled = 0;
    let done = 0;
    const cpu = process.cpuUsage();
    const start = performance.now() + 5;
    // Arrivals stop after maxMs; answers are awaited up to 10 s more.
    const deadline = start + job.maxMs + 10_000;
    let finished = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      if (timer !== undefined) clearTimeout(timer);
      const lat = percentiles(latencies.subarray(0, recorded));
      resolve(result(job, tally, performance.now() - start, cpu, count - done, lat));
    };
    const dispatch = (): void => {
      while (qHead < queue.length && idle.length > 0) {
        const at = queue[qHead++]!;
        const w = idle.pop()!;
        w.conn.send(w.next(), (err, res) => {
          done++;
          if (tally.record(w, err, res)) latencies[recorded++] = performance.now() - at;
          if (err === undefined) idle.push(w);
          if (done >= count) finish();
          else dispatch();
        });
      }
    };
    const tick = (): void => {
      timer = undefined;
      const now = performance.now();
      if (now > deadline) {
        finish();
        return;
      }
      while (scheduled < count && start + scheduled * interval <= now) queue.push(start + interval * scheduled++);
      dispatch();
      if (scheduled < count) timer = setTimeout(tick, Math.max(0, Math.min(1, start + scheduled * interval - now)));
      else timer = setTimeout(tick, 100); // only the deadline check remains
    };
    tick();
  });
}
