/**
 * TokenReview (authentication.k8s.io/v1): is this bearer token valid, and whose is it? A
 * create-only virtual resource answered by the server's token authenticators (the same chain a
 * request's `Authorization: Bearer` goes through), as webhook authenticators and aggregated API
 * servers ask. Nothing is stored; an empty token is 400, as upstream.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, methodNotSupported, type TokenReview } from '../../api/index.js';
import { decodeBody, readBody } from '../body.js';
import type { RequestInfo } from '../request_info.js';
import { writeJSON } from '../responsewriters.js';
import type { TokenAuthenticator } from './request.js';

const GROUP = 'authentication.k8s.io';

/** Serves a TokenReview; false when the request is for something else. */
export async function serveTokenReview(
  req: IncomingMessage,
  res: ServerResponse,
  info: RequestInfo,
  tokens: readonly TokenAuthenticator[],
  apiAudiences: readonly string[],
): Promise<boolean> {
  if (
    !info.isResourceRequest ||
    info.apiGroup !== GROUP ||
    info.resource !== 'tokenreviews' ||
    info.apiVersion !== 'v1'
  )
    return false;
  if (info.verb !== 'create' || info.name !== '' || info.namespace !== '')
    throw methodNotSupported({ group: GROUP, resource: 'tokenreviews' }, info.verb);
  const body = decodeBody(await readBody(req), req.headers['content-type']) as TokenReview | null;
  const spec = body?.spec ?? {};
  if (typeof spec.token !== 'string' || spec.token === '')
    throw badRequest('token is required for TokenReview in authentication');
  // The token must be good for one of the audiences asked for, or for the server's own.
  const wanted = spec.audiences !== undefined && spec.audiences.length > 0 ? spec.audiences : apiAudiences;
  let status: TokenReview['status'] = { authenticated: false, user: {} };
  if (wanted.some((a) => apiAudiences.includes(a)))
    for (const auth of tokens) {
      const u = await auth(spec.token).catch(() => undefined);
      if (u === undefined) continue;
      status = {
        authenticated: true,
        user: {
          username: u.username,
          ...(u.uid ? { uid: u.uid } : {}),
          groups: u.groups,
          ...(u.extra ? { extra: u.extra } : {}),
        },
        audiences: wanted.filter((a) => apiAudiences.includes(a)),
      };
      break;
    }
  writeJSON(res, 201, {
    kind: 'TokenReview',
    apiVersion: `${GROUP}/v1`,
    metadata: { creationTimestamp: null },
    spec,
    status,
  });
  return true;
}
