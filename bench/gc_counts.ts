/** Counting this process's garbage collections by kind, for the benchmarks that report them. */
import { PerformanceObserver, constants, type PerformanceEntry } from 'node:perf_hooks';

/** Mark-compacts (major) and scavenges (minor) so far; the counts grow as collections happen. */
export interface GCCounts {
  major: number;
  minor: number;
}

/** Starts counting this process's garbage collections from now. */
export function countGCs(): GCCounts {
  const gcs: GCCounts = { major: 0, minor: 0 };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) gcs.major++;
      else if (kind === constants.NODE_PERFORMANCE_GC_MINOR) gcs.minor++;
    }
  }).observe({ entryTypes: ['gc'] });
  return gcs;
}
