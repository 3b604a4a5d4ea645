/**
 * Deployment helpers, like pkg/controller/deployment/util/deployment_util.go:
 * revisions and their annotations, the pod-template-hash, finding the new and
 * old ReplicaSets, maxSurge/maxUnavailable fenceposts, replica sums, and the
 * rollout predicates (complete, progressing, timed out).
 */
import { parseTimestamp, type Deployment, type PodTemplateSpec, type ReplicaSet } from '../../api/index.js';
import { canonical, dropNullish } from '../controllerutil/index.js';

export { canonical, computeHash } from '../controllerutil/index.js';

/** The label that tells apart the ReplicaSets (and pods) of one Deployment's templates. */
export const DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY = 'pod-template-hash';
/** The revision of a ReplicaSet (and of its Deployment). */
export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
/** Earlier revisions a ReplicaSet had before a rollback reused it. */
export const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
/** spec.replicas of the Deployment when the ReplicaSet was last scaled. */
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
/** spec.replicas + maxSurge of the Deployment when the ReplicaSet was last scaled. */
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
/** Upstream's cap on the revision-history annotation. */
export const MAX_REV_HISTORY_LENGTH_IN_CHARS = 2000;

// Annotations that belong to the Deployment or the ReplicaSet alone, never copied across.
const SKIP_COPY = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  'deprecated.deployment.rollback.to',
]);

/** The revision of an object, 0 when absent or malformed. */
export function revision(obj: ReplicaSet | Deployment): number {
  const v = Number(obj.metadata?.annotations?.[REVISION_ANNOTATION] ?? '0');
  return Number.isSafeInteger(v) ? v : 0;
}

/** The highest revision among `rss`. */
export function maxRevision(rss: readonly ReplicaSet[]): number {
  return rss.reduce((m, rs) => Math.max(m, revision(rs)), 0);
}

// Informer objects are never changed in place, and a template is not changed after it was compared, so the
// comparison text can be kept per template object: a sync compares the same cached ReplicaSets' templates again and again.
const withoutHashCache = new WeakMap<PodTemplateSpec, string>();

function withoutHash(t: PodTemplateSpec | undefined): string {
  if (t === undefined) return computeWithoutHash(t);
  let text = withoutHashCache.get(t);
  if (text === undefined) withoutHashCache.set(t, (text = computeWithoutHash(t)));
  return text;
}

function computeWithoutHash(t: PodTemplateSpec | undefined): string {
  const copy = (dropNullish(structuredClone(t ?? {})) ?? {}) as PodTemplateSpec;
  const labels = copy.metadata?.labels;
  if (labels !== undefined) {
    delete labels[DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY];
    if (Object.keys(labels).length === 0) delete copy.metadata!.labels;
  }
  if (copy.metadata !== undefined && Object.keys(copy.metadata).length === 0) delete copy.metadata;
  return canonical(copy);
}

/** Whether two templates are equal but for the pod-template-hash label (EqualIgnoreHash). */
export function equalIgnoreHash(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  return withoutHash(a) === withoutHash(b);
}

const created = (rs: ReplicaSet): number => parseTimestamp(rs.metadata?.creationTimestamp) ?? 0;
/** Oldest first, ties by name (ReplicaSetsByCreationTimestamp). */
export const byCreation = (a: ReplicaSet, b: ReplicaSet): number =>
  created(a) - created(b) || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
/** Lowest revision first, ties by creation (ReplicaSetsByRevision). */
export const byRevision = (a: ReplicaSet, b: ReplicaSet): number => revision(a) - revision(b) || byCreation(a, b);

/** The oldest ReplicaSet whose template matches the Deployment's (FindNewReplicaSet). */
export function findNewReplicaSet(d: Deployment, rss: readonly ReplicaSet[]): ReplicaSet | undefined {
  return [...rss].sort(byCreation).find((rs) => equalIgnoreHash(rs.spec?.template, d.spec?.template));
}

/** Every ReplicaSet but the new one (FindOldReplicaSets' allOldRSs). */
export function findOldReplicaSets(d: Deployment, rss: readonly ReplicaSet[]): ReplicaSet[] {
  const newRS = findNewReplicaSet(d, rss);
  return rss.filter((rs) => rs.metadata?.uid !== newRS?.metadata?.uid);
}

/** spec.replicas of a ReplicaSet. */
export const replicasOf = (rs: ReplicaSet | undefined): number => rs?.spec?.replicas ?? 0;
/** ReplicaSets that want pods (FilterActiveReplicaSets). */
export const filterActiveReplicaSets = (rss: readonly (ReplicaSet | undefined)[]): ReplicaSet[] =>
  rss.filter((rs): rs is ReplicaSet => rs !== undefined && replicasOf(rs) > 0);

const sum = (rss: readonly (ReplicaSet | undefined)[], f: (rs: ReplicaSet) => number | undefined): number =>
  rss.reduce((n, rs) => n + (rs === undefined ? 0 : (f(rs) ?? 0)), 0);
/** Sum of spec.replicas. */
export const getReplicaCountForReplicaSets = (rss: readonly (ReplicaSet | undefined)[]): number =>
  sum(rss, (rs) => rs.spec?.replicas);
/** Sum of status.replicas. */
export const getActualReplicaCountForReplicaSets = (rss: readonly (ReplicaSet | undefined)[]): number =>
  sum(rss, (rs) => rs.status?.replicas);
/** Sum of status.readyReplicas. */
export const getReadyReplicaCountForReplicaSets = (rss: readonly (ReplicaSet | undefined)[]): number =>
  sum(rss, (rs) => rs.status?.readyReplicas);
