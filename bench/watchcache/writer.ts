/**
 * The writer process: creates the pods (closed loop, bounded concurrency) and
 * churns their status at a fixed arrival rate (open loop: a late answer never
 * delays the next send, so a slow server cannot hide its queueing). Each
 * status PATCH carries its update id and scheduled send time in
 * status.message; the watch clients find them in the frames they receive.
 * It reuses bench/apiserver's raw keep-alive connection.
 */
import { encodeRequest, HttpConn, type RawResponse } from '../apiserver/http_conn.js';
import { podManifest } from '../apiserver/pod.js';
import {
  MARKER,
  monoMs,
  type ChurnJob,
  type CreateJob,
  type Target,
  type WriterReply,
  type WriterRequest,
  type WriterResult,
} from './protocol.js';

/** Counts answers by status. */
class Tally {
  ok = 0;
  errors = 0;
  statuses: Record<string, number> = {};
  firstError: string | undefined;

  record(err: Error | undefined, res: RawResponse | undefined): boolean {
    const key = err !== undefined ? 'conn' : String(res!.status);
    this.statuses[key] = (this.statuses[key] ?? 0) + 1;
    if (err === undefined && res!.status >= 200 && res!.status < 300) {
      this.ok++;
      return true;
    }
    this.errors++;
    this.firstError ??= err !== undefined ? err.message : `HTTP ${res!.status}: ${res!.body.toString('utf8', 0, 300)}`;
    return false;
  }

  result(elapsedMs: number, unanswered: number, unsent = 0): WriterResult {
    return {
      ok: this.ok,
      errors: this.errors,
      statuses: this.statuses,
      ...(this.firstError === undefined ? {} : { firstError: this.firstError }),
      unanswered,
      unsent,
      elapsedMs,
      perSec: elapsedMs > 0 ? (this.ok / elapsedMs) * 1000 : 0,
    };
  }
}

function openConns(t: Target, n: number): Promise<HttpConn[]> {
  return Promise.all(Array.from({ length: n }, () => HttpConn.open(t.host, t.port)));
}

/** The pod manifest the benchmark creates: bench/apiserver's ~2 KB pod, bound to a node at create time. */
export function benchPod(i: number, nodes: number): Record<string, unknown> {
  const pod = podManifest(`pod-${i}`);
  (pod.spec as Record<string, unknown>).nodeName = `node-${i % nodes}`;
  return pod;
}

/** Creates pods 0..count-1, each connection sending its next create when the last is answered. */
async function create(job: CreateJob): Promise<WriterResult> {
  const conns = await openConns(job.target, job.connections);
  const host = `${job.target.host}:${job.target.port}`;
  const path = `/api/v1/namespaces/${job.namespace}/pods`;
  const tally = new Tally();
  const start = monoMs();
  const deadline = start + job.maxMs;
  let next = 0;
  await Promise.all(
    conns.map(async (c) => {
      while (next < job.count && monoMs() < deadline) {
        const req = encodeRequest('POST', path, host, JSON.stringify(benchPod(next++, job.nodes)));
        const ok = await new Promise<boolean>((resolve) =>
          c.send(req, (err, res) => resolve(tally.record(err, res) || err === undefined)),
        );
        if (!ok) return; // the connection is gone
      }
    }),
  );
  for (const c of conns) c.close();
  return tally.result(monoMs() - start, job.count - tally.ok - tally.errors);
}

function patchRequest(host: string, path: string, body: string): Buffer {
  const b = Buffer.from(body);
  const head = `PATCH ${path} HTTP/1.1\r\nHost: ${host}\r\nAccept: application/json\r\nUser-Agent: kscale-bench\r\nContent-Type: application/merge-patch+json\r\nContent-Length: ${b.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), b]);
}

/** Sends job.count status PATCHes at job.rate per second, on idle connections, oldest first. */
function churn(job: ChurnJob, conns: HttpConn[]): Promise<WriterResult> {
  const host = `${job.target.host}:${job.target.port}`;
  const base = `/api/v1/namespaces/${job.namespace}/pods/pod-`;
  const sent = new Float64Array(job.count).fill(NaN);
  const acked = new Float64Array(job.count).fill(NaN);
  const interval = 1000 / job.rate;
  const tally = new Tally();
  const idle = [...conns];
  const start = monoMs() + 5;
  const deadline = start + job.maxMs + job.graceMs;
  let scheduled = 0;
  let dispatched = 0;
  let done = 0;
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      if (timer !== undefined) clearTimeout(timer);
      const r = tally.result(monoMs() - start, scheduled - done, scheduled - dispatched);
      r.sent = sent;
      r.acked = acked;
      resolve(r);
    };
    const dispatch = (): void => {
      while (dispatched < scheduled && idle.length > 0) {
        const k = dispatched++;
        const c = idle.pop()!;
        const body = `{"status":{"phase":"Running","message":"${MARKER}${k} t=${sent[k]!.toFixed(3)}"}}`;
        c.send(patchRequest(host, `${base}${(k + job.offset) % job.pods}/status`, body), (err, res) => {
          done++;
          if (tally.record(err, res)) acked[k] = monoMs();
          if (err === undefined) idle.push(c);
          if (done >= job.count) finish();
          else dispatch();
        });
      }
    };
    const tick = (): void => {
      timer = undefined;
      const now = monoMs();
      if (now > deadline) return finish();
      const arrivalsEnd = start + job.maxMs;
      while (scheduled < job.count && start + scheduled * interval <= Math.min(now, arrivalsEnd)) {
        sent[scheduled] = start + scheduled * interval;
        scheduled++;
      }
      dispatch();
      const more = scheduled < job.count && start + scheduled * interval <= arrivalsEnd;
      timer = setTimeout(tick, more ? Math.max(0, Math.min(1, start + scheduled * interval - now)) : 100);
      if (!more && done >= scheduled) finish();
    };
    tick();
  });
}

async function run(m: WriterRequest): Promise<WriterResult> {
  if (m.type === 'create') return create(m);
  const conns = await openConns(m.target, m.connections);
  try {
    return await churn(m, conns);
  } finally {
    for (const c of conns) c.close();
  }
}

if (process.send !== undefined) {
  process.on('message', (m: WriterRequest) => {
    run(m).then(
      (result) => process.send!({ type: 'result', result } satisfies WriterReply),
      (err: unknown) =>
        process.send!({
          type: 'error',
          message: err instanceof Error ? err.message : String(err),
        } satisfies WriterReply),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
