// metadata.managedFields entries: decoding into field sets, encoding back in upstream's order.
import { FieldSet } from './fieldset.js';

/** One metadata.managedFields entry (metav1.ManagedFieldsEntry). */
export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

/** A manager's decoded state: who, how, and the fields it owns. */
export interface ManagerState {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  subresource?: string;
  time?: string;
  set: FieldSet;
}

/**
 * The identity of a manager entry, like upstream's BuildManagerIdentifier: name, operation and
 * subresource, plus apiVersion for Update entries only (Apply is versionless); never the time.
 */
export function managerKey(m: Pick<ManagerState, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  return JSON.stringify([m.manager, m.operation, m.operation === 'Update' ? m.apiVersion : '', m.subresource ?? '']);
}

/** Decodes metadata.managedFields; malformed entries are dropped rather than failing the request. */
export function decodeManagedFields(entries: unknown): Map<string, ManagerState> {
  const out = new Map<string, ManagerState>();
  if (!Array.isArray(entries)) return out;
  for (const e of entries as Partial<ManagedFieldsEntry>[]) {
    if (typeof e !== 'object' || e === null || typeof e.manager !== 'string') continue;
    if (e.operation !== 'Apply' && e.operation !== 'Update') continue;
    const state: ManagerState = {
      manager: e.manager,
      operation: e.operation,
      apiVersion: e.apiVersion ?? '',
      set: FieldSet.fromFieldsV1(e.fieldsV1),
      ...(e.subresource ? { subresource: e.subresource } : {}),
      ...(e.time ? { time: e.time } : {}),
    };
    const key = managerKey(state);
    const prev = out.get(key);
    // Duplicate entries for one identity are merged, as upstream does when decoding.
    if (prev) prev.set = prev.set.union(state.set);
    else out.set(key, state);
  }
  return out;
}

/** Encodes managers in upstream's order: by operation, then time, manager, apiVersion, subresource. */
export function encodeManagedFields(managers: Map<string, ManagerState>): ManagedFieldsEntry[] {
  const list = [...managers.values()].filter((m) => !m.set.empty());
  const seconds = (t?: string): number => (t ? Math.floor(Date.parse(t) / 1000) : 0);
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  list.sort((p, q) => cmp(p.operation, q.operation) || seconds(p.time) - seconds(q.time) || cmp(p.manager, q.manager)
    || cmp(p.apiVersion, q.apiVersion) || cmp(p.subresource ?? '', q.subresource ?? ''));
  return list.map((m) => ({
    manager: m.manager,
    operation: m.operation,
    apiVersion: m.apiVersion,
    ...(m.time ? { time: m.time } : {}),
    fieldsType: 'FieldsV1' as const,
    fieldsV1: m.set.toFieldsV1(),
    ...(m.subresource ? { subresource: m.subresource } : {}),
  }));
}

/** Formats a time like metav1.Time: RFC 3339 in UTC with whole seconds. */
export function formatTime(now: Date | string | number): string {
  return new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Fields the API server sets itself, never owned by a manager (upstream's stripMetaManager). */
export const STRIPPED_FIELDS: FieldSet = (() => {
  const s = new FieldSet();
  s.insert(['f:apiVersion']);
  s.insert(['f:kind']);
  s.insert(['f:metadata']);
  for (const f of ['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion']) {
    s.insert(['f:metadata', `f:${f}`]);
  }
  return s;
})();
