/**
 * The audit policy (--audit-policy-file), like upstream's
 * apiserver/pkg/audit/policy: loading and validating an audit.k8s.io/v1
 * Policy, and the checker that picks the first matching rule's level.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYAML } from 'yaml';
import type { AuditGroupResources, AuditLevel, AuditPolicy, AuditPolicyRule, AuditStage } from '../../api/index.js';
import type { UserInfo } from '../authentication/index.js';
import type { Attributes } from '../authorization/index.js';

const LEVELS: readonly AuditLevel[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
const STAGES: readonly AuditStage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** What the policy says about one request (upstream's RequestAuditConfig). */
export interface RequestAuditConfig {
  level: AuditLevel;
  omitStages: readonly AuditStage[];
  omitManagedFields: boolean;
}

/** The request attributes a rule matches on: upstream's authorizer.Attributes, whose user is absent when authentication failed. */
export type AuditAttributes = Omit<Attributes, 'user'> & { user: UserInfo | undefined };

const NONE: RequestAuditConfig = { level: 'None', omitStages: [], omitManagedFields: false };

/** Evaluates a policy's rules in order, like upstream's policyRuleEvaluator. */
export class PolicyRuleEvaluator {
  private readonly configs: RequestAuditConfig[];

  constructor(private readonly policy: AuditPolicy) {
    // Each rule's stages are the union of its own and the policy's; its omitManagedFields defaults to the policy's.
    this.configs = policy.rules.map((r) => ({
      level: r.level,
      omitStages: [...new Set([...(policy.omitStages ?? []), ...(r.omitStages ?? [])])],
      omitManagedFields: r.omitManagedFields ?? policy.omitManagedFields ?? false,
    }));
  }

  /** The first matching rule's config, or level None when no rule matches. */
  evaluate(a: AuditAttributes): RequestAuditConfig {
    const rules = this.policy.rules;
    for (let i = 0; i < rules.length; i++) if (ruleMatches(rules[i]!, a)) return this.configs[i]!;
    return NONE;
  }
}

function ruleMatches(r: AuditPolicyRule, a: AuditAttributes): boolean {
  if (r.users !== undefined && r.users.length > 0 && (a.user === undefined || !r.users.includes(a.user.username)))
    return false;
  if (r.userGroups !== undefined && r.userGroups.length > 0) {
    if (a.user === undefined || !a.user.groups.some((g) => r.userGroups!.includes(g))) return false;
  }
  if (r.verbs !== undefined && r.verbs.length > 0 && !r.verbs.includes(a.verb)) return false;
  if ((r.namespaces?.length ?? 0) > 0 || (r.resources?.length ?? 0) > 0) return ruleMatchesResource(r, a);
  if ((r.nonResourceURLs?.length ?? 0) > 0)
    return !a.isResourceRequest && r.nonResourceURLs!.some((s) => pathMatches(a.path, s));
  return true;
}

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.slice(0, -1));
}

function ruleMatchesResource(r: AuditPolicyRule, a: AuditAttributes): boolean {
  if (!a.isResourceRequest) return false;
  // Cluster-scoped resources have the namespace "".
  if (r.namespaces !== undefined && r.namespaces.length > 0 && !r.namespaces.includes(a.namespace)) return false;
  if (r.resources === undefined || r.resources.length === 0) return true;
  const combined = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
  for (const gr of r.resources) {
    if ((gr.group ?? '') !== a.apiGroup) continue;
    if (gr.resources === undefined || gr.resources.length === 0) return true;
    if (gr.resourceNames !== undefined && gr.resourceNames.length > 0 && !gr.resourceNames.includes(a.name)) continue;
    for (const res of gr.resources) {
      if (res === '*' || res === combined) return true;
      // "*/status" matches every resource's status; "pods/*" every subresource of pods (and pods itself).
      if (a.subresource !== '' && res.startsWith('*/') && res.slice(2) === a.subresource) return true;
      if (res.endsWith('/*') && res.slice(0, -2) === a.resource) return true;
    }
  }
  return false;
}

