/**
 * The history checker of the robustness suite, after etcd's robustness tests:
 * it rebuilds one reference history (revision -> change) from what the
 * clients saw, acknowledged writes and watch events alike, and checks the
 * record against it. Each rule reports violations; an empty list passes.
 */
import type { History, ReadOp, WatchEventRecord, WriteOp } from './history.js';

/** A change at one revision, as the reference history holds it. */
interface Change {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  key: string;
  value: string;
  source: string;
}

/** What the rules share: the record, its acknowledged writes, the reference and the stretches no watch saw. */
interface Context {
  h: History;
  acked: WriteOp[];
  ref: Map<number, Change>;
  revs: number[];
  /** Whether [lo, hi] meets a stretch no watch saw. */
  unseen: (lo: number, hi: number) => boolean;
  v: string[];
}

const eventType = (w: WriteOp): Change['type'] =>
  w.kind === 'create' ? 'ADDED' : w.kind === 'update' ? 'MODIFIED' : 'DELETED';

/** Checks a recorded history; returns what is wrong with it (empty: nothing). */
export function checkHistory(h: History): string[] {
  const v: string[] = [];
  const acked = h.writes.filter((w) => w.outcome === 'ok' && w.rv !== undefined);
  const ref = reference(h, acked, v);
  const revs = [...ref.keys()].sort((a, b) => a - b);
  checkRealTimeWrites(acked, v);
  const gaps = h.reads.filter((r) => r.snapshot === true && r.rv > 0).map((r) => [r.gapFrom ?? 0, r.rv] as const);
  /** Whether [lo, hi] meets a stretch (a, b] no watch saw, where the reference may lack changes. */
  const unseen = (lo: number, hi: number): boolean => gaps.some(([a, b]) => lo <= b && hi > a);
  const ctx: Context = { h, acked, ref, revs, unseen, v };
  checkCas(ctx);
  checkApplyCounts(h, ref, v);
  checkWatches(h, ref, revs, v);
  checkReads(ctx);
  return v;
}

/** Builds revision -> change from acknowledged writes and every watch event; two different changes at one revision violate. */
function reference(h: History, acked: WriteOp[], v: string[]): Map<number, Change> {
  const ref = new Map<number, Change>();
  const put = (rv: number, c: Change): void => {
    const old = ref.get(rv);
    if (old === undefined) ref.set(rv, c);
    else if (old.key !== c.key || old.type !== c.type || (c.type !== 'DELETED' && old.value !== c.value))
      v.push(
        `revision ${rv} reused: ${old.source} saw ${old.type} ${old.key}=${old.value}, ${c.source} saw ${c.type} ${c.key}=${c.value}`,
      );
  };
  for (const w of acked)
    put(w.rv!, { type: eventType(w), key: w.key, value: w.value ?? '', source: `acknowledged ${w.kind}` });
  h.watches.forEach((s, i) => {
    for (const e of s.events)
      if (e.type !== 'BOOKMARK') put(e.rv, { type: e.type, key: e.key, value: e.value, source: `watch #${i}` });
  });
  return ref;
}

/** A write acknowledged before another began has the lower revision (revisions follow real time, globally). */
function checkRealTimeWrites(acked: WriteOp[], v: string[]): void {
  const byEnd = [...acked].sort((a, b) => a.end - b.end);
  const byStart = [...acked].sort((a, b) => a.start - b.start);
  let i = 0;
  let maxRv = 0;
  let maxOp: WriteOp | undefined;
  for (const op of byStart) {
    while (i < byEnd.length && byEnd[i]!.end < op.start) {
      if (byEnd[i]!.rv! > maxRv) [maxRv, maxOp] = [byEnd[i]!.rv!, byEnd[i]];
      i++;
    }
    if (op.rv! <= maxRv)
      v.push(`${op.kind} ${op.key} at ${op.rv} began after ${maxOp!.kind} ${maxOp!.key} at ${maxRv} was acknowledged`);
  }
}

/** An acknowledged update or delete replaced exactly the revision it named (compare-and-swap held). */
function checkCas({ acked, ref, revs, unseen, v }: Context): void {
  const prev = previousByKey(ref, revs);
  for (const w of acked) {
    if (w.kind === 'create' || unseen(w.expect!, w.rv!)) continue;
    const p = prev.get(w.rv!);
    if (p !== w.expect) v.push(`${w.kind} ${w.key} at ${w.rv} named ${w.expect} but replaced ${p ?? 'nothing'}`);
  }
}

