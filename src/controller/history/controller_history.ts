/**
 * ControllerRevision history, like upstream's pkg/controller/history: a
 * DaemonSet or StatefulSet snapshots each template it has run as a
 * ControllerRevision named `<parent>-<hash>`, numbered by revision. The
 * current revision is the one whose data equals the parent's patch; a
 * rollback renumbers an old revision instead of creating a copy, and a hash
 * collision bumps the parent's collisionCount.
 */
import type { ControllerRevision, KubeObject, PodTemplateSpec } from '../../api/index.js';
import { isAlreadyExistsError, type ResourceClient } from '../../client/index.js';
import { canonical, computeHash, newControllerRef } from '../controllerutil/index.js';

/** The label ControllerRevisions and the pods of their template carry: the revision's hash. */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller-revision-hash';

/** ControllerRevisionName: `<prefix>-<hash>`, the prefix cut to keep the name within 253 characters. */
export function controllerRevisionName(prefix: string, hash: string): string {
  return `${prefix.length > 223 ? prefix.slice(0, 223) : prefix}-${hash}`;
}

/** The patch a revision stores: the parent's spec.template, replaced whole when applied (as upstream's getPatch). */
export function templatePatch(template: PodTemplateSpec | undefined): Record<string, unknown> {
  return { spec: { template: { ...(template ?? {}), $patch: 'replace' } } };
}

/** The template a revision's data restores, or undefined when the data holds none. */
export function templateOf(rev: ControllerRevision): PodTemplateSpec | undefined {
  const t = (rev.data?.spec as { template?: PodTemplateSpec & { $patch?: string } } | undefined)?.template;
  if (t === undefined) return undefined;
  const { $patch: _directive, ...template } = t;
  return template;
}

/** Whether two revisions hold the same data (history.EqualRevision). */
export const equalRevision = (a: ControllerRevision, b: ControllerRevision): boolean =>
  canonical(a.data ?? {}) === canonical(b.data ?? {});

/** Revisions by number, then by creation, like history.SortControllerRevisions. */
export function sortControllerRevisions(revs: ControllerRevision[]): ControllerRevision[] {
  return revs.sort(
    (a, b) =>
      a.revision - b.revision ||
      (a.metadata?.creationTimestamp ?? '').localeCompare(b.metadata?.creationTimestamp ?? '') ||
      (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''),
  );
}

/** The highest revision number, 0 with none. */
export const maxRevision = (revs: readonly ControllerRevision[]): number =>
  revs.reduce((m, r) => Math.max(m, r.revision), 0);

/** A new revision of `parent`'s `data`, labelled like its template plus the hash, controlled by the parent. */
export function newControllerRevision(
  parent: KubeObject,
  kind: { apiVersion: string; kind: string },
  templateLabels: Record<string, string> | undefined,
  data: Record<string, unknown>,
  revision: number,
  collisionCount: number | undefined,
): ControllerRevision {
  const hash = computeHash(data, collisionCount);
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: controllerRevisionName(parent.metadata!.name!, hash),
      namespace: parent.metadata!.namespace!,
      labels: { ...(templateLabels ?? {}), [CONTROLLER_REVISION_HASH_LABEL]: hash },
      ownerReferences: [newControllerRef(parent, kind)],
    },
    data,
    revision,
  };
}

/** The outcome of reconciling a parent's history. */
export interface HistoryResult {
  /** The revision of the parent's current template. */
  current: ControllerRevision;
  /** Every other revision the parent owns. */
  old: ControllerRevision[];
  /** Set when a hash collision needs the parent's status.collisionCount raised to this before retrying. */
  collisionCount?: number;
}

/**
 * Finds or makes the current revision among `owned` (the parent's revisions), like the controllers'
 * constructHistory/getStatefulSetRevisions: an equal revision that is not the newest is renumbered to the newest,
 * duplicates beyond the first are deleted, and a missing one is created as max+1.
 */
export async function reconcileHistory(
  client: ResourceClient<ControllerRevision>,
  parent: KubeObject,
  kind: { apiVersion: string; kind: string },
  templateLabels: Record<string, string> | undefined,
  data: Record<string, unknown>,
  owned: readonly ControllerRevision[],
  collisionCount: number,
): Promise<HistoryResult> {
  const namespace = parent.metadata!.namespace!;
  const revs = sortControllerRevisions([...owned]);
  const max = maxRevision(revs);
  const wanted = newControllerRevision(parent, kind, templateLabels, data, max + 1, collisionCount);
  const equal = revs.filter((r) => equalRevision(r, wanted));
  let current: ControllerRevision;
  if (equal.length > 0) {
    current = equal[equal.length - 1];
    for (const dup of equal.slice(0, -1)) await client.delete(dup.metadata!.name!, { namespace });
    if (current.revision !== max) current = await client.update({ ...current, revision: max + 1 }, { namespace });
  } else {
    try {
      current = await client.create(wanted, { namespace });
    } catch (err) {
      if (!isAlreadyExistsError(err)) throw err;
      const existing = await client.get(wanted.metadata!.name!, { namespace });
      const ours = existing.metadata?.ownerReferences?.some((r) => r.controller && r.uid === parent.metadata?.uid);
      if (!ours || !equalRevision(existing, wanted))
        return { current: wanted, old: revs, collisionCount: collisionCount + 1 };
      current = existing;
    }
  }
  const currentName = current.metadata?.name;
  return { current, old: revs.filter((r) => r.metadata?.name !== currentName) };
}

/** A DaemonSet or StatefulSet as its history sees it: a template and a collision count. */
type HistoryParent = KubeObject & {
  spec?: { template?: PodTemplateSpec };
  status?: { collisionCount?: number };
};

/**
 * The parent's history for its current template (reconcileHistory over the revisions it controls); on a hash
 * collision the parent's status.collisionCount is raised and the sync fails, to retry under the new hash.
 */
export async function parentHistory<T extends HistoryParent>(
  client: ResourceClient<ControllerRevision>,
  parentClient: ResourceClient<T>,
  parent: T,
  kind: { apiVersion: string; kind: string },
  owned: readonly ControllerRevision[],
): Promise<HistoryResult> {
  const count = parent.status?.collisionCount ?? 0;
  const template = parent.spec?.template;
  const h = await reconcileHistory(
    client,
    parent,
    kind,
    template?.metadata?.labels,
    templatePatch(template),
    owned,
    count,
  );
  if (h.collisionCount === undefined) return h;
  const status = { ...(parent.status ?? {}), collisionCount: h.collisionCount };
  await parentClient.updateStatus({ ...parent, status }, { namespace: parent.metadata!.namespace! });
  throw new Error(
    `hash collision for ${kind.kind} ${parent.metadata?.name}: collisionCount raised to ${h.collisionCount}`,
  );
}

/** Deletes the oldest of `old` beyond `limit`, skipping those `inUse` names (revisions live pods still run). */
export async function truncateHistory(
  client: ResourceClient<ControllerRevision>,
  old: readonly ControllerRevision[],
  limit: number,
  inUse: ReadonlySet<string>,
): Promise<void> {
  const candidates = sortControllerRevisions(
    old.filter(
      (r) =>
        !inUse.has(r.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '') && !inUse.has(r.metadata?.name ?? ''),
    ),
  );
  const excess = candidates.length - Math.max(0, limit);
  for (const r of candidates.slice(0, Math.max(0, excess)))
    await client.delete(r.metadata!.name!, { namespace: r.metadata!.namespace! });
}
