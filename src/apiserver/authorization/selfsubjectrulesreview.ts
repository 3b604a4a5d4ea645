/**
 * SelfSubjectRulesReview (authorization.k8s.io/v1): the rules the caller holds in a namespace,
 * as `kubectl auth can-i --list` shows them. Like upstream's, the answer comes from the RBAC
 * rule resolver (cluster-wide bindings plus the namespace's RoleBindings); authorizers that
 * cannot list their rules (the Node authorizer, webhooks) make it `incomplete`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, type NonResourceRule, type ResourceRule } from '../../api/index.js';
import type { RequestInfo } from '../request_info.js';
import { writeJSON } from '../responsewriters.js';
import type { RBACAuthorizer } from './rbac/index.js';
import { AUTHORIZATION_GROUP, readReview } from './subjectaccessreview.js';

const KINDS = { selfsubjectrulesreviews: { kind: 'SelfSubjectRulesReview', namespaced: false } };

/** Serves a SelfSubjectRulesReview; false when the request is for something else. */
export async function serveSelfSubjectRulesReview(
  req: IncomingMessage,
  res: ServerResponse,
  info: RequestInfo,
  rbac: RBACAuthorizer,
  incomplete: boolean,
): Promise<boolean> {
  const review = await readReview(req, info, AUTHORIZATION_GROUP, KINDS);
  if (review === undefined) return false;
  const spec = (review.body.spec ?? {}) as { namespace?: string };
  if ((spec.namespace ?? '') === '') throw badRequest('no namespace on request');
  const resourceRules: ResourceRule[] = [];
  const nonResourceRules: NonResourceRule[] = [];
  for (const r of rbac.rulesFor(info.user!, spec.namespace!)) {
    if ((r.nonResourceURLs ?? []).length > 0)
      nonResourceRules.push({ verbs: r.verbs ?? [], nonResourceURLs: r.nonResourceURLs });
    else
      resourceRules.push({
        verbs: r.verbs ?? [],
        ...(r.apiGroups ? { apiGroups: r.apiGroups } : {}),
        ...(r.resources ? { resources: r.resources } : {}),
        ...(r.resourceNames ? { resourceNames: r.resourceNames } : {}),
      });
  }
  writeJSON(res, 201, {
    kind: review.kind,
    apiVersion: `${AUTHORIZATION_GROUP}/v1`,
    metadata: { creationTimestamp: null },
    spec,
    status: { resourceRules, nonResourceRules, incomplete },
  });
  return true;
}
