/**
 * The authorization filter, like upstream's WithAuthorization: the request
 * goes on when the authorizer allows it, and is 403 Forbidden with upstream's
 * message otherwise. Requests on the lab's plain-HTTP port (system:unsecured)
 * skip it, so that hot path builds no attributes.
 */
import { UNSECURED_USER } from '../authentication/index.js';
import { attributesOf, forbiddenError, type Authorizer } from '../authorization/index.js';
import type { Filter } from '../handler_chain.js';
import { traceStep } from '../request_trace.js';

/** Authorizes every authenticated request with `authorizer`. */
export function withAuthorization(authorizer: Authorizer): Filter {
  // Not an async function: an allowed request goes on with next's own promise, wrapped in no other.
  return (next) => (req, res, info) => {
    const user = info.user;
    if (user === undefined || user === UNSECURED_USER) return next(req, res, info);
    const a = attributesOf(info, user);
    const d = authorizer.authorize(a);
    if (info.audit !== undefined) annotateDecision(info.audit, d.decision === 'allow', d.reason);
    if (d.decision === 'allow') {
      traceStep(res, 'authorized');
      return next(req, res, info);
    }
    return Promise.reject(forbiddenError(a, d));
  };
}

/** Like upstream's authorization filter, the decision and its reason go into the request's audit events. */
function annotateDecision(
  audit: { annotate(key: string, value: string): void },
  allowed: boolean,
  reason: string,
): void {
  audit.annotate('authorization.k8s.io/decision', allowed ? 'allow' : 'forbid');
  if (reason !== '') audit.annotate('authorization.k8s.io/reason', reason);
}
