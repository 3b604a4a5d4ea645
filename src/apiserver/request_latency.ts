/**
 * Latency a request spends outside the server's own work, tracked per request
 * as upstream's request.TrackAPFQueueWaitLatency does on the request context:
 * the time it waited in an API Priority and Fairness queue. The SLI histogram
 * (apiserver_request_sli_duration_seconds) leaves it out, as upstream's does;
 * apiserver_request_duration_seconds keeps it.
 */
import type { ServerResponse } from 'node:http';

const apfQueueWaitMs = new WeakMap<ServerResponse, number>();

/** Records that the request answered through `res` waited `ms` in an APF queue before it was dispatched. */
export function trackAPFQueueWait(res: ServerResponse, ms: number): void {
  apfQueueWaitMs.set(res, (apfQueueWaitMs.get(res) ?? 0) + ms);
}

/** The APF queue wait recorded for the request answered through `res`, in ms (0 if it did not queue). */
export function apfQueueWait(res: ServerResponse): number {
  return apfQueueWaitMs.get(res) ?? 0;
}
