/**
 * flowcontrol.apiserver.k8s.io validation, with upstream's rules and texts
 * (pkg/apis/flowcontrol/validation): precedence 1..10000, a known
 * distinguisher, rules with subjects, "*" alone in its list, and limited
 * levels with sane shares, percentages and shuffle-sharding parameters.
 */
import { isDNS1123Label } from '../meta.js';
import { asString, isObject, type KubeObject } from '../types.js';
import {
  child,
  forbidden,
  fromMessages,
  index,
  invalidValue,
  notSupported,
  required,
  type ErrorList,
} from './field.js';
import { validateObjectMeta } from './objectmeta.js';
import { validateRBACName } from './rbac.js';

type Obj = Record<string, unknown>;
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(asString) : []);
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? (v.filter(isObject) as Obj[]) : []);
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** The highest matchingPrecedence a FlowSchema may have. */
export const FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE = 10000;
/** Like shufflesharding.MaxHashBits: the entropy a hand may need. */
const MAX_HASH_BITS = 60;

/** A non-empty list where "*" stands alone, like upstream's verbs/apiGroups/resources checks. */
function validateWildcardList(v: unknown, path: string, what: string, wild = '*'): ErrorList {
  const list = strings(v);
  if (list.length === 0) return [required(path, `${what} must contain at least one value`)];
  if (list.includes(wild) && list.length > 1)
    return [invalidValue(path, list, `if '${wild}' is present, must not specify other ${what}`)];
  return [];
}

function validateSubject(s: Obj, path: string): ErrorList {
  const errs: ErrorList = [];
  const kinds: [string, string][] = [
    ['User', 'user'],
    ['Group', 'group'],
    ['ServiceAccount', 'serviceAccount'],
  ];
  const k = kinds.find(([kind]) => kind === s.kind);
  if (k === undefined) return [notSupported(child(path, 'kind'), s.kind, ['ServiceAccount', 'Group', 'User'])];
  for (const [kind, field] of kinds) {
    if (kind !== s.kind && s[field] != null)
      errs.push(forbidden(child(path, field), `${field} is forbidden when subject kind is not '${kind}'`));
  }
  const body = s[k[1]];
  if (!isObject(body))
    return [...errs, required(child(path, k[1]), `${k[1]} is required when subject kind is '${k[0]}'`)];
  if (k[0] === 'ServiceAccount' && !body.namespace)
    errs.push(required(child(path, k[1], 'namespace'), 'must specify namespace for service account'));
  if (!body.name) errs.push(required(child(path, k[1], 'name'), k[0] === 'User' ? 'username is required' : ''));
  return errs;
}

function validateResourceRule(r: Obj, path: string): ErrorList {
  const errs = [
    ...validateWildcardList(r.verbs, child(path, 'verbs'), 'verbs'),
    ...validateWildcardList(r.apiGroups, child(path, 'apiGroups'), 'api groups'),
    ...validateWildcardList(r.resources, child(path, 'resources'), 'resources'),
  ];
  const ns = strings(r.namespaces);
  const nsPath = child(path, 'namespaces');
  if (ns.length === 0) {
    if (r.clusterScope !== true)
      errs.push(required(nsPath, 'resource rules that are not cluster scoped must supply at least one namespace'));
  } else if (ns.includes('*')) {
    if (ns.length > 1) errs.push(invalidValue(nsPath, ns, "if '*' is present, must not specify other namespaces"));
  } else {
    ns.forEach((n, i) => errs.push(...fromMessages(index(nsPath, i), n, isDNS1123Label(n))));
  }
  return errs;
}

function validateNonResourceRule(r: Obj, path: string): ErrorList {
  return [
    ...validateWildcardList(r.verbs, child(path, 'verbs'), 'verbs'),
    ...validateWildcardList(r.nonResourceURLs, child(path, 'nonResourceURLs'), 'nonResourceURLs'),
  ];
}

