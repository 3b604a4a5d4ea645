// The client-side apply upgrade path, as upstream's lastAppliedManager and lastAppliedUpdater:
// kubectl's server-side apply takes over fields that kubectl's client-side apply recorded in the
// last-applied-configuration annotation, and keeps that annotation in step with what it applies.
import { FieldSet } from './fieldset.js';
import { canonicalJSON } from './json.js';
import { compare, toFieldSet, type TypeContext } from './typed.js';

type Obj = Record<string, unknown>;

/** The annotation kubectl's client-side apply writes. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** Upstream's field manager name for `kubectl apply --server-side`; only it takes the upgrade path. */
export const KUBECTL_APPLY_MANAGER = 'kubectl';

// apimachinery's TotalAnnotationSizeLimitB.
const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/**
 * The fields an apply by kubectl may take from other managers without force: those the live
 * object's last-applied configuration sets to the value they still have (fields changed since,
 * added, or gone are not the client-side applier's any more). Undefined when there is no usable
 * annotation (absent, not JSON, or written for another apiVersion), like upstream.
 */
export function conflictsAllowedByLastApplied(live: Obj, apiVersion: string, ctx: TypeContext): FieldSet | undefined {
  const raw = annotationsOf(live)?.[LAST_APPLIED_ANNOTATION];
  if (typeof raw !== 'string' || raw === '') return undefined;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (lastApplied === null || typeof lastApplied !== 'object' || Array.isArray(lastApplied)) return undefined;
  if ((lastApplied as Obj).apiVersion !== apiVersion) return undefined;
  const cmp = compare(lastApplied, live, ctx);
  return toFieldSet(lastApplied, ctx).difference(cmp.modified).difference(cmp.added).difference(cmp.removed);
}

/**
 * Sets the last-applied annotation of `result` (an apply's outcome, modified in place) to the applied
 * configuration, when it already has one; dropped instead when the annotations would outgrow
 * their size limit. Returns true when the annotation changed.
 */
export function syncLastApplied(result: Obj, applied: Obj): boolean {
  const annotations = annotationsOf(result);
  if (annotations === undefined || !(LAST_APPLIED_ANNOTATION in annotations)) return false;
  const before = annotations[LAST_APPLIED_ANNOTATION];
  const next: Obj = { ...annotations, [LAST_APPLIED_ANNOTATION]: buildLastApplied(applied) };
  if (annotationsSize(next) > TOTAL_ANNOTATION_SIZE_LIMIT) delete next[LAST_APPLIED_ANNOTATION];
  (result.metadata as Obj).annotations = next;
  return next[LAST_APPLIED_ANNOTATION] !== before;
}

// The configuration without its own last-applied annotation, encoded as kubectl writes it
// (sorted keys, compact, a trailing newline).
function buildLastApplied(applied: Obj): string {
  const md = applied.metadata as Obj | undefined;
  const ann = md?.annotations as Obj | undefined;
  if (ann === undefined || !(LAST_APPLIED_ANNOTATION in ann)) return `${canonicalJSON(applied)}\n`;
  const { [LAST_APPLIED_ANNOTATION]: _, ...rest } = ann;
  return `${canonicalJSON({ ...applied, metadata: { ...md, annotations: rest } })}\n`;
}

function annotationsSize(annotations: Obj): number {
  let n = 0;
  for (const [k, v] of Object.entries(annotations)) n += Buffer.byteLength(k) + Buffer.byteLength(String(v));
  return n;
}

function annotationsOf(obj: Obj): Obj | undefined {
  const md = obj.metadata;
  if (md === null || typeof md !== 'object') return undefined;
  const a = (md as Obj).annotations;
  return a !== null && typeof a === 'object' ? (a as Obj) : undefined;
}