/** revision -> the key's previous revision in the reference. */
function previousByKey(ref: Map<number, Change>, revs: number[]): Map<number, number | undefined> {
  const last = new Map<string, number>();
  const prev = new Map<number, number | undefined>();
  for (const r of revs) {
    const c = ref.get(r)!;
    prev.set(r, last.get(c.key));
    last.set(c.key, r);
  }
  return prev;
}

/** A refused write never appears; an unacknowledged one at most once; an acknowledged one exactly once. */
function checkApplyCounts(h: History, ref: Map<number, Change>, v: string[]): void {
  const seen = new Map<string, number>();
  for (const c of ref.values()) if (c.type !== 'DELETED') seen.set(c.value, (seen.get(c.value) ?? 0) + 1);
  for (const w of h.writes) {
    if (w.value === undefined) continue;
    const n = seen.get(w.value) ?? 0;
    if (w.outcome === 'failed' && n > 0) v.push(`refused ${w.kind} of ${w.key}=${w.value} was applied`);
    if (n > 1) v.push(`${w.outcome === 'ok' ? 'acknowledged' : 'unacknowledged'} write ${w.value} applied ${n} times`);
  }
}

/**
 * Each session's events are strictly ordered and unique; it holds every reference change after its start up to
 * the last revision it reached (so resuming from any revision misses nothing); a bookmark never runs ahead of an
 * undelivered change.
 */
function checkWatches(h: History, ref: Map<number, Change>, revs: number[], v: string[]): void {
  h.watches.forEach((s, i) => {
    let last = s.from;
    let lastEvent = s.from;
    const got = new Set<number>();
    const check = (e: WatchEventRecord): void => {
      if (e.type === 'BOOKMARK') {
        if (e.rv < lastEvent) v.push(`watch #${i}: bookmark ${e.rv} behind delivered event ${lastEvent}`);
        for (const r of between(revs, last, e.rv + 1))
          if (!got.has(r)) v.push(`watch #${i} from ${s.from}: bookmark ${e.rv} ran ahead of undelivered ${r}`);
        last = Math.max(last, e.rv);
        return;
      }
      if (e.rv <= lastEvent)
        v.push(`watch #${i}: event ${e.type} ${e.key} at ${e.rv} after ${lastEvent} (out of order or repeated)`);
      for (const r of between(revs, lastEvent, e.rv))
        if (!got.has(r)) v.push(`watch #${i} from ${s.from}: skipped revision ${r} (${describe(ref.get(r)!)})`);
      got.add(e.rv);
      lastEvent = Math.max(lastEvent, e.rv);
      last = Math.max(last, e.rv);
    };
    for (const e of s.events) check(e);
  });
}

/** The reference revisions r with lo < r < hi. */
function between(revs: number[], lo: number, hi: number): number[] {
  const out: number[] = [];
  let a = 0;
  let b = revs.length;
  while (a < b) {
    const m = (a + b) >> 1;
    if (revs[m]! <= lo) a = m + 1;
    else b = m;
  }
  for (let j = a; j < revs.length && revs[j]! < hi; j++) out.push(revs[j]!);
  return out;
}

const describe = (c: Change): string => `${c.type} ${c.key}=${c.value}`;

/**
 * A consistent read is never older than a write acknowledged before it began; every list equals the reference
 * replayed to its revision (so every acknowledged write is there, or superseded by a later change).
 */
