/**
 * The authentication filter, like upstream's WithAuthentication: sets the
 * request's user, or answers 401 Unauthorized. Requests on the lab's
 * plain-HTTP port skip it (system:unsecured) without a promise of their own.
 */
import type { IncomingMessage } from 'node:http';
import {
  authenticateRequest,
  isSecureRequest,
  UNSECURED_USER,
  type AuthenticatorOptions,
} from '../authentication/index.js';
import type { Filter } from '../handler_chain.js';
import { traceStep } from '../request_trace.js';

/** Authenticates every request that arrived over TLS. */
export function withAuthentication(opts: AuthenticatorOptions): Filter {
  // Not an async function: the plain-HTTP path hands on next's own promise instead of wrapping it in another.
  return (next) => (req: IncomingMessage, res, info) => {
    if (!isSecureRequest(req)) {
      info.user = UNSECURED_USER;
      return next(req, res, info);
    }
    return authenticateRequest(req, opts).then((user) => {
      info.user = user;
      traceStep(res, 'authenticated');
      return next(req, res, info);
    });
  };
}
