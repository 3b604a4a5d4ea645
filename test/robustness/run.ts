/**
 * One seeded robustness run: client workers create, CAS-update, delete, get,
 * list and watch ConfigMaps against a real `kscale server` while one fault
 * fires (a failpoint that kills the server or drops unsynced writes, or a
 * kill -9 at a random moment); the server is restarted on the same data dir
 * and recording continues. Returns the history and the checker's verdict.
 */
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from '../e2e/harness.js';
import { FAILPOINTS_ENV } from '../../src/failpoint/index.js';
import { dbFile } from '../../src/storage/sqlite/store.js';
import { earlyAckFiles, type EarlyAckVerdict } from '../../src/storage/sqlite/wal_failpoints.js';
import { checkHistory } from './checker.js';
import { KubeHttp } from './client.js';
import type { History, Outcome, ReadOp, WatchSession, WriteOp } from './history.js';
import { faultFor, type Fault } from './faults.js';
import { seededRandom } from './seeded_random.js';

/** What one run does. */
export interface RunOptions {
  seed: number;
  /** 'sqlite': the embedded store; otherwise the client URL of a running etcd (--etcd-servers). */
  backend: 'sqlite' | { etcd: string };
  /** How long the workers run, in ms. */
  durationMs?: number;
  /** Failpoints armed on the first server process instead of the seed's fault (the checker's mutation runs). */
  mutation?: string;
  /** Extra server flags. */
  serverArgs?: string[];
  /**
   * The mutation arms `sqlite/ackBeforeFsync=N+handshake`: answer each early acknowledgement, cutting the power
   * only once a worker has received one of its writes (so the run always has an acknowledged write to lose).
   */
  earlyAckHandshake?: boolean;
}

/** A finished run. */
export interface RunResult {
  seed: number;
  fault: Fault;
  restarts: number;
  history: History;
  violations: string[];
}

const NS = 'default';
const KEYS = 8;
const BASE = `/api/v1/namespaces/${NS}/configmaps`;

const rvOf = (o: Record<string, unknown> | undefined): number =>
  Number((o?.metadata as { resourceVersion?: string } | undefined)?.resourceVersion ?? 0);
const nameOf = (o: Record<string, unknown> | undefined): string =>
  String((o?.metadata as { name?: string } | undefined)?.name ?? '');
const valueOf = (o: Record<string, unknown> | undefined): string =>
  String((o?.data as { v?: string } | undefined)?.v ?? '');
const outcomeOf = (code: number): Outcome =>
  code >= 200 && code < 300 ? 'ok' : code >= 400 && code < 500 ? 'failed' : 'unknown';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Runs one seed end to end (server, workers, fault, restart, final reads) and checks its history. */
