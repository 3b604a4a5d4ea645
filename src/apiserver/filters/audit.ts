/**
 * The audit filters, like upstream's WithAudit and WithFailedAuthenticationAudit:
 * after authentication, each request the policy records gets an Audit-Id
 * header and events at RequestReceived, ResponseStarted (long-running
 * requests, when the headers go out), ResponseComplete, or Panic for an
 * unexpected failure. A request that fails authentication (401) is recorded
 * once, at ResponseStarted, by the filter outside authentication.
 */
import type { IncomingMessage } from 'node:http';
import { StatusError } from '../../api/index.js';
import { isStorageError } from '../../storage/index.js';
import { AuditContext, Auditor } from '../audit/index.js';
import type { Filter } from '../handler_chain.js';
import { MaxInFlight } from './max_inflight.js';
import { toStatusError } from '../responsewriters.js';

/** Records every authenticated request the policy selects; goes right after authentication. */
export function withAudit(auditor: Auditor): Filter {
  return (next) => (req, res, info) => {
    const id = Auditor.auditIDOf(req);
    res.setHeader('Audit-Id', id);
    const ctx = auditor.begin(req, info, id);
    if (ctx === undefined) return next(req, res, info);
    info.audit = ctx;
    ctx.emit('RequestReceived');
    const longRunning = MaxInFlight.isLongRunning(info);
    if (longRunning) {
      const writeHead = res.writeHead.bind(res) as (...a: unknown[]) => typeof res;
      (res as { writeHead: unknown }).writeHead = (...a: unknown[]) => {
        const out = writeHead(...a);
        ctx.emit('ResponseStarted', AuditContext.statusOf(res.statusCode));
        return out;
      };
    }
    ctx.captureResponse(res);
    // A watch whose client went away returns after its response closed: that is its completion.
    let closed = false;
    res.on('close', () => (closed = true));
    const complete = (): void => ctx.emit('ResponseComplete', AuditContext.statusOf(res.statusCode));
    return next(req, res, info).then(
      () => {
        if (res.writableEnded || closed) complete();
        else res.once('close', complete);
      },
      (err: unknown) => {
        const s = toStatusError(err);
        const status = AuditContext.statusOf(s.code, s.status);
        // A throw that is neither a Status nor a storage error is upstream's panic.
        if (!(err instanceof StatusError) && !isStorageError(err)) {
          ctx.emit('Panic', { ...status, message: `APIServer panic'd: ${(err as Error)?.message ?? String(err)}` });
          throw err;
        }
        if (longRunning) ctx.emit('ResponseStarted', status);
        ctx.emit('ResponseComplete', status);
        throw err;
      },
    );
  };
}

/** upstream's getAuthMethods: which credentials a rejected request carried. */
function authMethods(req: IncomingMessage): string {
  const methods: string[] = [];
  const auth = (req.headers.authorization ?? '').trim();
  const scheme = auth.split(' ')[0]?.toLowerCase();
  if (scheme === 'basic') methods.push('basic');
  if (scheme === 'bearer' && auth.split(' ').length > 1) methods.push('bearer');
  if (/[?&]access_token=[^&]/.test(req.url ?? '')) methods.push('access_token');
  const tls = req.socket as { getPeerCertificate?: () => object | null };
  const peer = tls.getPeerCertificate?.();
  if (peer !== null && peer !== undefined && Object.keys(peer).length > 0) methods.push('x509');
  return methods.length > 0
    ? `Authentication failed, attempted: ${methods.join(', ')}`
    : 'Authentication failed, no credentials provided';
}

/** Records requests that authentication rejects (401); goes right before authentication. */
export function withFailedAuthenticationAudit(auditor: Auditor): Filter {
  return (next) => (req, res, info) =>
    next(req, res, info).catch((err: unknown) => {
      if (info.user === undefined && err instanceof StatusError && err.code === 401) {
        const id = Auditor.auditIDOf(req);
        if (!res.headersSent) res.setHeader('Audit-Id', id);
        auditor.begin(req, info, id)?.emit('ResponseStarted', { metadata: {}, message: authMethods(req), code: 401 });
      }
      throw err;
    });
}