function validatePolicyRulesWithSubjects(rule: Obj, path: string): ErrorList {
  const errs: ErrorList = [];
  const subjects = objects(rule.subjects);
  if (subjects.length === 0) errs.push(required(child(path, 'subjects'), 'subjects must contain at least one value'));
  subjects.forEach((s, i) => errs.push(...validateSubject(s, index(child(path, 'subjects'), i))));
  const rr = objects(rule.resourceRules);
  const nr = objects(rule.nonResourceRules);
  if (rr.length === 0 && nr.length === 0)
    errs.push(required(path, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
  rr.forEach((r, i) => errs.push(...validateResourceRule(r, index(child(path, 'resourceRules'), i))));
  nr.forEach((r, i) => errs.push(...validateNonResourceRule(r, index(child(path, 'nonResourceRules'), i))));
  return errs;
}

/** Validates a FlowSchema (create and update). */
export function validateFlowSchema(fs: KubeObject): ErrorList {
  const errs = validateObjectMeta(fs.metadata, false, validateRBACName);
  const spec = isObject(fs.spec) ? fs.spec : {};
  const mp = num(spec.matchingPrecedence);
  if (mp <= 0) errs.push(invalidValue('spec.matchingPrecedence', mp, 'must be a positive value'));
  else if (mp > FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE)
    errs.push(
      invalidValue('spec.matchingPrecedence', mp, `must not be greater than ${FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE}`),
    );
  if (
    isObject(spec.distinguisherMethod) &&
    !['ByUser', 'ByNamespace'].includes(asString(spec.distinguisherMethod.type))
  )
    errs.push(notSupported('spec.distinguisherMethod.type', spec.distinguisherMethod.type, ['ByNamespace', 'ByUser']));
  const pl = isObject(spec.priorityLevelConfiguration) ? asString(spec.priorityLevelConfiguration.name) : '';
  if (pl === '') errs.push(required('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  else errs.push(...fromMessages('spec.priorityLevelConfiguration.name', pl, validateRBACName(pl)));
  objects(spec.rules).forEach((r, i) => errs.push(...validatePolicyRulesWithSubjects(r, index('spec.rules', i))));
  return errs;
}

function validatePercent(v: unknown, path: string): ErrorList {
  if (v == null) return [];
  return num(v) < 0 || num(v) > 100 ? [invalidValue(path, v, 'must be between 0 and 100, inclusive')] : [];
}

function validateShares(v: unknown, path: string): ErrorList {
  return v != null && num(v) < 0 ? [invalidValue(path, v, 'must be a non-negative integer')] : [];
}

/** Like ValidateShuffleSharding plus the queuing checks: positive sizes, handSize ≤ queues, entropy ≤ 60 bits. */
function validateQueuing(q: Obj, path: string): ErrorList {
  const errs: ErrorList = [];
  const queues = num(q.queues);
  const hand = num(q.handSize);
  if (num(q.queueLengthLimit) <= 0)
    errs.push(invalidValue(child(path, 'queueLengthLimit'), q.queueLengthLimit, 'must be positive'));
  if (queues <= 0) return [...errs, invalidValue(child(path, 'queues'), q.queues, 'must be positive')];
  if (queues === 1) return errs;
  if (hand <= 0) errs.push(invalidValue(child(path, 'handSize'), q.handSize, 'must be positive'));
  else if (hand > queues)
    errs.push(invalidValue(child(path, 'handSize'), hand, `should not be greater than queues (${queues})`));
  else if (Math.ceil(Math.log2(queues) * hand) > MAX_HASH_BITS)
    errs.push(
      invalidValue(
        child(path, 'handSize'),
        hand,
        `required entropy bits of deckSize ${queues} and handSize ${hand} should not be greater than ${MAX_HASH_BITS}`,
      ),
    );
  return errs;
}

function validateLimited(l: Obj, path: string): ErrorList {
  const errs = [
    ...validateShares(l.nominalConcurrencyShares, child(path, 'nominalConcurrencyShares')),
    ...validatePercent(l.lendablePercent, child(path, 'lendablePercent')),
  ];
  if (l.borrowingLimitPercent != null && num(l.borrowingLimitPercent) < 0)
    errs.push(
      invalidValue(
        child(path, 'borrowingLimitPercent'),
        l.borrowingLimitPercent,
        'if specified, must be a non-negative integer',
      ),
    );
  const lr = isObject(l.limitResponse) ? l.limitResponse : {};
  const lrPath = child(path, 'limitResponse');
  if (lr.type === 'Queue') {
    if (!isObject(lr.queuing)) errs.push(required(child(lrPath, 'queuing'), 'must not be empty if the type is Queue'));
    else errs.push(...validateQueuing(lr.queuing, child(lrPath, 'queuing')));
  } else if (lr.type === 'Reject') {
    if (lr.queuing != null)
      errs.push(forbidden(child(lrPath, 'queuing'), 'must be nil if limited.limitResponse.type is not Limited'));
  } else {
    errs.push(notSupported(child(lrPath, 'type'), lr.type, ['Queue', 'Reject']));
  }
  return errs;
}

/** Validates a PriorityLevelConfiguration (create and update). */
export function validatePriorityLevelConfiguration(plc: KubeObject): ErrorList {
  const errs = validateObjectMeta(plc.metadata, false, validateRBACName);
  const spec = isObject(plc.spec) ? plc.spec : {};
  const name = plc.metadata?.name ?? '';
  if ((name === 'exempt') !== (spec.type === 'Exempt') && ['Exempt', 'Limited'].includes(asString(spec.type)))
    errs.push(invalidValue('spec.type', spec.type, "type must be 'Exempt' if and only if name is 'exempt'"));
  if (spec.type === 'Exempt') {
    if (spec.limited != null) errs.push(forbidden('spec.limited', 'must be nil if the type is not Limited'));
    if (isObject(spec.exempt))
      errs.push(
        ...validateShares(spec.exempt.nominalConcurrencyShares, 'spec.exempt.nominalConcurrencyShares'),
        ...validatePercent(spec.exempt.lendablePercent, 'spec.exempt.lendablePercent'),
      );
  } else if (spec.type === 'Limited') {
    if (spec.exempt != null) errs.push(forbidden('spec.exempt', 'must be nil if the type is Limited'));
    if (!isObject(spec.limited)) errs.push(required('spec.limited', 'must not be empty when type is Limited'));
    else errs.push(...validateLimited(spec.limited, 'spec.limited'));
  } else {
    errs.push(notSupported('spec.type', spec.type, ['Exempt', 'Limited']));
  }
  return errs;
}
