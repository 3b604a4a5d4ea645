/**
 * SelfSubjectAccessReview (authorization.k8s.io/v1): may the caller do this?
 * A create-only virtual resource, answered by the server's authorizer, as
 * `kubectl auth can-i` asks. Nothing is stored.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, methodNotSupported } from '../../api/index.js';
import { decodeBody, readBody } from '../body.js';
import type { RequestInfo } from '../request_info.js';
import { writeJSON } from '../responsewriters.js';
import type { Attributes, Authorizer } from './authorizer.js';

const GROUP = 'authorization.k8s.io';

/** Serves a SelfSubjectAccessReview; false when the request is for something else. */
export async function serveSelfSubjectAccessReview(
  req: IncomingMessage,
  res: ServerResponse,
  info: RequestInfo,
  authorizer: Authorizer,
): Promise<boolean> {
  if (
    !info.isResourceRequest ||
    info.apiGroup !== GROUP ||
    info.apiVersion !== 'v1' ||
    info.resource !== 'selfsubjectaccessreviews'
  )
    return false;
  if (info.verb !== 'create' || info.name !== '' || info.namespace !== '')
    throw methodNotSupported({ group: GROUP, resource: 'selfsubjectaccessreviews' }, info.verb);
  // kubectl sends it as protobuf, other clients as JSON.
  const body = decodeBody(await readBody(req), req.headers['content-type']) as {
    spec?: { resourceAttributes?: Record<string, string>; nonResourceAttributes?: Record<string, string> };
  } | null;
  if (body === null || typeof body !== 'object') throw badRequest('the request body is not a SelfSubjectAccessReview');
  const spec = body.spec ?? {};
  const ra = spec.resourceAttributes;
  const na = spec.nonResourceAttributes;
  if ((ra === undefined) === (na === undefined)) {
    throw badRequest(
      'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec: Invalid value: exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
  }
  const a: Attributes =
    ra !== undefined
      ? {
          user: info.user!,
          verb: ra.verb ?? '',
          isResourceRequest: true,
          path: '',
          namespace: ra.namespace ?? '',
          apiGroup: ra.group ?? '',
          resource: ra.resource ?? '',
          subresource: ra.subresource ?? '',
          name: ra.name ?? '',
        }
      : {
          user: info.user!,
          verb: na!.verb ?? '',
          isResourceRequest: false,
          path: na!.path ?? '',
          namespace: '',
          apiGroup: '',
          resource: '',
          subresource: '',
          name: '',
        };
  const d = authorizer.authorize(a);
  const status = {
    allowed: d.decision === 'allow',
    ...(d.decision === 'deny' ? { denied: true } : {}),
    ...(d.reason !== '' ? { reason: d.reason } : {}),
  };
  writeJSON(res, 201, {
    kind: 'SelfSubjectAccessReview',
    apiVersion: `${GROUP}/v1`,
    metadata: { creationTimestamp: null },
    spec,
    status,
  });
  return true;
}
