/** core/v1 ResourceQuota and LimitRange definitions. */
import type { StructDesc } from './dsl.js';

const top = (spec: string, status?: string): StructDesc => ({
  apiVersion: 'string',
  kind: 'string',
  metadata: 'meta.ObjectMeta',
  spec,
  ...(status ? { status } : {}),
});

/** The quota kinds' definitions by short name. */
export const QUOTA_DEFS: Record<string, StructDesc> = {
  'core.ResourceQuota': top('core.ResourceQuotaSpec', 'core.ResourceQuotaStatus'),
  'core.ResourceQuotaSpec': { hard: 'map[Quantity]', scopes: '[]string', scopeSelector: 'core.ScopeSelector' },
  'core.ScopeSelector': { matchExpressions: '[]core.ScopedResourceSelectorRequirement' },
  'core.ScopedResourceSelectorRequirement': { scopeName: 'string', operator: 'string', values: '[]string' },
  'core.ResourceQuotaStatus': { hard: 'map[Quantity]', used: 'map[Quantity]' },
  'core.LimitRange': top('core.LimitRangeSpec'),
  'core.LimitRangeSpec': { limits: '[]core.LimitRangeItem' },
  'core.LimitRangeItem': {
    type: 'string',
    max: 'map[Quantity]',
    min: 'map[Quantity]',
    default: 'map[Quantity]',
    defaultRequest: 'map[Quantity]',
    maxLimitRequestRatio: 'map[Quantity]',
  },
};
