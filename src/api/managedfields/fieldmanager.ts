// Server-side apply and managed-fields tracking for ordinary writes, following upstream's
// fieldmanager (managedFieldsUpdater, stripMetaManager) over structured-merge-diff's Updater.
import type { PatchSchemaLookup } from '../strategicpatch/index.js';
import { FieldSet } from './fieldset.js';
import { ApplyConflictError, collectConflicts } from './conflicts.js';
import { createdFieldsV1 } from './created.js';
import { jsonEqual } from './json.js';
import { conflictsAllowedByLastApplied, KUBECTL_APPLY_MANAGER, syncLastApplied } from './lastapplied.js';
import {
  decodeManagedFields,
  disown,
  encodeManagedFields,
  formatTime,
  managerKey,
  ownsAny,
  ownsNothing,
  STRIPPED_FIELDS,
  type ManagedFieldsEntry,
  type ManagerState,
} from './managers.js';
import { mergeValues, removeFields } from './merge.js';
import { compare, compareValues, rootContext, toFieldSet, type Comparison, type TypeContext } from './typed.js';

type Obj = Record<string, unknown>;

/** Options shared by apply and update. */
export interface FieldManagerOptions {
  /** The stored object, or null when the write creates it. */
  live: object | null;
  /** The field manager name (the `fieldManager` query parameter, or derived from the user agent). */
  manager: string;
  /** List/map semantics of the kind (from strategicpatch's patchSchemaFor); undefined for unknown kinds. */
  schema: PatchSchemaLookup | undefined;
  /** The time recorded on entries whose fields changed. */
  now: Date | string | number;
  /** The subresource written, e.g. "status"; recorded on the entry like upstream. */
  subresource?: string;
  /** Field paths the strategy resets and nobody may own here, e.g. [['status']] on the main resource. */
  resetFields?: readonly (readonly string[])[];
}

/** The outcome of an apply or update: the object to store (with metadata.managedFields) and its entries. */
export interface FieldManagerResult {
  object: Obj;
  managedFields: ManagedFieldsEntry[];
  /** False when the write leaves the object (apart from managedFields) as it was. */
  changed: boolean;
}

/**
 * Server-side apply (application/apply-patch+yaml): merges `applied` into the live object, makes
 * `manager` own exactly the applied fields, removes fields it owned before and no longer applies
 * (unless someone else owns them), and throws ApplyConflictError when it would change fields that
 * other managers own, unless `force`.
 */
export function serverSideApply(opts: FieldManagerOptions & { applied: object; force: boolean }): FieldManagerResult {
  const ctx = rootContext(opts.schema);
  const live = withoutManagedFields(opts.live ?? {});
  const config = withoutManagedFields(opts.applied);
  const managers = decodeManagedFields(managedFieldsOf(opts.live));
  const apiVersion = apiVersionOf(config) || apiVersionOf(live);
  if (opts.live !== null && managers.size === 0) adoptUnmanaged(managers, live, ctx, opts);
  const self = { manager: opts.manager, operation: 'Apply' as const, apiVersion, subresource: opts.subresource };
  const key = managerKey(self);
  const last = managers.get(key);

  let merged = mergeValues(live, config, ctx) as Obj;
  const entry: ManagerState = {
    ...self,
    time: last?.time,
    set: filterOwned(toFieldSet(config, ctx), opts.resetFields),
  };
  managers.set(key, entry);
  if (last && !last.set.empty()) merged = prune(merged, last.set, entry.set, managers, ctx);

  const { comparison, same } = compareValues(live, merged, ctx);
  const cmp = filterComparison(comparison, opts.resetFields);
  const byKubectl = opts.manager === KUBECTL_APPLY_MANAGER && opts.live !== null;
  // Like upstream's lastAppliedManager: kubectl's apply may take what its client-side apply set.
  const allowed = byKubectl ? () => conflictsAllowedByLastApplied(live, apiVersion, ctx) : undefined;
  transferOwnership(managers, key, cmp, opts.force, allowed);
  // Like upstream, a no-op apply keeps the entry's time; a first apply still records one.
  if (!same || entry.time === undefined) entry.time = formatTime(opts.now);
  // The merge shares values with the live object and the config; the result must own its own.
  const result = structuredClone(merged);
  // Like upstream's lastAppliedUpdater, after ownership is settled; not a field anyone gains.
  const annotationChanged = byKubectl && syncLastApplied(result, config);
  return finish(result, managers, !same || annotationChanged);
}

