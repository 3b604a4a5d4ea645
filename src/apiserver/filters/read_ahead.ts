/**
 * Reading mutating requests' bodies before dispatch (kscale's, beyond
 * upstream, which reads the body inside the handler): a client trickling its
 * body holds no APF seat or in-flight slot while it does, the read runs under
 * the request's deadline, and the bytes buffered server-wide are bounded by a
 * BodyBudget (429 with Retry-After past it).
 */
import { readAheadBody, type BodyBudget } from '../body.js';
import type { Filter } from '../handler_chain.js';
import { traceStep } from '../request_trace.js';

const WITH_BODY = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** Reads the body of every resource request that carries one before handing the request on. */
export function withBodyReadAhead(budget: BodyBudget): Filter {
  return (next) => async (req, res, info) => {
    if (!info.isResourceRequest || !WITH_BODY.has(info.verb)) return next(req, res, info);
    const length = req.headers['content-length'];
    if ((length === undefined || length === '0') && req.headers['transfer-encoding'] === undefined)
      return next(req, res, info);
    const held = { bytes: 0 };
    // The bytes stay counted until the response is done with the body.
    res.once('close', () => budget.give(held.bytes));
    await readAheadBody(req, budget, held);
    traceStep(res, 'body read');
    return next(req, res, info);
  };
}
