/**
 * The storage benchmark's sizes and the rows it prints. `--quick` shrinks
 * every count and time bound (a smoke run under a minute); the full run uses
 * the sizes the targets are stated for.
 */

/** Every count and time bound of one run. */
export interface BenchConfig {
  quick: boolean;
  /** Value size of every write. */
  valueBytes: number;
  /** Concurrent writers of the create cases. */
  writerCounts: number[];
  /** Per create case: at most this many ops (per writer count) ... */
  createMaxOps: Record<number, number>;
  /** ... and at most this long. */
  caseMaxMs: number;
  casWriters: number;
  casKeys: number;
  casMaxOps: number;
  listKeys: number;
  listPage: number;
  /** Repetitions of each list; the median is reported. */
  listRepeats: number;
  listMaxMs: number;
  watchEvents: number;
  watcherCounts: number[];
  /** Bound on each watch case (burst plus delivery). */
  watchMaxMs: number;
  /** Superseded revisions to compact in the stall case. */
  compactRevisions: number;
  compactKeys: number;
  stallWriters: number;
  stallBaselineMs: number;
  /** Bound on the compaction or checkpoint under test. */
  stallMaxMs: number;
  fsyncProbeMs: number;
}

/** The sizes the targets are stated for. */
export const FULL: BenchConfig = {
  quick: false,
  valueBytes: 1024,
  writerCounts: [1, 16, 100],
  createMaxOps: { 1: 20_000, 16: 100_000, 100: 100_000 },
  caseMaxMs: 10_000,
  casWriters: 16,
  casKeys: 1_000,
  casMaxOps: 100_000,
  listKeys: 100_000,
  listPage: 1_000,
  listRepeats: 3,
  listMaxMs: 60_000,
  watchEvents: 20_000,
  watcherCounts: [1, 100],
  watchMaxMs: 30_000,
  compactRevisions: 100_000,
  compactKeys: 1_000,
  stallWriters: 16,
  stallBaselineMs: 3_000,
  stallMaxMs: 60_000,
  fsyncProbeMs: 2_000,
};

/** A smoke run: every row, tiny sizes. */
export const QUICK: BenchConfig = {
  quick: true,
  valueBytes: 1024,
  writerCounts: [1, 16, 100],
  createMaxOps: { 1: 200, 16: 500, 100: 500 },
  caseMaxMs: 1_000,
  casWriters: 16,
  casKeys: 100,
  casMaxOps: 500,
  listKeys: 3_000,
  listPage: 1_000,
  listRepeats: 1,
  listMaxMs: 10_000,
  watchEvents: 300,
  watcherCounts: [1, 100],
  watchMaxMs: 5_000,
  compactRevisions: 3_000,
  compactKeys: 100,
  stallWriters: 16,
  stallBaselineMs: 300,
  stallMaxMs: 10_000,
  fsyncProbeMs: 300,
};

const n = (x: number): string => x.toLocaleString('en-US');
const writers = (w: number): string => `${w} writer${w === 1 ? '' : 's'}`;
const watchers = (w: number): string => `${w} watcher${w === 1 ? '' : 's'}`;

/** Row labels; the benchmark prints these and the smoke test looks for them. */
export const LABEL = {
  creates: (w: number) => `creates/s, ${writers(w)}`,
  writesPerCommit: (w: number) => `  writes per commit, ${writers(w)}`,
  commitsVsFsync: (w: number) => `  commits/s (% of disk fsync/s), ${writers(w)}`,
  cas: (cfg: BenchConfig) => `CAS updates/s, ${writers(cfg.casWriters)}`,
  listPaged: (cfg: BenchConfig) => `list ${n(cfg.listKeys)} keys, pages of ${n(cfg.listPage)} (s)`,
  listPagedBusy: (cfg: BenchConfig) => `list ${n(cfg.listKeys)} keys, paged, ${writers(cfg.stallWriters)} running (s)`,
  listUnpaged: (cfg: BenchConfig) => `list ${n(cfg.listKeys)} keys, unpaged (s)`,
  watchLive: (w: number) => `watch live, ${watchers(w)} (events/s)`,
  watchReplay: (w: number) => `watch replay, ${watchers(w)} (events/s)`,
  compactTime: (cfg: BenchConfig) => `compact ${n(cfg.compactRevisions)} old revisions (s)`,
  checkpointTime: 'WAL checkpoint after it (s)',
  writeLatency: (phase: Phase) => `max write latency, ${phase} (ms)`,
  loopDelay: (phase: Phase) => `max event-loop delay, ${phase} (ms)`,
  diskFsync: 'disk fsync/s (4 KB write + fdatasync)',
};

/** The phases of the stall case. */
export type Phase = 'baseline' | 'compaction' | 'checkpoint';
export const PHASES: Phase[] = ['baseline', 'compaction', 'checkpoint'];

/** The label of every row the benchmark prints, in order. */
export function rowLabels(cfg: BenchConfig): string[] {
  return [
    ...cfg.writerCounts.map(LABEL.creates),
    ...cfg.writerCounts.flatMap((w) => [LABEL.writesPerCommit(w), LABEL.commitsVsFsync(w)]),
    LABEL.cas(cfg),
    LABEL.listPaged(cfg),
    LABEL.listPagedBusy(cfg),
    LABEL.listUnpaged(cfg),
    ...cfg.watcherCounts.map(LABEL.watchLive),
    ...cfg.watcherCounts.map(LABEL.watchReplay),
    LABEL.compactTime(cfg),
    LABEL.checkpointTime,
    ...PHASES.map(LABEL.writeLatency),
    ...PHASES.map(LABEL.loopDelay),
    LABEL.diskFsync,
  ];
}