/**
 * Records an ordinary write (create, update, patch) by `manager` with operation Update: fields this
 * write added or changed move to it from other managers, removed fields leave every manager.
 * The result's object shares its values (all but metadata) with `updated`.
 */
export function updateManagedFields(
  opts: FieldManagerOptions & { updated: object; apiVersion?: string },
): FieldManagerResult {
  const ctx = rootContext(opts.schema);
  const updated = withoutManagedFields(opts.updated);
  const sent = managedFieldsOf(opts.updated);
  if (opts.live === null && !Array.isArray(sent)) return created(opts, updated, ctx);
  const live = withoutManagedFields(opts.live ?? {});
  // An explicit empty list resets managed fields, like upstream; otherwise a client-supplied list
  // replaces the live one (so clients can edit it), and without one the live entries carry over.
  if (Array.isArray(sent) && sent.length === 0) return finish(updated, new Map(), !jsonEqual(live, updated));
  const managers = decodeManagedFields(Array.isArray(sent) ? sent : managedFieldsOf(opts.live));

  const apiVersion = opts.apiVersion ?? (apiVersionOf(updated) || apiVersionOf(live));
  const { comparison, same } = compareValues(live, updated, ctx);
  const cmp = filterComparison(comparison, opts.resetFields);
  transferOwnership(managers, undefined, cmp, true);
  const touched = cmp.added.union(cmp.modified);
  if (!touched.empty()) {
    const self = { manager: opts.manager, operation: 'Update' as const, apiVersion, subresource: opts.subresource };
    const key = managerKey(self);
    const prev = managers.get(key);
    managers.set(key, { ...self, time: formatTime(opts.now), set: prev ? prev.set.union(touched) : touched });
  }
  return finish(updated, managers, !same);
}

// A create without client-sent managedFields: the creator owns every field it set. Same result as
// the general path with an empty live object, without comparing or decoding anything.
function created(
  opts: FieldManagerOptions & { apiVersion?: string },
  updated: Obj,
  ctx: TypeContext,
): FieldManagerResult {
  const fieldsV1 = createdFieldsV1(updated, ctx, opts.resetFields);
  const managedFields: ManagedFieldsEntry[] = [];
  if (fieldsV1 !== undefined) {
    managedFields.push({
      manager: opts.manager,
      operation: 'Update',
      apiVersion: opts.apiVersion ?? apiVersionOf(updated),
      time: formatTime(opts.now),
      fieldsType: 'FieldsV1',
      fieldsV1,
      ...(opts.subresource ? { subresource: opts.subresource } : {}),
    });
  }
  // Like canonicalJSON(updated) !== '{}'.
  let changed = false;
  for (const _ in updated) {
    changed = true;
    break;
  }
  return withManagedFields(updated, managedFields, changed);
}

/**
 * Like upstream, the first apply to an object without managedFields credits its existing fields to
 * a "before-first-apply" Update manager, so the apply conflicts with them instead of silently taking them.
 */
function adoptUnmanaged(
  managers: Map<string, ManagerState>,
  live: Obj,
  ctx: TypeContext,
  opts: FieldManagerOptions,
): void {
  const cmp = filterComparison(compare({}, live, ctx), opts.resetFields);
  const set = cmp.added.union(cmp.modified);
  if (set.empty()) return;
  const m: ManagerState = {
    manager: 'before-first-apply',
    operation: 'Update',
    apiVersion: apiVersionOf(live),
    time: formatTime(opts.now),
    set,
  };
  managers.set(managerKey(m), m);
}