/** Sum of status.availableReplicas. */
export const getAvailableReplicaCountForReplicaSets = (rss: readonly (ReplicaSet | undefined)[]): number =>
  sum(rss, (rs) => rs.status?.availableReplicas);

/** An int-or-percent against `total`, like intstr.GetScaledValueFromIntOrPercent. */
export function scaledValue(v: number | string | undefined, total: number, roundUp: boolean): number {
  if (v === undefined) return 0;
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  if (m === null) {
    const n = Number(v);
    if (Number.isInteger(n)) return n;
    throw new Error(`invalid value for IntOrString: invalid value "${v}"`);
  }
  const x = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

const isRollingUpdate = (d: Deployment): boolean => (d.spec?.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
const desired = (d: Deployment): number => d.spec?.replicas ?? 1;

/** maxSurge and maxUnavailable as numbers; both zero becomes maxUnavailable 1 (ResolveFenceposts). */
export function resolveFenceposts(d: Deployment): { surge: number; unavailable: number } {
  const ru = d.spec?.strategy?.rollingUpdate;
  const surge = scaledValue(ru?.maxSurge ?? '25%', desired(d), true);
  let unavailable = scaledValue(ru?.maxUnavailable ?? '25%', desired(d), false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

/** MaxSurge: 0 unless RollingUpdate. */
export const maxSurge = (d: Deployment): number => (isRollingUpdate(d) ? resolveFenceposts(d).surge : 0);

/** MaxUnavailable: 0 unless RollingUpdate with replicas; never above spec.replicas. */
export function maxUnavailable(d: Deployment): number {
  if (!isRollingUpdate(d) || desired(d) === 0) return 0;
  return Math.min(resolveFenceposts(d).unavailable, desired(d));
}

/** How many replicas the new ReplicaSet may have now (NewRSNewReplicas). */
export function newRSNewReplicas(
  d: Deployment,
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet,
): number {
  if (!isRollingUpdate(d)) return desired(d);
  const current = getReplicaCountForReplicaSets(allRSs);
  const maxTotal = desired(d) + maxSurge(d);
  if (current >= maxTotal) return replicasOf(newRS);
  return replicasOf(newRS) + Math.min(maxTotal - current, desired(d) - replicasOf(newRS));
}

/** Whether `rs` was last scaled for a different spec.replicas or surge (ReplicasAnnotationsNeedUpdate). */
export function replicasAnnotationsNeedUpdate(rs: ReplicaSet, desiredReplicas: number, maxReplicas: number): boolean {
  const a = rs.metadata?.annotations ?? {};
  return (
    a[DESIRED_REPLICAS_ANNOTATION] !== String(desiredReplicas) || a[MAX_REPLICAS_ANNOTATION] !== String(maxReplicas)
  );
}

/** Sets the desired/max replicas annotations; reports a change. */
export function setReplicasAnnotations(rs: ReplicaSet, desiredReplicas: number, maxReplicas: number): boolean {
  if (!replicasAnnotationsNeedUpdate(rs, desiredReplicas, maxReplicas)) return false;
  const md = (rs.metadata ??= {});
  md.annotations = {
    ...md.annotations,
    [DESIRED_REPLICAS_ANNOTATION]: String(desiredReplicas),
    [MAX_REPLICAS_ANNOTATION]: String(maxReplicas),
  };
  return true;
}

/** An integer annotation of `rs`, when present and valid. */
export function intAnnotation(rs: ReplicaSet, key: string): number | undefined {
  const v = rs.metadata?.annotations?.[key];
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * Stamps the new ReplicaSet with the Deployment's annotations and `newRevision`;
 * a ReplicaSet brought back by a rollback keeps its earlier revisions in the
 * history annotation (SetNewReplicaSetAnnotations). Reports a change.
 */
export function setNewReplicaSetAnnotations(
  d: Deployment,
  rs: ReplicaSet,
  newRevision: number,
  exists: boolean,
): boolean {
  const md = (rs.metadata ??= {});
  const a = (md.annotations = { ...md.annotations });
  let changed = false;
  for (const [k, v] of Object.entries(d.metadata?.annotations ?? {})) {
    if (SKIP_COPY.has(k) || a[k] === v) continue;
    a[k] = v;
    changed = true;
  }
  const had = a[REVISION_ANNOTATION];
  const oldRevision = had === undefined ? 0 : Number(had);
  if (!Number.isSafeInteger(oldRevision)) return changed;
  if (oldRevision < newRevision) {
    a[REVISION_ANNOTATION] = String(newRevision);
    changed = true;
    if (had !== undefined) {
      const history = (a[REVISION_HISTORY_ANNOTATION] ?? '').split(',').filter((s) => s !== '');
      history.push(had);
      while (history.join(',').length > MAX_REV_HISTORY_LENGTH_IN_CHARS && history.length > 1) history.shift();
      a[REVISION_HISTORY_ANNOTATION] = history.join(',');
    }
  }
  if (!exists && setReplicasAnnotations(rs, desired(d), desired(d) + maxSurge(d))) changed = true;
  return changed;
}

function dropZero(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map(dropZero);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const y = dropZero(x);
      if (y !== undefined) out[k] = y;
    }
    return out;
  }
  return v === 0 || v === '' || v === null ? undefined : v;
}

/** Equal but for key order and zero values, the way Go's omitempty encoding would see two statuses. */
export function semanticEqual(a: unknown, b: unknown): boolean {
  return canonical(dropZero(a) ?? {}) === canonical(dropZero(b) ?? {});
}
