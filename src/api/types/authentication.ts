/** authentication.k8s.io/v1 TokenReview, a create-only virtual kind. Upstream's JSON names. */
import type { KubeObject } from '../types.js';

/** authentication/v1 UserInfo: who a token belongs to. */
export interface TokenReviewUserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** authentication/v1 TokenReviewStatus. */
export interface TokenReviewStatus {
  authenticated?: boolean;
  user?: TokenReviewUserInfo;
  audiences?: string[];
  error?: string;
}

/** authentication/v1 TokenReview: is this bearer token valid, and whose is it? */
export interface TokenReview extends KubeObject {
  spec: { token?: string; audiences?: string[] };
  status?: TokenReviewStatus;
}
