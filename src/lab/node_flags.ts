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
 *   marking to a quarter of GOMAXPROCS. `KSCALE_SERVER_V8_POOL_SIZE`
 *   overrides it for the API server, for experiments.
 * - `--heap-growing-percent=100`, for the API server: the old generation
 *   grows to twice its live size before the next major GC, as GOGC=100 lets
 *   Go's heap. V8's own factor for the server's heap stayed near 1.2, so a
 *   server holding 75,000 cached pods ran a major GC every second or two.
 *   The processes that hold informer caches get it too: the controller-manager
 *   and the scheduler (every pod and node), and the hollow-node fleets (a
 *   watch, a reflector and a store per referenced Secret and ConfigMap:
 *   127,000 at 2,500 nodes x 30 pods). GC was 18% of the
 *   controller-manager's CPU and 40% of the scheduler's at 500 nodes.
 *   `KSCALE_SERVER_HEAP_GROWING_PERCENT` overrides it for the API server, for
 *   experiments: each mark-compact's pause grows with the time since the last
 *   one (it finalizes every HTTP/2 header string made in between,
 *   docs/history/2026-12-07-header-string-cost.md).
 * - `--max-semi-space-size=64` (MiB; V8's default 16), for the same
 *   processes: objects of a request that lives past two scavenges (as every
 *   request does once the server queues them) are promoted and then die in
 *   the old generation, paid for by major GCs. A larger young generation
 *   lets them die young. At 500 nodes the server's GC share fell from 10% to
 *   8% of its CPU with both flags at 32 MiB
 *   (docs/history/2026-12-05-fleet-profile.md). At 2,500 nodes x 30 pods,
 *   64 MiB against 32 back to back: the fleets' CPU -19%, their
 *   mark-compacts over the whole run 28 against 45, the server's CPU -9%,
 *   creation 96.4 against 87.0 pods/s (docs/history/2026-12-07-young-generation-secure-get.md).
 *   `KSCALE_SEMI_SPACE_MB` overrides the size for experiments.
 * - `KSCALE_CPU_PROFILE_DIR=DIR` in the environment adds `--cpu-prof` into
 *   DIR for every process the lab starts: a V8 profile per process (and per
 *   worker thread) written when it exits, to find where a run's CPU went.
 *   `KSCALE_CPU_PROFILE_ROLES=server` (a comma list of roles) profiles only
 *   those, so the others run at full speed; `KSCALE_CPU_PROFILE_INTERVAL_US`
 *   sets the sampling interval (V8's default 1,000 µs). Read a profile's
 *   moments with `bench/apiserver/profile_summary.js --from S --to S`.
 * - `KSCALE_TRACE_GC=1` adds `--trace-gc --trace-gc-ignore-scavenger` to the
 *   API server: one line per mark-compact in its log, with the heap before
 *   and after and the marking time, to see whether a run's stalls are GC.
 *   `KSCALE_TRACE_GC=all` adds them to every process the lab starts (the
 *   fleets' logs too). `KSCALE_TRACE_GC=nvp` adds `--trace-gc-nvp` to the
 *   API server as well: each mark-compact's pause split into its phases
 *   (marking, the external string table, evacuation, sweeping).
 * - `KSCALE_SERVER_NODE_FLAGS` (space-separated) adds Node or V8 flags to the
 *   API server's, after the ones above, to try a runtime setting in a whole
 *   run (e.g. `--no-incremental-marking-task`) without a build of its own.
 */
import { availableParallelism } from 'node:os';

/**
 * Which process: the API server (holds the watch cache); one that holds informer caches of the cluster or a
 * fleet's per-node watches (the controller-manager, the scheduler, the hollow-node fleets); or any other.
 */
export type ProcessRole = 'server' | 'informers' | 'component';

/** The young generation's semi-space (MiB) of the processes that hold long-lived state under load. */
export const SEMI_SPACE_MB = Number(process.env.KSCALE_SEMI_SPACE_MB ?? 64);

/** V8 background threads for a machine of `cores` cores. */
export function v8PoolSize(cores: number): number {
  return Math.max(1, Math.min(4, Math.floor(cores / 2)));
}

/** The API server's experiment override `name` from the environment when `role` is the server and it is set, else `fallback`. */
function serverOverride(role: ProcessRole, name: string, fallback: number): number {
  const v = process.env[name];
  return role === 'server' && v !== undefined && v !== '' ? Number(v) : fallback;
}

/** Whether KSCALE_CPU_PROFILE_ROLES (a comma list; unset or empty: every role) names `role`. */
function profiled(role: ProcessRole): boolean {
  const roles = process.env.KSCALE_CPU_PROFILE_ROLES;
  return roles === undefined || roles === '' || roles.split(',').some((r) => r.trim() === role);
}

/** The flags to put before the script when starting a kscale process of `role`. */
export function nodeRuntimeFlags(role: ProcessRole, cores = availableParallelism()): string[] {
  const pool = serverOverride(role, 'KSCALE_SERVER_V8_POOL_SIZE', v8PoolSize(cores));
  const flags = [`--v8-pool-size=${pool}`];
  const growing = serverOverride(role, 'KSCALE_SERVER_HEAP_GROWING_PERCENT', 100);
  if (role !== 'component') flags.push(`--heap-growing-percent=${growing}`, `--max-semi-space-size=${SEMI_SPACE_MB}`);
  const profileDir = process.env.KSCALE_CPU_PROFILE_DIR;
  if (profileDir !== undefined && profileDir !== '' && profiled(role)) {
    flags.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`);
    const interval = process.env.KSCALE_CPU_PROFILE_INTERVAL_US;
    if (interval !== undefined && interval !== '') flags.push(`--cpu-prof-interval=${Number(interval)}`);
  }
  const trace = process.env.KSCALE_TRACE_GC;
  if (((trace === '1' || trace === 'nvp') && role === 'server') || trace === 'all')
    flags.push('--trace-gc', '--trace-gc-ignore-scavenger');
  if (trace === 'nvp' && role === 'server') flags.push('--trace-gc-nvp');
  if (role === 'server')
    flags.push(...(process.env.KSCALE_SERVER_NODE_FLAGS ?? '').split(/\s+/).filter((f) => f !== ''));
  return flags;
}
