/**
 * Turns the figures of one run into the printed table: one row per measure,
 * etcd and the embedded store side by side, and the target with PASS/FAIL
 * where one applies.
 */
import { LABEL, PHASES, type BenchConfig } from './config.js';
import type { ListFigures } from './list.js';
import type { StallFigures } from './stall.js';
import type { WatchFigure, WatchFigures } from './watch.js';
import type { CreateFigures } from './writes.js';

/** Every figure of one run, by backend. */
export interface Results {
  fsyncPerSec: number;
  creates: { etcd: CreateFigures[]; full: CreateFigures[]; normal: CreateFigures[] };
  cas: { etcd: number; full: number };
  list: { etcd: ListFigures; full: ListFigures };
  watch: { etcd: WatchFigures; full: WatchFigures };
  stall: { etcd: StallFigures; full: StallFigures };
}

/** One printed row. */
export interface Row {
  label: string;
  etcd: string;
  full: string;
  normal: string;
  target: string;
  /** PASS/FAIL, or '' where no target applies. */
  result: string;
}

const int = (x: number): string => Math.round(x).toLocaleString('en-US');
const secs = (x: number | undefined): string => (x === undefined ? '—' : x.toFixed(3));
const ms = (x: number | undefined): string => (x === undefined ? '—' : x.toFixed(1));
const verdict = (ok: boolean, detail: string): string => `${ok ? 'PASS' : 'FAIL'} ${detail}`.trim();
const watchCell = (f: WatchFigure | undefined): string =>
  f === undefined ? '—' : `${int(f.eventsPerSec)}${f.complete ? '' : ' (cut off)'}`;

/** Targets, as stated for the embedded store. */
export const TARGETS = {
  createsVsEtcd: 3,
  listMaxS: 1,
  watchMinPerSec: 100_000,
  loopStallMaxMs: 50,
};

