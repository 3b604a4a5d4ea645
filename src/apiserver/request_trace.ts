/**
 * Slow-request traces, as upstream's handlers keep them with utiltrace
 * (component-base/tracing): a request collects named steps with the time each
 * was reached, and one that takes `thresholdMs` or longer (upstream: 500 ms)
 * is logged as one line with its steps. Each line also says how much of the
 * request's time the server's event loop stood still (garbage collection and
 * late timers, from a StallMonitor), which upstream's Go server has no need
 * for: in one event loop a slow request is either waiting on something or
 * waiting for the thread.
 */
import type { ServerResponse } from 'node:http';
import type { RequestInfo } from './request_info.js';
import type { StallMonitor } from './stall_monitor.js';

/** One step: its name and when it was reached, in ms since the request started. */
export interface TraceStep {
  name: string;
  atMs: number;
}

/** A request's trace: when it started and the steps it reached. */
export interface RequestTrace {
  readonly started: number;
  readonly steps: TraceStep[];
}

/**
 * The trace rides on the response under a symbol rather than in a WeakMap: every request has one, and a
 * property costs the garbage collector nothing where a WeakMap entry is an ephemeron it must revisit.
 */
const TRACE = Symbol('kscale.requestTrace');
type Traced = ServerResponse & { [TRACE]?: RequestTrace };

/** Starts the trace of the request answered through `res`; `started` is performance.now() at its start. */
export function startTrace(res: ServerResponse, started: number): RequestTrace {
  const t: RequestTrace = { started, steps: [] };
  (res as Traced)[TRACE] = t;
  return t;
}

/** Marks that the request answered through `res` reached `name` (nothing when it is not traced). */
export function traceStep(res: ServerResponse, name: string): void {
  const t = (res as Traced)[TRACE];
  if (t !== undefined) t.steps.push({ name, atMs: performance.now() - t.started });
}

/** Where slow traces go (pino's warn takes the fields first). */
export interface TraceLog {
  warn(fields: Record<string, unknown>, msg: string): void;
}

/** Upstream's threshold for the create, update, patch and delete handlers' traces. */
export const DEFAULT_SLOW_REQUEST_MS = 500;

/** At most this many traces a second are written; the rest are counted into the next line written. */
const MAX_TRACES_PER_SECOND = 20;

/** Logs the requests that took `thresholdMs` or longer, with their steps and the event loop's stalls meanwhile. */
export class SlowRequestLog {
  private second = 0;
  private written = 0;
  private suppressed = 0;

  constructor(
    private readonly log: TraceLog,
    private readonly stalls: StallMonitor | undefined,
    readonly thresholdMs = DEFAULT_SLOW_REQUEST_MS,
    /** performance.now(), or a test's clock. */
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Called when the request finished, `totalMs` after it started; logs it when it was slow. */
  finish(trace: RequestTrace, totalMs: number, info: RequestInfo, code: number, userAgent: string | undefined): void {
    if (totalMs < this.thresholdMs) return;
    const second = Math.floor(this.now() / 1000);
    if (second !== this.second) {
      this.second = second;
      this.written = 0;
    }
    if (this.written >= MAX_TRACES_PER_SECOND) {
      this.suppressed++;
      return;
    }
    this.written++;
    const fields: Record<string, unknown> = {
      verb: info.verb,
      resource: info.subresource === '' ? info.resource : `${info.resource}/${info.subresource}`,
      namespace: info.namespace,
      name: info.name,
      code,
      userAgent,
      totalMs: Math.round(totalMs),
      steps: trace.steps.map((s) => `${s.name}@${Math.round(s.atMs)}`),
    };
    if (this.stalls !== undefined) {
      const s = this.stalls.during(trace.started, trace.started + totalMs);
      fields.stalledMs = Math.round(s.stalledMs);
      fields.gcMs = Math.round(s.gcMs);
    }
    if (this.suppressed > 0) {
      fields.suppressedBefore = this.suppressed;
      this.suppressed = 0;
    }
    this.log.warn(fields, 'slow request trace');
  }
}