function checkReads({ h, acked, ref, revs, unseen, v }: Context): void {
  const snapshots = h.reads.filter((r) => r.snapshot === true && r.rv > 0).sort((a, b) => a.rv - b.rv);
  const byEnd = [...acked].sort((a, b) => a.end - b.end);
  for (const r of h.reads) {
    if (r.at === undefined) {
      let floor = 0;
      let floorKey = 0;
      let floorEnd = 0;
      for (const w of byEnd) {
        if (w.end >= r.start) break;
        floor = Math.max(floor, w.rv!);
        if (w.key === r.key && w.rv! > floorKey) [floorKey, floorEnd] = [w.rv!, w.end];
      }
      if (r.kind === 'list' && r.rv < floor) v.push(`consistent list at ${r.rv} older than acknowledged ${floor}`);
      if (r.kind === 'get') {
        const got = r.items[0];
        const lastKind = floorKey === 0 ? undefined : ref.get(floorKey)?.type;
        const stale =
          got === undefined
            ? lastKind !== undefined &&
              lastKind !== 'DELETED' &&
              !deletedAfter(ref, revs, r.key!, floorKey) &&
              !mayHaveDeleted(h, r.key!, floorEnd, r.end)
            : got[1] < floorKey;
        if (stale)
          v.push(`consistent get of ${r.key} returned ${got?.[1] ?? 'nothing'}, older than acknowledged ${floorKey}`);
      }
    }
    if (r.kind !== 'list') continue;
    if (r.snapshot === true) {
      checkSnapshot(h, r, acked, v);
      continue;
    }
    // A list inside a stretch no watch saw cannot be replayed; the snapshot that closes the stretch checks it.
    if (unseen(r.rv, r.rv)) continue;
    const want = replay(ref, revs, r.rv, snapshots);
    const have = new Map(r.items.map(([k, rv, val]) => [k, [rv, val] as const]));
    for (const [k, [rv, val]] of want) {
      const x = have.get(k);
      if (x === undefined)
        v.push(`list at ${r.rv} lacks ${k} (at ${rv}=${val} in the reference: an acknowledged write lost?)`);
      else if (x[0] !== rv || x[1] !== val)
        v.push(`list at ${r.rv} has ${k} at ${x[0]}=${x[1]}, the reference ${rv}=${val}`);
    }
    for (const [k, [rv]] of have)
      if (!want.has(k)) v.push(`list at ${r.rv} has ${k} at ${rv}, absent from the reference`);
  }
}

/** Whether the reference deletes `key` after revision `after`. */
function deletedAfter(ref: Map<number, Change>, revs: number[], key: string, after: number): boolean {
  return revs.some((r) => r > after && ref.get(r)!.key === key && ref.get(r)!.type === 'DELETED');
}

/**
 * A snapshot (a list taken after 410 Gone) checkpoints the reference: changes no watcher could see may lie
 * before it. Every acknowledged write at or below it is there, or its key changed or may have been deleted later.
 */
function checkSnapshot(h: History, s: ReadOp, acked: WriteOp[], v: string[]): void {
  const have = new Map(s.items.map(([k, rv]) => [k, rv]));
  const last = new Map<string, WriteOp>();
  for (const w of acked) if (w.rv! <= s.rv && w.rv! > (last.get(w.key)?.rv ?? 0)) last.set(w.key, w);
  for (const [k, w] of last) {
    const got = have.get(k);
    if (got !== undefined ? got >= w.rv! : w.kind === 'delete' || mayHaveDeleted(h, k, w.start, s.end)) continue;
    v.push(`acknowledged ${w.kind} of ${k} at ${w.rv} lost: the list at ${s.rv} has ${got ?? 'nothing'}`);
  }
}

/** Whether a delete of `key` that was acknowledged or may have applied ran between `after` and `before`. */
function mayHaveDeleted(h: History, key: string, after: number, before: number): boolean {
  return h.writes.some(
    (w) => w.kind === 'delete' && w.key === key && w.outcome !== 'failed' && w.end > after && w.start < before,
  );
}

/** The state at revision `at` (from the latest snapshot at or below it, if any): key -> [revision, value]. */
function replay(
  ref: Map<number, Change>,
  revs: number[],
  at: number,
  snapshots: ReadOp[] = [],
): Map<string, readonly [number, string]> {
  const state = new Map<string, readonly [number, string]>();
  let base = 0;
  for (const s of snapshots) if (s.rv <= at) base = s.rv;
  const snap = snapshots.find((s) => s.rv === base);
  for (const [k, rv, val] of snap?.items ?? []) state.set(k, [rv, val]);
  for (const r of revs) {
    if (r <= base) continue;
    if (r > at) break;
    const c = ref.get(r)!;
    if (c.type === 'DELETED') state.delete(c.key);
    else state.set(c.key, [r, c.value]);
  }
  return state;
}
