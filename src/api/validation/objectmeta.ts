/**
 * ObjectMeta validation on create and update, like apimachinery's
 * ValidateObjectMeta / ValidateObjectMetaUpdate: names, namespace scope,
 * labels, annotations, owner references and finalizers.
 */
import {
  isDNS1123Label,
  isQualifiedName,
  isValidLabelValue,
  TOTAL_ANNOTATION_SIZE_LIMIT,
  type NameValidator,
} from '../meta.js';
import { asString, isObject, type ObjectMeta } from '../types.js';
import {
  child,
  forbidden,
  fromMessages,
  immutable,
  index,
  invalidValue,
  required,
  tooLong,
  validateNonnegative,
  type ErrorList,
} from './field.js';

/** Label keys and values: keys are qualified names, values are 63-char label values (path is the map, as upstream). */
export function validateLabels(labels: unknown, path: string): ErrorList {
  if (labels === undefined || labels === null) return [];
  if (!isObject(labels)) return [invalidValue(path, labels, 'must be a map of string to string')];
  const errs: ErrorList = [];
  for (const [k, v] of Object.entries(labels)) {
    errs.push(...fromMessages(path, k, isQualifiedName(k)));
    if (typeof v !== 'string') errs.push(invalidValue(path, v, 'must be a string'));
    else errs.push(...fromMessages(path, v, isValidLabelValue(v)));
  }
  return errs;
}

/** Annotation keys are qualified names (case-insensitive); all keys and values together fit in 256 KiB. */
export function validateAnnotations(annotations: unknown, path: string): ErrorList {
  if (annotations === undefined || annotations === null) return [];
  if (!isObject(annotations)) return [invalidValue(path, annotations, 'must be a map of string to string')];
  const errs: ErrorList = [];
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    errs.push(...fromMessages(path, k, isQualifiedName(k.toLowerCase())));
    total += Buffer.byteLength(k) + Buffer.byteLength(typeof v === 'string' ? v : JSON.stringify(v));
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

function validateOwnerReferences(refs: unknown, path: string): ErrorList {
  if (!Array.isArray(refs)) return [];
  const errs: ErrorList = [];
  const controllers: string[] = [];
  refs.forEach((r: Record<string, unknown>, i) => {
    const p = index(path, i);
    if (!r.apiVersion) errs.push(invalidValue(child(p, 'apiVersion'), r.apiVersion ?? '', 'version must not be empty'));
    if (!r.kind) errs.push(invalidValue(child(p, 'kind'), r.kind ?? '', 'kind must not be empty'));
    if (!r.name) errs.push(invalidValue(child(p, 'name'), r.name ?? '', 'name must not be empty'));
    if (!r.uid) errs.push(invalidValue(child(p, 'uid'), r.uid ?? '', 'uid must not be empty'));
    if (r.controller === true) controllers.push(`${asString(r.kind)}/${asString(r.name)}`);
  });
  if (controllers.length > 1)
    errs.push(
      invalidValue(
        path,
        refs,
        `Only one reference can have Controller set to true. Found "true" in references for ${controllers.join(' and ')}`,
      ),
    );
  return errs;
}

// Standard finalizers may be unqualified; anything else must carry a domain, like "foregroundDeletion" vs "example.com/x".
// A CRD's cleanup finalizer is validated by apimachinery's generic rules upstream, which take any qualified name.
const STANDARD_FINALIZERS = new Set([
  'kubernetes',
  'orphan',
  'foregroundDeletion',
  'customresourcecleanup.apiextensions.k8s.io',
]);

function validateFinalizers(finalizers: unknown, path: string): ErrorList {
  if (!Array.isArray(finalizers)) return [];
  const errs: ErrorList = [];
  for (const f of finalizers as string[]) {
    const msgs = isQualifiedName(f);
    if (msgs.length) errs.push(...fromMessages(path, f, msgs));
    else if (!STANDARD_FINALIZERS.has(f) && !f.includes('/'))
      errs.push(invalidValue(path, f, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion'))
    errs.push(invalidValue(path, finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'));
  return errs;
}

/** The checks of create and update alike: generation, labels, annotations, ownerReferences and finalizers. */
function validateMetadataFields(m: ObjectMeta, path: string): ErrorList {
  return [
    ...validateNonnegative(m.generation, child(path, 'generation')),
    ...validateLabels(m.labels, child(path, 'labels')),
    ...validateAnnotations(m.annotations, child(path, 'annotations')),
    ...validateOwnerReferences(m.ownerReferences, child(path, 'ownerReferences')),
    ...validateFinalizers(m.finalizers, child(path, 'finalizers')),
  ];
}

/** Validates metadata on create: name or generateName, namespace scope, and everything else. */
export function validateObjectMeta(
  meta: ObjectMeta | undefined,
  namespaced: boolean,
  nameFn: NameValidator,
  path = 'metadata',
): ErrorList {
  const m = meta ?? {};
  const errs: ErrorList = [];
  if (m.generateName)
    errs.push(...fromMessages(child(path, 'generateName'), m.generateName, nameFn(m.generateName, true)));
  if (!m.name) errs.push(required(child(path, 'name'), 'name or generateName is required'));
  else errs.push(...fromMessages(child(path, 'name'), m.name, nameFn(m.name, false)));
  if (namespaced) {
    if (!m.namespace) errs.push(required(child(path, 'namespace')));
    else errs.push(...fromMessages(child(path, 'namespace'), m.namespace, isDNS1123Label(m.namespace)));
  } else if (m.namespace) {
    errs.push(forbidden(child(path, 'namespace'), 'not allowed on this type'));
  }
  errs.push(...validateMetadataFields(m, path));
  return errs;
}

/** Validates metadata on update: identity fields may not change; the rest is checked as on create. */
export function validateObjectMetaUpdate(
  meta: ObjectMeta | undefined,
  old: ObjectMeta | undefined,
  path = 'metadata',
): ErrorList {
  const m = meta ?? {};
  const o = old ?? {};
  const errs: ErrorList = [];
  const same = (a: unknown, b: unknown): boolean => (a ?? '') === (b ?? '');
  if (!same(m.name, o.name)) errs.push(immutable(child(path, 'name'), m.name ?? ''));
  if (!same(m.namespace, o.namespace)) errs.push(immutable(child(path, 'namespace'), m.namespace ?? ''));
  if (!same(m.uid, o.uid)) errs.push(immutable(child(path, 'uid'), m.uid ?? ''));
  if (!same(m.creationTimestamp, o.creationTimestamp))
    errs.push(immutable(child(path, 'creationTimestamp'), m.creationTimestamp ?? ''));
  // Once set, deletion fields only move through the graceful-deletion path, never by update.
  if (o.deletionTimestamp && !same(m.deletionTimestamp, o.deletionTimestamp))
    errs.push(immutable(child(path, 'deletionTimestamp'), m.deletionTimestamp ?? ''));
  if (o.deletionGracePeriodSeconds !== undefined && m.deletionGracePeriodSeconds !== o.deletionGracePeriodSeconds)
    errs.push(immutable(child(path, 'deletionGracePeriodSeconds'), m.deletionGracePeriodSeconds ?? null));
  errs.push(...validateMetadataFields(m, path));
  return errs;
}
