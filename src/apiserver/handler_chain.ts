/**
 * The handler chain, like upstream's DefaultBuildHandlerChain: each filter
 * wraps the next. Order (outermost first): panic recovery and request info,
 * metrics, the request deadline, authentication, audit, the per-user watch cap,
 * reading bodies ahead, API Priority and Fairness (or max-in-flight when it is
 * off), authorization, then the router.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError } from '../api/index.js';
import { MaxInFlight } from './filters/max_inflight.js';
import type { ApiServerMetrics } from './metrics.js';
import { parseRequestInfo, type RequestInfo } from './request_info.js';
import { apfQueueWait } from './request_latency.js';
import { startTrace, type SlowRequestLog } from './request_trace.js';
import { toStatusError, writeError } from './responsewriters.js';

/** A handler with the parsed request. */
export type Handler = (req: IncomingMessage, res: ServerResponse, info: RequestInfo) => Promise<void>;
/** A filter wraps a handler. */
export type Filter = (next: Handler) => Handler;

/** Composes filters around a handler, the first filter outermost. */
export function buildChain(handler: Handler, filters: Filter[]): Handler {
  return filters.reduceRight((next, f) => f(next), handler);
}

/** Turns a chain into a Node request listener: parses RequestInfo and turns every throw into a Status (never a crash). */
export function toListener(chain: Handler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    let info: RequestInfo;
    try {
      info = parseRequestInfo(req.method ?? 'GET', req.url ?? '/');
    } catch (err) {
      writeError(res, toStatusError(err));
      return;
    }
    chain(req, res, info).catch((err: unknown) => {
      if (!(err instanceof StatusError))
        process.emitWarning(
          `kscale: unexpected error serving ${req.method} ${req.url}: ${(err as Error)?.stack ?? String(err)}`,
        );
      try {
        writeError(res, toStatusError(err));
      } catch {
        res.destroy();
      }
    });
  };
}

function scopeOf(info: RequestInfo): string {
  if (info.name !== '') return 'resource';
  return info.namespace !== '' ? 'namespace' : 'cluster';
}

/** Counts and times every resource request with upstream's labels; traces the ones that are not watches into `slow`. */
export function withMetrics(metrics: ApiServerMetrics, slow?: SlowRequestLog): Filter {
  // prom-client hashes a label object on every call; resolve each label set's children once.
  interface Children {
    total(code: string): { inc(): void };
    duration: { observe(v: number): void };
    sli: { observe(v: number): void };
    longRunning: { inc(): void; dec(): void };
  }
  const children = new Map<string, Children>();
  const childrenFor = (info: RequestInfo, dryRun: string): Children => {
    const verb = verbLabel(info.verb);
    const scope = scopeOf(info);
    const key = `${verb}|${dryRun}|${info.apiGroup}|${info.apiVersion}|${info.resource}|${info.subresource}|${scope}`;
    let c = children.get(key);
    if (c === undefined) {
      const labels = {
        verb,
        group: info.apiGroup,
        version: info.apiVersion,
        resource: info.resource,
        subresource: info.subresource,
        scope,
        component: 'apiserver',
      };
      const totals = new Map<string, { inc(): void }>();
      c = {
        total(code) {
          let t = totals.get(code);
          if (t === undefined)
            totals.set(code, (t = metrics.requestTotal.labels({ ...labels, dry_run: dryRun, code })));
          return t;
        },
        duration: metrics.requestDuration.labels({ ...labels, dry_run: dryRun }),
        sli: metrics.requestSliDuration.labels(labels),
        longRunning: metrics.longRunning.labels(labels),
      };
      if (children.size < 10_000) children.set(key, c);
    }
    return c;
  };
  return (next) => async (req, res, info) => {
    if (!info.isResourceRequest) return next(req, res, info);
    const started = performance.now();
    const c = childrenFor(info, info.query.has('dryRun') ? 'All' : '');
    if (MaxInFlight.isLongRunning(info)) {
      c.longRunning.inc();
      // 'close' comes once: `on` saves `once`'s wrapper on every open watch.
      res.on('close', () => {
        c.total(String(res.statusCode)).inc();
        c.duration.observe((performance.now() - started) / 1000);
        c.longRunning.dec();
      });
      return next(req, res, info);
    }
    const trace = slow === undefined ? undefined : startTrace(res, started);
    const record = (): void => {
      const ms = performance.now() - started;
      const seconds = ms / 1000;
      if (trace !== undefined && slow !== undefined)
        slow.finish(trace, ms, info, res.statusCode, req.headers['user-agent']);
      c.total(String(res.statusCode)).inc();
      c.duration.observe(seconds);
      // Like upstream's SLI: without the time the request waited in an APF queue.
      c.sli.observe(Math.max(0, seconds - apfQueueWait(res) / 1000));
    };
    try {
      await next(req, res, info);
    } catch (err) {
      // The Status is written further out (toListener); count it once it is.
      res.once('close', record);
      throw err;
    }
    // Like upstream, which records when the handler returns: a response already written needs no 'close' listener.
    if (res.writableEnded) record();
    else res.once('close', record);
  };
}

function verbLabel(verb: string): string {
  switch (verb) {
    case 'watch':
      return 'WATCH';
    case 'get':
      return 'GET';
    case 'list':
      return 'LIST';
    case 'create':
      return 'POST';
    case 'update':
      return 'PUT';
    case 'patch':
      return 'PATCH';
    case 'delete':
      return 'DELETE';
    case 'deletecollection':
      return 'DELETE';
    default:
      return verb.toUpperCase();
  }
}

/** Rejects requests beyond the in-flight limits with 429. */
export function withMaxInFlight(limiter: MaxInFlight): Filter {
  return (next) => async (req, res, info) => {
    const release = limiter.acquire(info);
    // Like upstream, the slot is held until the handler returns; one still writing keeps it until the response
    // closes, and a response closed early (a 504 at the deadline) gives it back then.
    res.once('close', release);
    await next(req, res, info);
    if (res.writableEnded) release();
  };
}
