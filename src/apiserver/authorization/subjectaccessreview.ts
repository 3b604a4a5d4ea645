/**
 * The access reviews of authorization.k8s.io/v1, create-only virtual resources answered by the
 * server's authorizer; nothing is stored. SelfSubjectAccessReview asks for the caller (`kubectl
 * auth can-i`), SubjectAccessReview for any user (webhooks, kubelets, controllers), and
 * LocalSubjectAccessReview for any user within the URL's namespace. Invalid specs are 422 with
 * upstream's texts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  invalid,
  methodNotSupported,
  type NonResourceAttributes,
  type ResourceAttributes,
  type SubjectAccessReviewSpec,
} from '../../api/index.js';
import type { UserInfo } from '../authentication/index.js';
import { decodeBody, readBody } from '../body.js';
import type { RequestInfo } from '../request_info.js';
import { writeJSON } from '../responsewriters.js';
import type { Attributes, Authorizer } from './authorizer.js';

/** The API group of the reviews. */
export const AUTHORIZATION_GROUP = 'authorization.k8s.io';

const KINDS: Record<string, { kind: string; namespaced: boolean }> = {
  selfsubjectaccessreviews: { kind: 'SelfSubjectAccessReview', namespaced: false },
  subjectaccessreviews: { kind: 'SubjectAccessReview', namespaced: false },
  localsubjectaccessreviews: { kind: 'LocalSubjectAccessReview', namespaced: true },
};

/** The review's body after the checks every review resource shares: create only, at its scope; undefined if not one. */
export async function readReview(
  req: IncomingMessage,
  info: RequestInfo,
  group: string,
  resources: Record<string, { kind: string; namespaced: boolean }>,
): Promise<{ kind: string; body: Record<string, unknown> } | undefined> {
  const r = resources[info.resource];
  if (!info.isResourceRequest || info.apiGroup !== group || info.apiVersion !== 'v1' || r === undefined)
    return undefined;
  if (info.verb !== 'create' || info.name !== '' || (info.namespace !== '') !== r.namespaced)
    throw methodNotSupported({ group, resource: info.resource }, info.verb);
  // kubectl sends them as protobuf, other clients as JSON.
  const body = decodeBody(await readBody(req), req.headers['content-type']) as Record<string, unknown> | null;
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw invalidReview(r.kind, 'spec', 'must be an object');
  return { kind: r.kind, body };
}

/** A 422 for one bad spec field, upstream's shape. */
export function invalidReview(kind: string, field: string, detail: string, value: unknown = ''): Error {
  const message = `Invalid value: ${JSON.stringify(value)}: ${detail}`;
  return invalid(
    { group: AUTHORIZATION_GROUP, kind },
    '',
    [{ reason: 'FieldValueInvalid', message, field }],
    [`${field}: ${message}`],
  );
}

/** Serves the three access reviews; false when the request is for something else. */
export async function serveSubjectAccessReview(
  req: IncomingMessage,
  res: ServerResponse,
  info: RequestInfo,
  authorizer: Authorizer,
): Promise<boolean> {
  const review = await readReview(req, info, AUTHORIZATION_GROUP, KINDS);
  if (review === undefined) return false;
  const { kind, body } = review;
  const spec = (body.spec ?? {}) as SubjectAccessReviewSpec;
  const ra = spec.resourceAttributes;
  const na = spec.nonResourceAttributes;
  if (ra !== undefined && na !== undefined)
    throw invalidReview(
      kind,
      'spec.nonResourceAttributes',
      'cannot be specified in combination with resourceAttributes',
      na,
    );
  if (ra === undefined && na === undefined)
    throw invalidReview(
      kind,
      'spec.resourceAttributes',
      'exactly one of nonResourceAttributes or resourceAttributes must be specified',
      null,
    );
  let user: UserInfo = info.user!;
  if (kind !== 'SelfSubjectAccessReview') {
    if ((spec.user ?? '') === '' && (spec.groups ?? []).length === 0)
      throw invalidReview(kind, 'spec.user', 'at least one of user or group must be specified');
    user = {
      username: spec.user ?? '',
      groups: spec.groups ?? [],
      ...(spec.uid ? { uid: spec.uid } : {}),
      ...(spec.extra ? { extra: spec.extra } : {}),
    };
  }
  if (kind === 'LocalSubjectAccessReview') {
    const ns = (body.metadata as { namespace?: string } | undefined)?.namespace ?? '';
    if (na !== undefined)
      throw invalidReview(kind, 'spec.nonResourceAttributes', 'disallowed on this kind of request', na);
    if (ns !== '' && ns !== info.namespace)
      throw invalidReview(kind, 'metadata.namespace', 'must match the namespace of the URL', ns);
    if ((ra!.namespace ?? '') !== info.namespace)
      throw invalidReview(
        kind,
        'spec.resourceAttributes.namespace',
        'must match metadata.namespace',
        ra!.namespace ?? '',
      );
  }
  const d = authorizer.authorize(ra !== undefined ? resourceAttributes(user, ra) : nonResourceAttributes(user, na!));
  writeJSON(res, 201, {
    kind,
    apiVersion: `${AUTHORIZATION_GROUP}/v1`,
    metadata: {
      creationTimestamp: null,
      ...(kind === 'LocalSubjectAccessReview' ? { namespace: info.namespace } : {}),
    },
    spec,
    status: {
      allowed: d.decision === 'allow',
      ...(d.decision === 'deny' ? { denied: true } : {}),
      ...(d.reason !== '' ? { reason: d.reason } : {}),
    },
  });
  return true;
}

function resourceAttributes(user: UserInfo, ra: ResourceAttributes): Attributes {
  return {
    user,
    verb: ra.verb ?? '',
    isResourceRequest: true,
    path: '',
    namespace: ra.namespace ?? '',
    apiGroup: ra.group ?? '',
    resource: ra.resource ?? '',
    subresource: ra.subresource ?? '',
    name: ra.name ?? '',
  };
}

function nonResourceAttributes(user: UserInfo, na: NonResourceAttributes): Attributes {
  const empty = { namespace: '', apiGroup: '', resource: '', subresource: '', name: '' };
  return { user, verb: na.verb ?? '', isResourceRequest: false, path: na.path ?? '', ...empty };
}