export async function runSeed(opts: RunOptions): Promise<RunResult> {
  const rand = seededRandom(opts.seed);
  const durationMs = opts.durationMs ?? 3_000;
  const fault: Fault =
    opts.mutation === undefined
      ? faultFor(rand, opts.backend === 'sqlite', durationMs)
      : { name: `mutation ${opts.mutation}`, failpoints: opts.mutation };
  const args = [
    ...(opts.backend === 'sqlite' ? [] : ['--etcd-servers', opts.backend.etcd]),
    ...(opts.serverArgs ?? []),
  ];
  const dir = mkdtempSync(join(tmpdir(), 'kscale-robustness-'));
  const history: History = { writes: [], reads: [], watches: [] };
  let restarts = 0;
  let stopping = false;
  /**
   * The keys whose acknowledged writes the early-ack handshake let the power cut drop. The workers leave them alone
   * until the restarted server has been read for each (a consistent GET), so a later write cannot supersede the lost
   * one before the checker sees it missing.
   */
  const dropped = new Set<string>();
  const start = async (failpoints: string): Promise<TestServer> => {
    const saved = process.env[FAILPOINTS_ENV];
    process.env[FAILPOINTS_ENV] = failpoints;
    try {
      return await startServer(args, dir);
    } finally {
      if (saved === undefined) delete process.env[FAILPOINTS_ENV];
      else process.env[FAILPOINTS_ENV] = saved;
    }
  };
  /**
   * The test's side of ackBeforeFsync=handshake: a batch with a write of ours is cut (`drop`) once a worker holds
   * its acknowledgement; a batch of the server's own writes (start-up's too), or one whose answer never arrives, stands (`pass`).
   */
  const answerEarlyAcks = async (): Promise<void> => {
    const f = earlyAckFiles(dbFile(join(dir, 'data')));
    let answered = 0;
    while (opts.earlyAckHandshake === true && restarts === 0 && !stopping) {
      let pub: { seq: number; acks: [string, number][] } | undefined;
      try {
        pub = JSON.parse(readFileSync(f.acks, 'utf8')) as { seq: number; acks: [string, number][] };
      } catch {
        pub = undefined;
      }
      if (pub === undefined || pub.seq <= answered) {
        await sleep(5);
        continue;
      }
      const prefix = `/registry/configmaps/${NS}/`;
      const ours = new Set(
        pub.acks.filter(([k]) => k.startsWith(prefix)).map(([k, rev]) => `${k.slice(prefix.length)}@${rev}`),
      );
      const delivered = (): boolean =>
        history.writes.some((w) => w.outcome === 'ok' && w.rv !== undefined && ours.has(`${w.key}@${w.rv}`));
      const deadline = performance.now() + 20_000;
      while (ours.size > 0 && !delivered() && performance.now() < deadline) await sleep(5);
      // The cut waits for the workers' own history to be under way (20 acknowledged writes), so it never hits start-up.
      const underWay = history.writes.filter((w) => w.outcome === 'ok').length >= 20;
      const verdict: EarlyAckVerdict = underWay && delivered() ? 'drop' : 'pass';
      if (verdict === 'drop')
        for (const w of history.writes)
          if (w.outcome === 'ok' && w.rv !== undefined && ours.has(`${w.key}@${w.rv}`)) dropped.add(w.key);
      writeFileSync(`${f.verdict}.tmp`, `${pub.seq} ${verdict}`);
      renameSync(`${f.verdict}.tmp`, f.verdict);
      answered = pub.seq;
    }
  };
  const earlyAcks = answerEarlyAcks();
  let server = await start(fault.failpoints ?? '');
  let client = new KubeHttp(server.kubeconfig);
  /** While the server is down, and when it last came back: the workers keep going a second past that. */
  let down = false;
  let backAt = 0;
  // The supervisor: a server that died (its failpoint, or our kill -9) comes back on the same data dir.
  const supervise = async (): Promise<void> => {
    while (!stopping) {
      await new Promise((r) => server.process.once('exit', r));
      if (stopping) return;
      restarts++;
      down = true;
      server = await start('');
      down = false;
      backAt = performance.now();
      const old = client;
      client = new KubeHttp(server.kubeconfig);
      old.close();
      for (const key of dropped)
        await read({ kind: 'get', key, start: now(), end: 0, rv: 0, items: [] }, `${BASE}/${key}`);
      dropped.clear();
    }
  };
  const supervisor = supervise();
  const now = (): number => performance.now();

  const initial = await client.request('GET', BASE);
  for (const it of (initial.body?.items as Record<string, unknown>[] | undefined) ?? [])
    await client.request('DELETE', `${BASE}/${nameOf(it)}`);
  const startRv = rvOf((await client.request('GET', BASE)).body);

  const known = new Map<string, number>();
  let seq = 0;
  const write = async (op: WriteOp, method: string, path: string, body: unknown): Promise<void> => {
    history.writes.push(op);
    try {
      const a = await client.request(method, path, body);
      op.outcome = outcomeOf(a.code);
      op.code = a.code;
      if (op.outcome !== 'ok' && typeof a.body?.message === 'string') op.message = a.body.message;
      if (op.outcome === 'ok') {
        // A delete answered with a Status (no object) carries no revision: acknowledged, revision unknown.
        if (rvOf(a.body) > 0) op.rv = rvOf(a.body);
        if (op.kind === 'delete' || op.rv === undefined) known.delete(op.key);
        else known.set(op.key, op.rv);
      } else if (a.code === 409 || a.code === 404) known.delete(op.key);
    } catch {
      op.outcome = 'unknown';
      op.end = now();
      await sleep(50); // the server is down: back off instead of spinning on refused connections
    }
    if (op.end === 0) op.end = now();
  };
  const read = async (op: ReadOp, path: string): Promise<void> => {
    try {
      const a = await client.request('GET', path);
      op.end = now();
      if (a.code === 404 && op.kind === 'get') return void history.reads.push(op);
      if (a.code !== 200) return;
      if (op.kind === 'get') {
        op.rv = rvOf(a.body);
        op.items = [[op.key!, op.rv, valueOf(a.body)]];
        known.set(op.key!, op.rv);
      } else {
        op.rv = rvOf(a.body);
        op.items = ((a.body?.items as Record<string, unknown>[]) ?? []).map((o) => [nameOf(o), rvOf(o), valueOf(o)]);
      }
      history.reads.push(op);
    } catch {
      // A read that failed tells nothing.
      await sleep(50);
    }
  };

  const running = (until: number): boolean => now() < until || down || now() < backAt + 1_000;
  const worker = async (w: number, until: number): Promise<void> => {
    const r = seededRandom(opts.seed * 31 + w);
    while (running(until)) {
      const key = `cm-${Math.floor(r() * KEYS)}`;
      if (dropped.has(key)) {
        await sleep(1);
        continue;
      }
      const x = r();
      const value = `s${opts.seed}-w${w}-${seq++}`;
      const base = { key, start: now(), end: 0, outcome: 'unknown' as Outcome };
      const expect = known.get(key);
      if (x < 0.3 || (x < 0.75 && expect === undefined && r() < 0.5)) {
        const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: key }, data: { v: value } };
        await write({ ...base, kind: 'create', value }, 'POST', BASE, body);
      } else if (x < 0.6 && expect !== undefined) {
        const body = {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: key, resourceVersion: String(expect) },
          data: { v: value },
        };
        await write({ ...base, kind: 'update', value, expect }, 'PUT', `${BASE}/${key}`, body);
      } else if (x < 0.75 && expect !== undefined) {
        const body = { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion: String(expect) } };
        await write({ ...base, kind: 'delete', expect }, 'DELETE', `${BASE}/${key}`, body);
      } else if (x < 0.9) {
        await read({ kind: 'get', key, start: base.start, end: 0, rv: 0, items: [] }, `${BASE}/${key}`);
      } else {
        await read({ kind: 'list', start: base.start, end: 0, rv: 0, items: [] }, BASE);
      }
      if (base.start + 1 > now()) await sleep(1);
    }
  };

  const watchers = new AbortController();
  /** A watch that resumes from the last revision it reached whenever its stream ends; after 410, relists if asked. */
  const follow = async (fromRv: number, stopAt: () => boolean, signal: AbortSignal, relist = false): Promise<void> => {
    let rv = fromRv;
    while (!signal.aborted && !stopAt()) {
      const s: WatchSession = { from: rv, events: [] };
      history.watches.push(s);
      const code = await client.watch(
        `${BASE}?watch=1&allowWatchBookmarks=true&resourceVersion=${rv}`,
        (ev) => {
          const obj = ev.object as Record<string, unknown>;
          if (ev.type === 'ERROR') {
            s.error = String((obj as { message?: string }).message);
            if ((obj as { code?: number }).code === 410) s.expired = true;
            return;
          }
          const type = ev.type as WatchSession['events'][number]['type'];
          const e = { type, key: nameOf(obj), rv: rvOf(obj), value: valueOf(obj) };
          s.events.push(e);
          rv = Math.max(rv, e.rv);
        },
        signal,
      );
      if ((s.expired || code === 410) && !relist) return;
      if (s.expired || code === 410) {
        const snap: ReadOp = { kind: 'list', start: now(), end: 0, rv: 0, items: [], snapshot: true, gapFrom: rv };
        await read(snap, BASE);
        if (snap.end > 0 && snap.rv > 0) rv = snap.rv;
      }
      if (!signal.aborted) await sleep(50);
    }
  };
  const until = now() + durationMs;
  const main = follow(startRv, () => false, watchers.signal, true);
  /** Watches opened at random revisions already seen, each for a short while: resumable from any revision. */
  const resumer = async (): Promise<void> => {
    const r = seededRandom(opts.seed * 7 + 1);
    while (running(until)) {
      const acked = history.writes.filter((w) => w.outcome === 'ok' && w.rv !== undefined);
      const at = acked.length === 0 ? startRv : acked[Math.floor(r() * acked.length)]!.rv!;
      const ac = new AbortController();
      const t = setTimeout(() => ac.abort(), 200 + r() * 600);
      await follow(at, () => ac.signal.aborted, ac.signal);
      clearTimeout(t);
    }
  };
  const fire = async (): Promise<void> => {
    if (fault.killAtMs === undefined) return;
    await sleep(fault.killAtMs);
    // A failpoint that already fired is the seed's fault; the kill is for the points that never fire.
    if (restarts === 0 && !down) server.process.kill('SIGKILL');
  };
  await Promise.all([...Array.from({ length: 4 }, (_, w) => worker(w, until)), resumer(), fire()]);

  // Final reads once the workers stop: a consistent list, then the main watch catches up to it.
  let final: ReadOp | undefined;
  for (let i = 0; i < 100 && final === undefined; i++) {
    const op: ReadOp = { kind: 'list', start: now(), end: 0, rv: 0, items: [] };
    await read(op, BASE);
    if (op.end > 0 && op.rv > 0) final = op;
    else await sleep(100);
  }
  const caughtUp = now() + 10_000;
  const lastRv = (): number => Math.max(0, ...history.watches.flatMap((s) => s.events.map((e) => e.rv)));
  while (final !== undefined && lastRv() < final.rv && now() < caughtUp) await sleep(50);
  // Exact lists at a few revisions already acknowledged: each must equal the reference replayed there.
  const r = seededRandom(opts.seed * 13 + 5);
  const acked = history.writes.filter((w) => w.outcome === 'ok' && w.rv !== undefined);
  for (let i = 0; i < 3 && acked.length > 0; i++) {
    const at = acked[Math.floor(r() * acked.length)]!.rv!;
    await read(
      { kind: 'list', at, start: now(), end: 0, rv: 0, items: [] },
      `${BASE}?resourceVersion=${at}&resourceVersionMatch=Exact`,
    );
  }
  stopping = true;
  watchers.abort();
  await main;
  await earlyAcks;
  client.close();
  await server.stop();
  await supervisor.catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
  if (final === undefined) throw new Error(`seed ${opts.seed}: the server never answered a list after the fault`);
  return { seed: opts.seed, fault, restarts, history, violations: checkHistory(history) };
}