/** Validates a decoded policy, with upstream's field paths; returns the errors (empty when valid). */
export function validatePolicy(p: AuditPolicy): string[] {
  const errs: string[] = [];
  if (p.apiVersion !== 'audit.k8s.io/v1' || p.kind !== 'Policy')
    errs.push(`apiVersion/kind: expected audit.k8s.io/v1 Policy, got ${String(p.apiVersion)} ${String(p.kind)}`);
  validateStages(p.omitStages, 'omitStages', errs);
  if (!Array.isArray(p.rules)) return [...errs, 'rules: Required value'];
  p.rules.forEach((r, i) => validateRule(r, `rules[${i}]`, errs));
  return errs;
}

function supported<T extends string>(v: unknown, all: readonly T[], path: string, errs: string[]): void {
  if (!all.includes(v as T))
    errs.push(
      `${path}: Unsupported value: ${JSON.stringify(v)}: supported values: ${all.map((x) => `"${x}"`).join(', ')}`,
    );
}

function validateStages(stages: unknown, path: string, errs: string[]): void {
  if (stages === undefined) return;
  if (!Array.isArray(stages)) return void errs.push(`${path}: Invalid value: must be a list of stages`);
  stages.forEach((s, i) => supported(s, STAGES, `${path}[${i}]`, errs));
}

function validateRule(r: AuditPolicyRule, path: string, errs: string[]): void {
  if (r === null || typeof r !== 'object') return void errs.push(`${path}: Invalid value: must be an object`);
  supported(r.level, LEVELS, `${path}.level`, errs);
  validateStages(r.omitStages, `${path}.omitStages`, errs);
  const urls = r.nonResourceURLs ?? [];
  if (urls.length > 0 && ((r.resources?.length ?? 0) > 0 || (r.namespaces?.length ?? 0) > 0))
    errs.push(
      `${path}.nonResourceURLs: Invalid value: rules cannot apply to both regular resources and non-resource URLs`,
    );
  urls.forEach((u, i) => {
    if (!u.startsWith('/') && u !== '*')
      errs.push(
        `${path}.nonResourceURLs[${i}]: Invalid value: "${u}": non-resource URL rules must begin with a '/' character`,
      );
    if (u.slice(0, -1).includes('*'))
      errs.push(
        `${path}.nonResourceURLs[${i}]: Invalid value: "${u}": non-resource URL wildcards '*' must be the final character of the rule`,
      );
  });
  (r.resources ?? []).forEach((gr: AuditGroupResources, i) => {
    const at = `${path}.resources[${i}]`;
    if ((gr.group ?? '') !== '' && !DNS1123_SUBDOMAIN.test(gr.group!))
      errs.push(`${at}.group: Invalid value: "${gr.group}": a lowercase RFC 1123 subdomain is required`);
    if ((gr.resourceNames?.length ?? 0) > 0 && (gr.resources?.length ?? 0) === 0)
      errs.push(`${at}.resourceNames: Invalid value: using resourceNames requires at least one resource`);
  });
}

/** Parses and validates policy text (YAML or JSON); throws with every problem found. */
export function parsePolicy(text: string, source: string): AuditPolicy {
  let p: AuditPolicy;
  try {
    p = parseYAML(text, { maxAliasCount: 100 }) as AuditPolicy;
  } catch (err) {
    throw new Error(`${source}: failed decoding: ${(err as Error).message.split('\n')[0]}`);
  }
  if (p === null || typeof p !== 'object') throw new Error(`${source}: failed decoding: not an audit.k8s.io/v1 Policy`);
  const errs = validatePolicy(p);
  if (errs.length > 0) throw new Error(`${source}: invalid audit policy: ${errs.join('; ')}`);
  // Like upstream's LoadPolicyFromBytes: a policy that can never record anything is a mistake.
  if (p.rules.length === 0) throw new Error(`loaded illegal policy with 0 rules from file ${source}`);
  return p;
}

/** Reads --audit-policy-file. */
export function loadPolicyFile(file: string): AuditPolicy {
  return parsePolicy(readFileSync(file, 'utf8'), file);
}
