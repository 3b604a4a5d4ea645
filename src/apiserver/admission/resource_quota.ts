/**
 * ResourceQuota admission, as upstream's plugin/pkg/admission/resourcequota:
 * a create is charged against every quota of its namespace that selects it,
 * and so is the growth an update brings to what Services and claims charge
 * (a Service turned NodePort, a claim's storage request raised) and a
 * pods/resize raising a container's cpu or memory, as upstream's evaluators
 * handle updates for those three. A quota counts only once the
 * resourcequota controller has filled status.hard, as upstream (a new quota
 * limits nothing until then).
 * Each charge is a compare-and-swap on the quota's status.used (storage's
 * guaranteedUpdate, retried on conflict), so concurrent creates cannot both
 * take the last unit; a charge past status.hard is a 403 `exceeded quota`, a
 * cpu or memory quota on a container that does not set it a 403 `failed
 * quota: ... must specify`. A namespace without quotas costs one map lookup.
 * The resourcequota controller later recomputes used from the live objects.
 */
import {
  forbidden,
  isNotFoundError,
  podConstraintViolation,
  prettyPrint,
  quotaSelects,
  RESOURCES,
  toResourceList,
  toUsage,
  usageOf,
  type Pod,
  type ResourceQuota,
  type Usage,
} from '../../api/index.js';
import type { Clock } from '../../clock/index.js';
import type { Obj } from '../object.js';
import type { GenericStore } from '../registry/store.js';
import type { AdmissionPlugin, Attributes } from './chain.js';
import type { NamespaceObjectCache } from './namespace_cache.js';

const groupOf = (resource: string): string => RESOURCES.find((r) => r.resource === resource)?.group ?? '';

/** The part of `usage` a quota limits (by status.hard), or undefined when the quota does not select the object. */
function charged(rq: ResourceQuota, group: string, a: Attributes, usage: Usage): Usage | undefined {
  if (!quotaSelects(rq, group, a.resource, a.object!)) return undefined;
  const hard = rq.status?.hard ?? {};
  const delta: Usage = new Map();
  for (const k of Object.keys(hard)) if (usage.has(k)) delta.set(k, usage.get(k)!);
  return delta;
}

/** Checks one quota against a charge; throws the 403 upstream returns, else returns the new status.used. */
function charge(rq: ResourceQuota, group: string, a: Attributes, usage: Usage): ResourceQuota | undefined {
  const name = rq.metadata?.name ?? '';
  const deny = (why: string) => forbidden({ group, resource: a.resource }, a.name, why);
  const delta = charged(rq, group, a, usage);
  if (delta === undefined) return undefined;
  // Like upstream's checkRequest, the limits are status.hard: a quota the controller has not synced yet limits nothing.
  const hardList = rq.status?.hard;
  if (hardList === undefined) return undefined;
  if (group === '' && a.resource === 'pods') {
    const why = podConstraintViolation(a.object as Pod, Object.keys(hardList));
    if (why !== '') throw deny(`failed quota: ${name}: ${why}`);
  }
  if (delta.size === 0) return undefined;
  const hard = toUsage(hardList);
  const used = toUsage(rq.status?.used);
  const missing = [...delta.keys()].filter((k) => !used.has(k));
  if (missing.length) throw deny(`status unknown for quota: ${name}, resources: ${missing.sort().join(',')}`);
  const failed = [...delta.keys()].filter((k) => used.get(k)! + delta.get(k)! > hard.get(k)!);
  if (failed.length) {
    const pick = (u: Usage): Usage => new Map(failed.map((k) => [k, u.get(k)!]));
    throw deny(
      `exceeded quota: ${name}, requested: ${prettyPrint(pick(delta))}, used: ${prettyPrint(pick(used))}, limited: ${prettyPrint(pick(hard))}`,
    );
  }
  for (const [k, v] of delta) used.set(k, used.get(k)! + v);
  return { ...rq, status: { ...rq.status, used: toResourceList(used) } };
}

/**
 * Whether upstream's evaluator for the resource handles an UPDATE of it: Services and PersistentVolumeClaims, and
 * pods only through pods/resize (the pod evaluator's Handles under InPlacePodVerticalScaling).
 */
const handlesUpdate = (group: string, resource: string, subresource: string): boolean =>
  group === '' &&
  (subresource === ''
    ? resource === 'services' || resource === 'persistentvolumeclaims'
    : resource === 'pods' && subresource === 'resize');

/** `now` minus `before`, keeping only what grew (quota.SubtractWithNonNegativeResult, then RemoveZeros). */
export function growth(now: Usage, before: Usage): Usage {
  const out: Usage = new Map();
  for (const [k, v] of now) {
    const d = v - (before.get(k) ?? 0);
    if (d > 0) out.set(k, d);
  }
  return out;
}

/** The ResourceQuota admission plugin: quotas from an in-server informer, charges written to the quota store. */
export function resourceQuotaAdmission(
  quotas: NamespaceObjectCache,
  store: () => GenericStore,
  clock: Clock,
): AdmissionPlugin {
  return {
    name: 'ResourceQuota',
    async validate(a) {
      if (a.object === null) return;
      const group = groupOf(a.resource);
      const counted =
        (a.operation === 'CREATE' && a.subresource === '') ||
        (a.operation === 'UPDATE' && handlesUpdate(group, a.resource, a.subresource));
      if (!counted) return;
      const listed = quotas.list(a.namespace) as ResourceQuota[];
      if (listed.length === 0) return;
      let usage = usageOf(group, a.resource, a.object, clock.now());
      // An update is charged what it adds, unless it creates (no old resourceVersion): upstream's non-negative delta.
      const old = a.oldObject;
      if (
        a.operation === 'UPDATE' &&
        old !== null &&
        (old.metadata as { resourceVersion?: string } | undefined)?.resourceVersion
      )
        usage = growth(usage, usageOf(group, a.resource, old, clock.now()));
      if (a.operation === 'UPDATE' && usage.size === 0) return;
      for (const cached of listed) {
        // Reject from the cache when it already says no; the charge itself re-checks on the stored quota.
        const next = charge(cached, group, a, usage);
        if (next === undefined || a.dryRun) continue;
        try {
          await store().guaranteedUpdate(
            a.namespace,
            cached.metadata!.name!,
            async (cur) => (charge(cur as ResourceQuota, group, a, usage) ?? cur) as Obj,
            { allowCreate: false, dryRun: false },
          );
        } catch (err) {
          // A quota deleted since the cache saw it limits nothing.
          if (!isNotFoundError(err)) throw err;
        }
      }
    },
  };
}
