/** authorization.k8s.io/v1: the access and rules reviews, create-only virtual kinds. Upstream's JSON names. */
import type { KubeObject } from '../types.js';

/** authorization/v1 ResourceAttributes: a resource request to check. */
export interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

/** authorization/v1 NonResourceAttributes: a non-resource request (a URL path) to check. */
export interface NonResourceAttributes {
  path?: string;
  verb?: string;
}

/** authorization/v1 SubjectAccessReviewSpec: the request and the user to check it for. */
export interface SubjectAccessReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
  user?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  uid?: string;
}

/** authorization/v1 SubjectAccessReviewStatus: the answer. */
export interface SubjectAccessReviewStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

/** authorization/v1 SubjectAccessReview (and LocalSubjectAccessReview, its namespaced form). */
export interface SubjectAccessReview extends KubeObject {
  spec: SubjectAccessReviewSpec;
  status?: SubjectAccessReviewStatus;
}

/** authorization/v1 SelfSubjectAccessReviewSpec: the request, for the caller. */
export interface SelfSubjectAccessReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
}

/** authorization/v1 SelfSubjectAccessReview. */
export interface SelfSubjectAccessReview extends KubeObject {
  spec: SelfSubjectAccessReviewSpec;
  status?: SubjectAccessReviewStatus;
}

/** authorization/v1 ResourceRule: what the caller may do to resources. */
export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

/** authorization/v1 NonResourceRule: what the caller may do to URLs. */
export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs?: string[];
}

/** authorization/v1 SubjectRulesReviewStatus: the caller's rules in a namespace. */
export interface SubjectRulesReviewStatus {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  incomplete: boolean;
  evaluationError?: string;
}

/** authorization/v1 SelfSubjectRulesReview: `kubectl auth can-i --list`. */
export interface SelfSubjectRulesReview extends KubeObject {
  spec: { namespace?: string };
  status?: SubjectRulesReviewStatus;
}
