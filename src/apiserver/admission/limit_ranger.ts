/**
 * LimitRanger, as upstream's plugin/pkg/admission/limitranger: on pod create it
 * fills each container's missing requests and limits from the namespace's
 * Container LimitRange defaults (noting them in the kubernetes.io/limit-ranger
 * annotation), then enforces min, max and maxLimitRequestRatio per Container
 * and per Pod; claims are held to their PersistentVolumeClaim min and max.
 * A pods/resize update is defaulted and checked the same way, as upstream
 * since in-place resize. A violation is a 403 listing every failed constraint.
 */
import {
  forbidden,
  formatMilli,
  milliValue,
  toUsage,
  type Container,
  type LimitRange,
  type LimitRangeItem,
  type Pod,
  type ResourceList,
  type Usage,
} from '../../api/index.js';
import type { Obj } from '../object.js';
import type { AdmissionPlugin, Attributes } from './chain.js';
import type { NamespaceObjectCache } from './namespace_cache.js';

const canonical = (q: string | number): string => formatMilli(milliValue(q));
const text = (u: Usage, k: string): string => formatMilli(u.get(k)!);

function minConstraint(type: string, name: string, enforced: string, req: Usage, lim: Usage): string | undefined {
  const e = milliValue(enforced);
  if (!req.has(name)) return `minimum ${name} usage per ${type} is ${canonical(enforced)}.  No request is specified`;
  if (req.get(name)! < e)
    return `minimum ${name} usage per ${type} is ${canonical(enforced)}, but request is ${text(req, name)}`;
  if (lim.has(name) && lim.get(name)! < e)
    return `minimum ${name} usage per ${type} is ${canonical(enforced)}, but limit is ${text(lim, name)}`;
  return undefined;
}

function maxConstraint(type: string, name: string, enforced: string, req: Usage, lim: Usage): string | undefined {
  const e = milliValue(enforced);
  if (!lim.has(name)) return `maximum ${name} usage per ${type} is ${canonical(enforced)}.  No limit is specified`;
  if (lim.get(name)! > e)
    return `maximum ${name} usage per ${type} is ${canonical(enforced)}, but limit is ${text(lim, name)}`;
  if (req.has(name) && req.get(name)! > e)
    return `maximum ${name} usage per ${type} is ${canonical(enforced)}, but request is ${text(req, name)}`;
  return undefined;
}

function ratioConstraint(type: string, name: string, enforced: string, req: Usage, lim: Usage): string | undefined {
  const r = req.get(name) ?? 0;
  const l = lim.get(name) ?? 0;
  const shown = canonical(enforced);
  if (r === 0)
    return `${name} max limit to request ratio per ${type} is ${shown}, but no request is specified or request is 0`;
  if (l === 0)
    return `${name} max limit to request ratio per ${type} is ${shown}, but no limit is specified or limit is 0`;
  const observed = l / r;
  if (observed * 1000 > milliValue(enforced))
    return `${name} max limit to request ratio per ${type} is ${shown}, but provided ratio is ${observed.toFixed(6)}`;
  return undefined;
}

/** Every constraint of one LimitRange item that requests/limits break. */
function checkItem(item: LimitRangeItem, req: Usage, lim: Usage): string[] {
  const out: (string | undefined)[] = [];
  for (const [k, v] of Object.entries(item.min ?? {})) out.push(minConstraint(item.type, k, String(v), req, lim));
  for (const [k, v] of Object.entries(item.max ?? {})) out.push(maxConstraint(item.type, k, String(v), req, lim));
  for (const [k, v] of Object.entries(item.maxLimitRequestRatio ?? {}))
    out.push(ratioConstraint(item.type, k, String(v), req, lim));
  return out.filter((e): e is string => e !== undefined);
}

/** Sets missing requests and limits of one container; returns the names it set of each. */
function mergeDefaults(c: Container, item: LimitRangeItem): { requests: string[]; limits: string[] } {
  const set = { requests: [] as string[], limits: [] as string[] };
  const res = (c.resources ??= {});
  for (const [which, from] of [
    ['limits', item.default],
    ['requests', item.defaultRequest],
  ] as const) {
    for (const [k, v] of Object.entries(from ?? {})) {
      const list: ResourceList = (res[which] ??= {});
      if (list[k] === undefined) {
        list[k] = v;
        set[which].push(k);
      }
    }
  }
  return set;
}