// Removes fields the applier owned last time but no longer applies, unless any manager still owns them.
function prune(
  merged: Obj,
  last: FieldSet,
  applied: FieldSet,
  managers: Map<string, ManagerState>,
  ctx: TypeContext,
): Obj {
  // Everything still applied stays, so without fields dropped from the config there is nothing to do.
  if (last.difference(applied.withNamedFieldsAsMembers()).empty()) return merged;
  let owned = new FieldSet();
  for (const m of managers.values()) owned = owned.union(m.set);
  const toRemove = last.difference(owned.withNamedFieldsAsMembers());
  if (toRemove.empty()) return merged;
  return (removeFields(merged, toRemove, ctx) as Obj | undefined) ?? {};
}

/**
 * SMD's Updater.update: other managers lose removed fields, and changed fields unless `force` is
 * false (then conflicts throw, but for fields in the `allowed` set, which are taken as if forced).
 */
function transferOwnership(
  managers: Map<string, ManagerState>,
  selfKey: string | undefined,
  cmp: Comparison,
  force: boolean,
  allowed?: () => FieldSet | undefined,
): void {
  const changed = cmp.modified.union(cmp.added);
  // Managers owning none of the changed or removed fields are left as they are (often not even decoded).
  const owners: ManagerState[] = [];
  if (!changed.empty()) {
    for (const [k, m] of managers) if (k !== selfKey && ownsAny(m, changed)) owners.push(m);
  }
  if (!force && owners.length > 0) {
    let conflicts = owners.map((m) => ({ manager: m, paths: m.set.intersection(changed).paths() }));
    const free = allowed?.();
    if (free !== undefined) {
      conflicts = conflicts
        .map((c) => ({ ...c, paths: c.paths.filter((p) => !free.has(p)) }))
        .filter((c) => c.paths.length > 0);
    }
    if (conflicts.length > 0) throw new ApplyConflictError(collectConflicts(conflicts));
  }
  for (const m of owners) disown(m, changed);
  const anyRemoved = !cmp.removed.empty();
  for (const [k, m] of managers) {
    if (k !== selfKey && anyRemoved && ownsAny(m, cmp.removed)) disown(m, cmp.removed);
    if (ownsNothing(m)) managers.delete(k);
  }
}

// Drops fields nobody may own: server-set metadata, plus whole subtrees the strategy resets.
function filterOwned(set: FieldSet, resetFields: FieldManagerOptions['resetFields']): FieldSet {
  const out = set.difference(STRIPPED_FIELDS);
  for (const path of resetFields ?? []) {
    let node: FieldSet | undefined = out;
    for (let i = 0; i < path.length - 1 && node; i++) node = node.children.get(`f:${path[i]}`);
    const last = `f:${path[path.length - 1]}`;
    node?.members.delete(last);
    node?.children.delete(last);
  }
  return out;
}

function filterComparison(c: Comparison, resetFields: FieldManagerOptions['resetFields']): Comparison {
  return {
    added: filterOwned(c.added, resetFields),
    modified: filterOwned(c.modified, resetFields),
    removed: filterOwned(c.removed, resetFields),
  };
}

function finish(object: Obj, managers: Map<string, ManagerState>, changed: boolean): FieldManagerResult {
  return withManagedFields(object, encodeManagedFields(managers), changed);
}

function withManagedFields(object: Obj, managedFields: ManagedFieldsEntry[], changed: boolean): FieldManagerResult {
  const metadata = { ...((object.metadata as Obj | undefined) ?? {}) };
  if (managedFields.length > 0) metadata.managedFields = managedFields;
  return { object: { ...object, metadata }, managedFields, changed };
}

function managedFieldsOf(obj: object | null): unknown {
  return (obj as { metadata?: { managedFields?: unknown } } | null)?.metadata?.managedFields;
}

// A shallow copy without metadata.managedFields, which never takes part in merges or comparisons;
// values are shared with `obj`, so nothing here may modify them.
function withoutManagedFields(obj: object): Obj {
  const md = (obj as Obj).metadata;
  if (md === null || typeof md !== 'object' || !('managedFields' in md)) return obj as Obj;
  const { managedFields: _, ...rest } = md as Obj;
  return { ...(obj as Obj), metadata: rest };
}

function apiVersionOf(obj: Obj): string {
  return typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
}
