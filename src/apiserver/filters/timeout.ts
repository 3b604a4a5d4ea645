/**
 * The request deadline, like upstream's WithRequestDeadline and
 * WithTimeoutForNonLongRunningRequests: every non-long-running request gets
 * --request-timeout (60 s), or the client's shorter `?timeout=`. When it
 * passes the client gets 504 with a Timeout Status, the response is sealed so
 * the handler's late completion writes nothing, and the response's close
 * releases the request's seat (APF) or slot (max-in-flight).
 */
import type { ServerResponse } from 'node:http';
import { parseDuration, timeout } from '../../api/index.js';
import type { Filter } from '../handler_chain.js';
import { writeError } from '../responsewriters.js';
import { MaxInFlight } from './max_inflight.js';

/** Upstream's message, after NewTimeoutError's "Timeout: " prefix. */
export const TIMEOUT_MESSAGE = 'request did not complete within requested timeout - context deadline exceeded';

/** The deadline in ms: the server's timeout, or a shorter valid positive `?timeout=` (an invalid one is ignored, as upstream). */
export function deadlineMs(requestTimeoutMs: number, param: string | null): number {
  if (param === null || param === '') return requestTimeoutMs;
  let ms: number;
  try {
    ms = parseDuration(param);
  } catch {
    return requestTimeoutMs;
  }
  if (!(ms > 0)) return requestTimeoutMs;
  return requestTimeoutMs > 0 ? Math.min(ms, requestTimeoutMs) : ms;
}

/** Answers 504 and makes every later write on `res` a no-op; a response already started is cut instead. */
export function writeTimeout(res: ServerResponse): void {
  if (res.headersSent) res.destroy();
  else writeError(res, timeout(TIMEOUT_MESSAGE));
  const sealed = res as unknown as Record<string, unknown>;
  const self = (): ServerResponse => res;
  for (const m of ['writeHead', 'setHeader', 'removeHeader', 'write', 'end', 'flushHeaders', 'cork', 'uncork'])
    sealed[m] = m === 'write' ? () => false : self;
}

/** Puts a deadline of `requestTimeoutMs` (0: none) on every non-long-running request. */
export function withTimeout(requestTimeoutMs: number): Filter {
  return (next) => (req, res, info) => {
    if (MaxInFlight.isLongRunning(info)) return next(req, res, info);
    const ms = deadlineMs(requestTimeoutMs, info.query.get('timeout'));
    if (ms <= 0) return next(req, res, info);
    return new Promise<void>((resolve, reject) => {
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        if (!res.writableEnded) writeTimeout(res);
        resolve();
      }, ms);
      next(req, res, info).then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        (err: unknown) => {
          clearTimeout(timer);
          // A handler failing after its deadline has nobody to tell.
          if (timedOut) resolve();
          else reject(err as Error);
        },
      );
    });
  };
}
