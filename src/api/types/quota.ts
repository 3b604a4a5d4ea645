/** core/v1 ResourceQuota and LimitRange. Upstream's JSON names; optional where upstream is omitempty. */
import type { KubeObject } from '../types.js';
import type { ResourceList } from './core.js';

/** v1.ScopedResourceSelectorRequirement: In, NotIn, Exists or DoesNotExist over a quota scope. */
export interface ScopedResourceSelectorRequirement {
  scopeName: string;
  operator: string;
  values?: string[];
}

/** v1.ResourceQuotaSpec. */
export interface ResourceQuotaSpec {
  hard?: ResourceList;
  /** Terminating, NotTerminating, BestEffort, NotBestEffort, PriorityClass, CrossNamespacePodAffinity. */
  scopes?: string[];
  scopeSelector?: { matchExpressions?: ScopedResourceSelectorRequirement[] };
}

/** v1.ResourceQuota: hard limits on what a namespace may hold, and what it holds now. */
export interface ResourceQuota extends KubeObject {
  spec?: ResourceQuotaSpec;
  status?: { hard?: ResourceList; used?: ResourceList };
}

/** v1.LimitRangeItem; type is Container, Pod or PersistentVolumeClaim. */
export interface LimitRangeItem {
  type: string;
  max?: ResourceList;
  min?: ResourceList;
  default?: ResourceList;
  defaultRequest?: ResourceList;
  maxLimitRequestRatio?: ResourceList;
}

/** v1.LimitRange: per-object defaults and bounds in a namespace. */
export interface LimitRange extends KubeObject {
  spec?: { limits: LimitRangeItem[] };
}
