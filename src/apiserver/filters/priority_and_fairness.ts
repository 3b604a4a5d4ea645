/**
 * The API Priority and Fairness filter, like upstream's
 * filters/priority-and-fairness.go: after authentication and before
 * authorization, each request is classified, tagged with the
 * X-Kubernetes-PF-FlowSchema-UID and X-Kubernetes-PF-PriorityLevel-UID
 * headers, and runs once its level admits it (429 with Retry-After when its
 * queue is full or its wait runs out). A watch holds its seat only while it
 * starts, as upstream releases it once the watch is initialized, and is
 * counted in the watch tracker until it ends.
 */
import { tooManyRequests } from '../../api/index.js';
import { ANONYMOUS_USER } from '../authentication/index.js';
import type { APFController, Admitted } from '../flowcontrol/index.js';
import type { Filter } from '../handler_chain.js';
import { trackAPFQueueWait } from '../request_latency.js';
import { traceStep } from '../request_trace.js';
import { MaxInFlight } from './max_inflight.js';

/** Dispatches every request through `apf`. */
export function withPriorityAndFairness(apf: APFController): Filter {
  return (next) => async (req, res, info) => {
    const c = apf.classify(info, info.user ?? ANONYMOUS_USER);
    res.setHeader('X-Kubernetes-PF-FlowSchema-UID', c.schema.uid);
    res.setHeader('X-Kubernetes-PF-PriorityLevel-UID', c.level.uid);
    const work = apf.estimate(info, c.level);
    let cancel: (() => void) | undefined;
    // A client that leaves, or a deadline that answers 504 (the response closes), takes the request out of its queue.
    let outcome = apf.admit(c, work, (f) => {
      req.once('close', (cancel = f));
      res.once('close', f);
    });
    if (outcome instanceof Promise) {
      const queuedAt = performance.now();
      outcome = await outcome;
      trackAPFQueueWait(res, performance.now() - queuedAt);
      traceStep(res, 'dispatched from an APF queue');
      if (cancel !== undefined) {
        req.off('close', cancel);
        res.off('close', cancel);
      }
    }
    if (typeof outcome === 'string') throw tooManyRequests('Too many requests, please try again later.', 1);
    const admitted: Admitted = outcome;
    if (MaxInFlight.isLongRunning(info)) {
      // A watch counts, for the writes it will be told of, until it ends (upstream's watch tracker).
      const forget = info.verb === 'watch' ? apf.watches.register(info) : undefined;
      const p = next(req, res, info);
      admitted.finish();
      // The watch handler returns once the watch is set up; the response's close is the watch's end.
      // ('close' comes once: `on` saves `once`'s wrapper on every open watch.)
      if (forget !== undefined) res.on('close', forget);
      return p;
    }
    // The seats go back when the handler returns with its response written, or when the response closes:
    // a handler still writing keeps them, one past its deadline (504 written) does not.
    res.once('close', admitted.finish);
    await next(req, res, info);
    if (res.writableEnded) admitted.finish();
  };
}
