// metadata.managedFields entries: decoding into field sets, encoding back in upstream's order.
import { FieldSet } from './fieldset.js';
import {
  canonicalFieldsV1Copy,
  copyFieldsV1,
  fieldsV1Difference,
  fieldsV1Intersects,
  isEmptyFieldsV1,
} from './fieldsv1.js';

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

/**
 * A decoded entry whose field set is decoded from its FieldsV1 only when first read. Until then it
 * holds a copy of its canonical FieldsV1 (what decoding and encoding would give), edited in place
 * of the set and encoded as it is.
 */
class LazyManagerState implements ManagerState {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  subresource?: string;
  time?: string;
  private decoded: FieldSet | undefined;
  private handedOut = false;

  constructor(
    e: ManagedFieldsEntry,
    private raw: Record<string, unknown>,
  ) {
    this.manager = e.manager;
    this.operation = e.operation;
    this.apiVersion = e.apiVersion ?? '';
    if (e.subresource) this.subresource = e.subresource;
    if (e.time) this.time = e.time;
  }

  get set(): FieldSet {
    return (this.decoded ??= FieldSet.fromFieldsV1(this.raw));
  }

  set set(s: FieldSet) {
    this.decoded = s;
  }

  /** The FieldsV1 (canonical), while the set has not been read. */
  get pristine(): Record<string, unknown> | undefined {
    return this.decoded === undefined ? this.raw : undefined;
  }

  /** Drops the member paths of `set`, in FieldsV1 form while the set has not been read. */
  disown(set: FieldSet): void {
    if (this.decoded !== undefined) {
      this.decoded = this.decoded.difference(set);
      return;
    }
    // The difference shares untouched subtrees with its input, which must not be one handed out.
    this.raw = fieldsV1Difference(this.handedOut ? copyFieldsV1(this.raw) : this.raw, set);
    this.handedOut = false;
  }

  /** The FieldsV1 to encode: the first time the held copy itself, later a new copy of it. */
  fieldsV1(): Record<string, unknown> {
    if (this.decoded !== undefined) return this.decoded.toFieldsV1();
    if (this.handedOut) return copyFieldsV1(this.raw);
    this.handedOut = true;
    return this.raw;
  }
}

/** Decodes metadata.managedFields; malformed entries are dropped rather than failing the request. */
export function decodeManagedFields(entries: unknown): Map<string, ManagerState> {
  const out = new Map<string, ManagerState>();
  if (!Array.isArray(entries)) return out;
  for (const e of entries as Partial<ManagedFieldsEntry>[]) {
    if (typeof e !== 'object' || e === null || typeof e.manager !== 'string') continue;
    if (e.operation !== 'Apply' && e.operation !== 'Update') continue;
    const raw = canonicalFieldsV1Copy(e.fieldsV1);
    const state: ManagerState = raw
      ? new LazyManagerState(e as ManagedFieldsEntry, raw)
      : {
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

/** True when the manager owns any member path of `set`, without decoding an untouched entry. */
export function ownsAny(m: ManagerState, set: FieldSet): boolean {
  const raw = m instanceof LazyManagerState ? m.pristine : undefined;
  if (raw !== undefined) return fieldsV1Intersects(raw, set);
  return !m.set.intersection(set).empty();
}

/** True when the manager owns no field, without decoding an untouched entry. */
export function ownsNothing(m: ManagerState): boolean {
  const raw = m instanceof LazyManagerState ? m.pristine : undefined;
  return raw !== undefined ? isEmptyFieldsV1(raw) : m.set.empty();
}

/** Removes the member paths of `set` from what the manager owns. */
export function disown(m: ManagerState, set: FieldSet): void {
  if (m instanceof LazyManagerState) m.disown(set);
  else m.set = m.set.difference(set);
}

function fieldsV1Of(m: ManagerState): Record<string, unknown> {
  return m instanceof LazyManagerState ? m.fieldsV1() : m.set.toFieldsV1();
}

/** Encodes managers in upstream's order: by operation, then time, manager, apiVersion, subresource. */
export function encodeManagedFields(managers: Map<string, ManagerState>): ManagedFieldsEntry[] {
  const list = [...managers.values()].filter((m) => !ownsNothing(m));
  const seconds = (t?: string): number => (t ? Math.floor(Date.parse(t) / 1000) : 0);
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  if (list.length > 1) {
    list.sort(
      (p, q) =>
        cmp(p.operation, q.operation) ||
        seconds(p.time) - seconds(q.time) ||
        cmp(p.manager, q.manager) ||
        cmp(p.apiVersion, q.apiVersion) ||
        cmp(p.subresource ?? '', q.subresource ?? ''),
    );
  }
  return list.map((m) => ({
    manager: m.manager,
    operation: m.operation,
    apiVersion: m.apiVersion,
    ...(m.time ? { time: m.time } : {}),
    fieldsType: 'FieldsV1' as const,
    fieldsV1: fieldsV1Of(m),
    ...(m.subresource ? { subresource: m.subresource } : {}),
  }));
}

let lastTime: { now: string | number | undefined; formatted: string } = { now: undefined, formatted: '' };

/** Formats a time like metav1.Time: RFC 3339 in UTC with whole seconds. */
export function formatTime(now: Date | string | number): string {
  // Writes in one second share their time; remember the last one formatted.
  if (typeof now !== 'object' && now === lastTime.now) return lastTime.formatted;
  const formatted = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
  if (typeof now !== 'object') lastTime = { now, formatted };
  return formatted;
}

/** Top-level fields the API server sets itself, never owned (upstream's stripMetaManager). */
export const STRIPPED_ROOT: ReadonlySet<string> = new Set(['apiVersion', 'kind', 'metadata']);

/** Metadata fields the API server sets itself, never owned (upstream's stripMetaManager). */
export const STRIPPED_METADATA: ReadonlySet<string> = new Set([
  'name',
  'namespace',
  'creationTimestamp',
  'selfLink',
  'uid',
  'clusterName',
  'generation',
  'managedFields',
  'resourceVersion',
]);

/** Fields the API server sets itself, never owned by a manager (upstream's stripMetaManager). */
export const STRIPPED_FIELDS: FieldSet = (() => {
  const s = new FieldSet();
  for (const f of STRIPPED_ROOT) s.insert([`f:${f}`]);
  for (const f of STRIPPED_METADATA) s.insert(['f:metadata', `f:${f}`]);
  return s;
})();
