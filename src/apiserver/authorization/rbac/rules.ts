/**
 * RBAC rule matching, as upstream's rbac/v1 helpers: a PolicyRule allows a
 * request when its verbs, API groups, resources (`pods`, `pods/status`,
 * `*`, or `*` over one subresource such as scale) and resource names match, or for a non-resource request
 * its verbs and URLs (`/healthz`, or a prefix ending in `*`).
 */
import type { Attributes } from '../authorizer.js';

/** A policy rule as stored (rbac/v1 PolicyRule). */
export interface Rule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

const ALL = '*';

function verbMatches(r: Rule, verb: string): boolean {
  const verbs = r.verbs ?? [];
  return verbs.includes(ALL) || verbs.includes(verb);
}

function resourceMatches(r: Rule, resource: string, subresource: string): boolean {
  const combined = subresource === '' ? resource : `${resource}/${subresource}`;
  for (const x of r.resources ?? []) {
    if (x === ALL || x === combined) return true;
    // `*/scale` matches the scale subresource of every resource.
    if (subresource !== '' && x === `*/${subresource}`) return true;
  }
  return false;
}

function nameMatches(r: Rule, name: string): boolean {
  const names = r.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

function urlMatches(r: Rule, path: string): boolean {
  for (const u of r.nonResourceURLs ?? []) {
    if (u === ALL || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

/** True when `rule` allows the request described by `a`. */
export function ruleAllows(a: Attributes, rule: Rule): boolean {
  if (!verbMatches(rule, a.verb)) return false;
  if (!a.isResourceRequest) return urlMatches(rule, a.path);
  const groups = rule.apiGroups ?? [];
  if (!groups.includes(ALL) && !groups.includes(a.apiGroup)) return false;
  return resourceMatches(rule, a.resource, a.subresource) && nameMatches(rule, a.name);
}
