/**
 * The Node runtime flags kscale's processes run with when the lab or a
 * benchmark starts them. kube-apiserver operators size GOMAXPROCS and GOGC
 * for their machines; these are V8's equivalents, sized for the machine the
 * process runs on.
 *
 * - `--v8-pool-size`: V8's background threads (concurrent marking, sweeping,
 *   compilation). Node starts 4 whatever the machine. On 2 cores, four
 *   marking threads took both cores for the ~100 ms of each major GC, so the
 *   event loop and the storage writer thread stalled together and every
 *   request in flight waited
 *   (docs/history/2026-12-04-write-latency-major-gcs.md). Half the cores,
 *   at least 1, at most Node's 4: Go's GC likewise keeps its background
 *   marking to a quarter of GOMAXPROCS.
 * - `--heap-growing-percent=100`, for the API server: the old generation
 *   grows to twice its live size before the next major GC, as GOGC=100 lets
 *   Go's heap. V8's own factor for the server's heap stayed near 1.2, so a
 *   server holding 75,000 cached pods ran a major GC every second or two.
 * - `KSCALE_CPU_PROFILE_DIR=DIR` in the environment adds `--cpu-prof` into
 *   DIR for every process the lab starts: a V8 profile per process (and per
 *   worker thread) written when it exits, to find where a run's CPU went.
 */
import { availableParallelism } from 'node:os';

/** Which process: the API server (holds the watch cache) or any other component. */
export type ProcessRole = 'server' | 'component';

/** V8 background threads for a machine of `cores` cores. */
export function v8PoolSize(cores: number): number {
  return Math.max(1, Math.min(4, Math.floor(cores / 2)));
}

/** The flags to put before the script when starting a kscale process of `role`. */
export function nodeRuntimeFlags(role: ProcessRole, cores = availableParallelism()): string[] {
  const flags = [`--v8-pool-size=${v8PoolSize(cores)}`];
  if (role === 'server') flags.push('--heap-growing-percent=100');
  const profileDir = process.env.KSCALE_CPU_PROFILE_DIR;
  if (profileDir !== undefined && profileDir !== '') flags.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`);
  return flags;
}
