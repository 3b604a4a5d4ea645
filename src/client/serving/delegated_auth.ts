/**
 * Delegated authentication and authorization for a component's secure port,
 * as upstream's DelegatingAuthenticationOptions and
 * DelegatingAuthorizationOptions: a bearer token is checked with a TokenReview
 * and a client certificate against --client-ca-file; the user is then asked
 * about with a SubjectAccessReview for the non-resource path and the verb. The
 * always-allowed paths (upstream's --authorization-always-allow-paths default:
 * /healthz, /readyz, /livez) skip both. Answers are cached for 10 s, upstream's
 * default TTLs.
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { SubjectAccessReview, TokenReview } from '../../api/index.js';
import type { RESTClient } from '../rest/client.js';
import { RESOURCES } from '../rest/resources.js';

/** Upstream's default --authorization-always-allow-paths. */
export const ALWAYS_ALLOW_PATHS: readonly string[] = ['/healthz', '/readyz', '/livez'];

/** Whom a request comes from. */
export interface DelegatedUser {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** The outcome for one request: 200 to serve it, 401 or 403 with upstream's message. */
export type DelegatedDecision = { code: 200 } | { code: 401 | 403; message: string };

const CACHE_TTL_MS = 10_000;

/** Checks requests to a component's secure port against the API server. */
export class DelegatedAuth {
  private readonly tokens = new Map<string, { at: number; user: DelegatedUser | undefined }>();
  private readonly reviews = new Map<string, { at: number; allowed: boolean }>();

  constructor(
    private readonly client: RESTClient,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The decision for `req` (path without the query). */
  async decide(req: IncomingMessage, path: string): Promise<DelegatedDecision> {
    if (ALWAYS_ALLOW_PATHS.includes(path)) return { code: 200 };
    const user = await this.authenticate(req);
    if (user === undefined) return { code: 401, message: 'Unauthorized' };
    const verb = (req.method ?? 'GET').toLowerCase();
    if (await this.authorize(user, path, verb)) return { code: 200 };
    return { code: 403, message: `forbidden: User "${user.name}" cannot ${verb} path "${path}"` };
  }

  /** The request's user: its verified client certificate, its bearer token's TokenReview, or anonymous; undefined: 401. */
  async authenticate(req: IncomingMessage): Promise<DelegatedUser | undefined> {
    const auth = req.headers.authorization;
    if (auth !== undefined) {
      const m = /^Bearer\s+(\S+)$/i.exec(auth);
      return m === null ? undefined : this.reviewToken(m[1]!);
    }
    const socket = req.socket as Partial<TLSSocket>;
    if (socket.authorized === true && socket.getPeerCertificate !== undefined) {
      const subject = socket.getPeerCertificate().subject as Record<string, string | string[]> | undefined;
      const cn = subject?.CN;
      const o = subject?.O;
      if (typeof cn === 'string' && cn !== '')
        return { name: cn, groups: [...(o === undefined ? [] : Array.isArray(o) ? o : [o]), 'system:authenticated'] };
    }
    // Like upstream's delegating authenticator with anonymous allowed: the authorizer then refuses it.
    return { name: 'system:anonymous', groups: ['system:unauthenticated'] };
  }

  private async reviewToken(token: string): Promise<DelegatedUser | undefined> {
    const hit = this.tokens.get(token);
    if (hit !== undefined && this.now() - hit.at < CACHE_TTL_MS) return hit.user;
    const review = await this.client.resource<TokenReview>(RESOURCES.tokenreviews).create({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      metadata: {},
      spec: { token },
    });
    const s = review.status;
    const user =
      s?.authenticated === true && s.user?.username !== undefined
        ? {
            name: s.user.username,
            groups: s.user.groups ?? [],
            ...(s.user.uid !== undefined ? { uid: s.user.uid } : {}),
            ...(s.user.extra !== undefined ? { extra: s.user.extra } : {}),
          }
        : undefined;
    this.tokens.set(token, { at: this.now(), user });
    return user;
  }

  private async authorize(user: DelegatedUser, path: string, verb: string): Promise<boolean> {
    const key = JSON.stringify([user.name, user.uid, user.groups, user.extra, path, verb]);
    const hit = this.reviews.get(key);
    if (hit !== undefined && this.now() - hit.at < CACHE_TTL_MS) return hit.allowed;
    const sar = await this.client.resource<SubjectAccessReview>(RESOURCES.subjectaccessreviews).create({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: {},
      spec: {
        nonResourceAttributes: { path, verb },
        user: user.name,
        groups: user.groups,
        ...(user.uid !== undefined ? { uid: user.uid } : {}),
        ...(user.extra !== undefined ? { extra: user.extra } : {}),
      },
    });
    const allowed = sar.status?.allowed === true;
    this.reviews.set(key, { at: this.now(), allowed });
    return allowed;
  }
}