/** Builds the table rows from one run's figures. */
export function buildRows(cfg: BenchConfig, r: Results): Row[] {
  const rows: Row[] = [];
  const row = (label: string, etcd: string, full: string, normal = '', target = '', result = ''): void => {
    rows.push({ label, etcd, full, normal, target, result });
  };
  cfg.writerCounts.forEach((w, i) => {
    const e = r.creates.etcd[i].opsPerSec;
    const f = r.creates.full[i].opsPerSec;
    const ratio = f / e;
    const targeted = w >= 16;
    row(
      LABEL.creates(w),
      int(e),
      int(f),
      `${int(r.creates.normal[i].opsPerSec)}`,
      targeted ? `≥ ${TARGETS.createsVsEtcd}× etcd` : '',
      targeted ? verdict(ratio >= TARGETS.createsVsEtcd, `${ratio.toFixed(1)}×`) : `${ratio.toFixed(1)}×`,
    );
  });
  cfg.writerCounts.forEach((w, i) => {
    const f = r.creates.full[i];
    const n = r.creates.normal[i];
    row(LABEL.writesPerCommit(w), '—', (f.writesPerCommit ?? 0).toFixed(1), (n.writesPerCommit ?? 0).toFixed(1));
    const pct = ((f.commitsPerSec ?? 0) / r.fsyncPerSec) * 100;
    row(
      LABEL.commitsVsFsync(w),
      '—',
      `${int(f.commitsPerSec ?? 0)} (${pct.toFixed(0)}%)`,
      `${int(n.commitsPerSec ?? 0)} (no fsync)`,
    );
  });
  row(LABEL.cas(cfg), int(r.cas.etcd), int(r.cas.full), '', '', `${(r.cas.full / r.cas.etcd).toFixed(1)}×`);
  const listTarget = (s: number | undefined): string => (s === undefined ? '' : verdict(s < TARGETS.listMaxS, ''));
  row(
    LABEL.listPaged(cfg),
    secs(r.list.etcd.pagedS),
    secs(r.list.full.pagedS),
    '',
    `< ${TARGETS.listMaxS} s`,
    listTarget(r.list.full.pagedS),
  );
  row(
    LABEL.listPagedBusy(cfg),
    secs(r.list.etcd.pagedBusyS),
    secs(r.list.full.pagedBusyS),
    '',
    `< ${TARGETS.listMaxS} s`,
    listTarget(r.list.full.pagedBusyS),
  );
  row(
    LABEL.listUnpaged(cfg),
    secs(r.list.etcd.unpagedS),
    secs(r.list.full.unpagedS),
    '',
    `< ${TARGETS.listMaxS} s`,
    listTarget(r.list.full.unpagedS),
  );
  const watchRow = (
    label: string,
    e: WatchFigure | undefined,
    f: WatchFigure | undefined,
    targeted: boolean,
    note: string,
  ): void => {
    const ok = f !== undefined && f.complete && f.eventsPerSec >= TARGETS.watchMinPerSec;
    row(
      label,
      watchCell(e),
      watchCell(f),
      '',
      targeted ? `≥ ${int(TARGETS.watchMinPerSec)}/s` : note,
      targeted ? verdict(ok, '') : '',
    );
  };
  for (const w of cfg.watcherCounts) {
    // One live watcher can only see events as fast as they are written, so the target applies from 2 watchers up.
    watchRow(LABEL.watchLive(w), r.watch.etcd.live[w], r.watch.full.live[w], w > 1, '(write-bound)');
  }
  for (const w of cfg.watcherCounts)
    watchRow(LABEL.watchReplay(w), r.watch.etcd.replay[w], r.watch.full.replay[w], true, '');
  const { etcd: se, full: sf } = r.stall;
  row(
    LABEL.compactTime(cfg),
    secs(se.phases.compaction?.durationS),
    secs(sf.phases.compaction?.durationS),
    '',
    '',
    sf.maxCompactionStepMs === undefined ? '' : `longest step ${ms(sf.maxCompactionStepMs)} ms`,
  );
  row(LABEL.checkpointTime, 'n/a', secs(sf.phases.checkpoint?.durationS));
  for (const p of PHASES) row(LABEL.writeLatency(p), ms(se.phases[p]?.maxWriteMs), ms(sf.phases[p]?.maxWriteMs));
  for (const p of PHASES) {
    const f = sf.phases[p]?.maxLoopDelayMs;
    const targeted = p !== 'baseline' && f !== undefined;
    row(
      LABEL.loopDelay(p),
      ms(se.phases[p]?.maxLoopDelayMs),
      ms(f),
      '',
      targeted ? `< ${TARGETS.loopStallMaxMs} ms` : '',
      targeted ? verdict(f < TARGETS.loopStallMaxMs, '') : '',
    );
  }
  row(LABEL.diskFsync, '', int(r.fsyncPerSec), '', '', 'the ceiling for commits/s');
  return rows;
}

/** Formats rows as an aligned plain-text table. */
export function formatTable(rows: Row[]): string {
  const head: Row = {
    label: 'measure',
    etcd: 'etcd',
    full: 'sqlite full',
    normal: 'sqlite normal*',
    target: 'target (sqlite full)',
    result: 'result',
  };
  const all = [head, ...rows];
  const cols: (keyof Row)[] = ['label', 'etcd', 'full', 'normal', 'target', 'result'];
  const width = Object.fromEntries(cols.map((c) => [c, Math.max(...all.map((r) => r[c].length))])) as Record<
    keyof Row,
    number
  >;
  const line = (r: Row): string =>
    cols
      .map((c) => (c === 'label' || c === 'target' || c === 'result' ? r[c].padEnd(width[c]) : r[c].padStart(width[c])))
      .join('  ')
      .trimEnd();
  const rule = cols.map((c) => '-'.repeat(width[c])).join('  ');
  return [line(head), rule, ...rows.map(line)].join('\n');
}