/** Applies Container defaults to every container; records what was set, as upstream's annotation. */
function applyDefaults(pod: Pod, item: LimitRangeItem): void {
  const notes: string[] = [];
  const kinds: [Container[] | undefined, string][] = [
    [pod.spec?.containers, 'container'],
    [pod.spec?.initContainers, 'init container'],
  ];
  for (const [list, label] of kinds)
    for (const c of list ?? []) {
      const set = mergeDefaults(c, item);
      if (set.requests.length) notes.push(`${set.requests.join(', ')} request for ${label} ${c.name}`);
      if (set.limits.length) notes.push(`${set.limits.join(', ')} limit for ${label} ${c.name}`);
    }
  if (notes.length === 0) return;
  const meta = (pod.metadata ??= {});
  meta.annotations = {
    ...meta.annotations,
    'kubernetes.io/limit-ranger': `LimitRanger plugin set: ${notes.join('; ')}`,
  };
}

function sumContainers(pod: Pod, which: 'requests' | 'limits'): Usage {
  const sum: Usage = new Map();
  for (const c of pod.spec?.containers ?? [])
    for (const [k, v] of toUsage(c.resources?.[which])) sum.set(k, (sum.get(k) ?? 0) + v);
  for (const c of pod.spec?.initContainers ?? [])
    for (const [k, v] of toUsage(c.resources?.[which])) if (v > (sum.get(k) ?? 0)) sum.set(k, v);
  return sum;
}

/** The constraint violations of a pod against one LimitRange. */
export function podLimitViolations(pod: Pod, lr: LimitRange): string[] {
  const errs: string[] = [];
  for (const item of lr.spec?.limits ?? []) {
    if (item.type === 'Container')
      for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])])
        errs.push(...checkItem(item, toUsage(c.resources?.requests), toUsage(c.resources?.limits)));
    else if (item.type === 'Pod')
      errs.push(...checkItem(item, sumContainers(pod, 'requests'), sumContainers(pod, 'limits')));
  }
  return errs;
}

/** The constraint violations of a claim's storage request against one LimitRange. */
export function claimLimitViolations(pvc: Obj, lr: LimitRange): string[] {
  const req = toUsage(((pvc.spec as Obj | undefined)?.resources as { requests?: ResourceList } | undefined)?.requests);
  const errs: string[] = [];
  for (const item of lr.spec?.limits ?? []) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    for (const [k, v] of Object.entries(item.min ?? {})) {
      const e = minConstraint(item.type, k, String(v), req, new Map());
      if (e !== undefined) errs.push(e);
    }
    for (const [k, v] of Object.entries(item.max ?? {})) {
      if (!req.has(k)) errs.push(`maximum ${k} usage per ${item.type} is ${canonical(v)}.  No request is specified`);
      else if (req.get(k)! > milliValue(v))
        errs.push(`maximum ${k} usage per ${item.type} is ${canonical(v)}, but request is ${text(req, k)}`);
    }
  }
  return errs;
}

/** Applies every Container LimitRange's defaults to a pod, as the mutating half of the plugin. */
export function applyLimitRangeDefaults(pod: Pod, ranges: LimitRange[]): void {
  for (const lr of ranges)
    for (const item of lr.spec?.limits ?? []) if (item.type === 'Container') applyDefaults(pod, item);
}

// upstream's utilerrors aggregate: one message as is, several as "[a, b]".
const aggregate = (errs: string[]): string => (errs.length === 1 ? errs[0]! : `[${[...new Set(errs)].join(', ')}]`);

/** Upstream's SupportsAttributes: pod creates and pods/resize updates, claim creates and updates; no other subresource. */
const applies = (a: Attributes): boolean =>
  a.object !== null &&
  ((a.resource === 'pods' && a.subresource === 'resize' && a.operation === 'UPDATE') ||
    (a.subresource === '' &&
      ((a.resource === 'pods' && a.operation === 'CREATE') ||
        (a.resource === 'persistentvolumeclaims' && (a.operation === 'CREATE' || a.operation === 'UPDATE')))));

/** The LimitRanger admission plugin over the namespace's LimitRanges (from an in-server informer). */
export function limitRanger(ranges: NamespaceObjectCache): AdmissionPlugin {
  const inNamespace = (a: Attributes): LimitRange[] => (applies(a) ? (ranges.list(a.namespace) as LimitRange[]) : []);
  return {
    name: 'LimitRanger',
    admit(a) {
      const lrs = inNamespace(a);
      if (lrs.length && a.resource === 'pods') applyLimitRangeDefaults(a.object as Pod, lrs);
    },
    validate(a) {
      const lrs = inNamespace(a);
      if (lrs.length === 0) return;
      const errs = lrs.flatMap((lr) =>
        a.resource === 'pods' ? podLimitViolations(a.object as Pod, lr) : claimLimitViolations(a.object!, lr),
      );
      if (errs.length) throw forbidden({ group: '', resource: a.resource }, a.name, aggregate(errs));
    },
  };
}
