/**
 * SelfSubjectReview (authentication.k8s.io v1, and v1beta1/v1alpha1 for older
 * kubectl): a create-only virtual resource that answers with the caller's own
 * user, as `kubectl auth whoami` asks. Nothing is stored.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { methodNotSupported } from '../../api/index.js';
import { readBody } from '../body.js';
import type { RequestInfo } from '../request_info.js';
import { writeJSON } from '../responsewriters.js';

const GROUP = 'authentication.k8s.io';
const VERSIONS = new Set(['v1', 'v1beta1', 'v1alpha1']);

/** Serves a SelfSubjectReview request; false when the request is for something else. */
export async function serveSelfSubjectReview(
  req: IncomingMessage,
  res: ServerResponse,
  info: RequestInfo,
): Promise<boolean> {
  if (
    !info.isResourceRequest ||
    info.apiGroup !== GROUP ||
    info.resource !== 'selfsubjectreviews' ||
    !VERSIONS.has(info.apiVersion)
  )
    return false;
  if (info.verb !== 'create' || info.name !== '' || info.namespace !== '')
    throw methodNotSupported({ group: GROUP, resource: 'selfsubjectreviews' }, info.verb);
  await readBody(req);
  const u = info.user;
  const userInfo =
    u === undefined
      ? {}
      : {
          username: u.username,
          ...(u.uid ? { uid: u.uid } : {}),
          groups: u.groups,
          ...(u.extra ? { extra: u.extra } : {}),
        };
  writeJSON(res, 201, {
    kind: 'SelfSubjectReview',
    apiVersion: `${GROUP}/${info.apiVersion}`,
    metadata: { creationTimestamp: null },
    status: { userInfo },
  });
  return true;
}
