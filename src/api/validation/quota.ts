/**
 * Validation of ResourceQuota and LimitRange, as upstream's ValidateResourceQuota
 * and ValidateLimitRange: resource names, non-negative (and integral) quantities,
 * supported and non-conflicting scopes, and min <= defaultRequest <= default <= max.
 */
import { isQualifiedName, nameIsDNSSubdomain } from '../meta.js';
import { compareQuantities, milliValue, QUANTITY_FORMAT_ERROR, tryParseQuantity } from '../quantity.js';
import {
  isIntegerQuotaResource,
  isStandardQuotaResource,
  QUOTA_SCOPES,
  scopeSupportsResource,
} from '../quota/names.js';
import { asString, isObject, type KubeObject } from '../types.js';
import type { LimitRange, ResourceQuota } from '../types/quota.js';
import {
  child,
  duplicate,
  fromMessages,
  index,
  invalidValue,
  key,
  notSupported,
  required,
  type ErrorList,
} from './field.js';
import { validateObjectMeta } from './objectmeta.js';

/**
 * Each resource of a list: a qualified name, a non-negative quantity, and what `extra` adds
 * (quota names must be standard, object counts whole).
 */
function validateResourceList(
  list: unknown,
  path: string,
  extra: (name: string, q: unknown, p: string, errs: ErrorList) => void = () => undefined,
): ErrorList {
  if (!isObject(list)) return [];
  const errs: ErrorList = [];
  for (const [name, q] of Object.entries(list)) {
    const p = key(path, name);
    const msgs = isQualifiedName(name);
    if (msgs.length) errs.push(...fromMessages(p, name, msgs));
    const v = tryParseQuantity(q);
    if (v === undefined) errs.push(invalidValue(p, q, QUANTITY_FORMAT_ERROR));
    else if (v < 0) errs.push(invalidValue(p, asString(q), 'must be greater than or equal to 0'));
    extra(name, v === undefined || v < 0 ? undefined : q, p, errs);
  }
  return errs;
}

const validateQuotaList = (list: unknown, path: string): ErrorList =>
  validateResourceList(list, path, (name, q, p, errs) => {
    if (isQualifiedName(name).length === 0 && !name.includes('/') && !isStandardQuotaResource(name))
      errs.push(invalidValue(p, name, 'must be a standard resource for quota'));
    if (q !== undefined && isIntegerQuotaResource(name) && milliValue(q as string) % 1000 !== 0)
      errs.push(invalidValue(p, asString(q), 'must be an integer'));
  });

function validateScopes(rq: ResourceQuota): ErrorList {
  const spec = rq.spec ?? {};
  const errs: ErrorList = [];
  const scopes = new Set<string>(spec.scopes ?? []);
  for (const e of spec.scopeSelector?.matchExpressions ?? []) scopes.add(e.scopeName);
  if (scopes.size === 0) return errs;
  const path = spec.scopes !== undefined ? 'spec.scopes' : 'spec.scopeSelector';
  const shown = spec.scopes ?? [...scopes];
  for (const s of scopes) {
    if (!QUOTA_SCOPES.includes(s)) {
      errs.push(invalidValue(path, shown, 'unsupported scope'));
      continue;
    }
    for (const name of Object.keys(spec.hard ?? {}))
      if (isStandardQuotaResource(name) && !scopeSupportsResource(s, name))
        errs.push(invalidValue(path, shown, 'unsupported scope applied to resource'));
  }
  for (const [a, b] of [
    ['Terminating', 'NotTerminating'],
    ['BestEffort', 'NotBestEffort'],
  ])
    if (scopes.has(a) && scopes.has(b)) errs.push(invalidValue(path, shown, 'conflicting scopes'));
  (spec.scopeSelector?.matchExpressions ?? []).forEach((e, i) => {
    const p = child(`spec.scopeSelector.matchExpressions[${i}]`, 'operator');
    const ops = ['In', 'NotIn', 'Exists', 'DoesNotExist'];
    if (!ops.includes(e.operator)) errs.push(notSupported(p, e.operator, ops));
    else if ((e.operator === 'In' || e.operator === 'NotIn') && !(e.values ?? []).length)
      errs.push(
        invalidValue(
          child(`spec.scopeSelector.matchExpressions[${i}]`, 'values'),
          e.values ?? [],
          "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
        ),
      );
    else if ((e.operator === 'Exists' || e.operator === 'DoesNotExist') && (e.values ?? []).length)
      errs.push(
        invalidValue(
          child(`spec.scopeSelector.matchExpressions[${i}]`, 'values'),
          e.values,
          "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
        ),
      );
  });
  return errs;
}

/** Validates a ResourceQuota on create (and, with its metadata checks, on update). */
export function validateResourceQuota(obj: KubeObject): ErrorList {
  const rq = obj as ResourceQuota;
  return [
    ...validateObjectMeta(rq.metadata, true, nameIsDNSSubdomain),
    ...validateQuotaList(rq.spec?.hard, 'spec.hard'),
    ...validateScopes(rq),
  ];
}

/** Validates a ResourceQuota's status write: hard and used are quota lists. */
export function validateResourceQuotaStatus(obj: KubeObject): ErrorList {
  const rq = obj as ResourceQuota;
  return [...validateQuotaList(rq.status?.hard, 'status.hard'), ...validateQuotaList(rq.status?.used, 'status.used')];
}

const LIMIT_TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];

/** Validates a LimitRange: known unique types, and min <= defaultRequest <= default <= max per resource. */
export function validateLimitRange(obj: KubeObject): ErrorList {
  const lr = obj as LimitRange;
  const errs = validateObjectMeta(lr.metadata, true, nameIsDNSSubdomain);
  const seen = new Set<string>();
  (lr.spec?.limits ?? []).forEach((item, i) => {
    const p = index('spec.limits', i);
    if (!LIMIT_TYPES.includes(item.type)) errs.push(notSupported(child(p, 'type'), item.type, LIMIT_TYPES));
    if (seen.has(item.type)) errs.push(duplicate(child(p, 'type'), item.type));
    seen.add(item.type);
    for (const f of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const)
      errs.push(...validateResourceList(item[f], child(p, f)));
    if (item.type === 'Pod') {
      if (Object.keys(item.default ?? {}).length)
        errs.push(invalidValue(child(p, 'default'), item.default, "may not be specified when `type` is 'Pod'"));
      if (Object.keys(item.defaultRequest ?? {}).length)
        errs.push(
          invalidValue(child(p, 'defaultRequest'), item.defaultRequest, "may not be specified when `type` is 'Pod'"),
        );
    }
    if (item.type === 'PersistentVolumeClaim' && item.min?.storage === undefined && item.max?.storage === undefined)
      errs.push(
        required(child(p, 'limits'), 'either minimum or maximum storage value is required, but neither was provided'),
      );
    errs.push(...validateLimitOrder(item, p));
  });
  return errs;
}

function validateLimitOrder(item: NonNullable<LimitRange['spec']>['limits'][number], p: string): ErrorList {
  const errs: ErrorList = [];
  const names = new Set([
    ...Object.keys(item.max ?? {}),
    ...Object.keys(item.min ?? {}),
    ...Object.keys(item.default ?? {}),
    ...Object.keys(item.defaultRequest ?? {}),
    ...Object.keys(item.maxLimitRequestRatio ?? {}),
  ]);
  const q = (l: Record<string, string | number> | undefined, n: string): string | undefined => {
    const v = l?.[n];
    return v === undefined || tryParseQuantity(v) === undefined ? undefined : String(v);
  };
  const gt = (a: string | undefined, b: string | undefined): boolean =>
    a !== undefined && b !== undefined && compareQuantities(a, b) > 0;
  for (const n of names) {
    const [max, min, def, defReq, ratio] = [
      q(item.max, n),
      q(item.min, n),
      q(item.default, n),
      q(item.defaultRequest, n),
      q(item.maxLimitRequestRatio, n),
    ];
    if (gt(min, max))
      errs.push(invalidValue(key(child(p, 'min'), n), min, `min value ${min} is greater than max value ${max}`));
    if (gt(min, defReq))
      errs.push(
        invalidValue(
          key(child(p, 'defaultRequest'), n),
          defReq,
          `min value ${min} is greater than default request value ${defReq}`,
        ),
      );
    if (gt(defReq, max))
      errs.push(
        invalidValue(
          key(child(p, 'defaultRequest'), n),
          defReq,
          `default request value ${defReq} is greater than max value ${max}`,
        ),
      );
    if (gt(defReq, def))
      errs.push(
        invalidValue(
          key(child(p, 'defaultRequest'), n),
          defReq,
          `default request value ${defReq} is greater than default limit value ${def}`,
        ),
      );
    if (gt(min, def))
      errs.push(
        invalidValue(key(child(p, 'default'), n), def, `min value ${min} is greater than default value ${def}`),
      );
    if (gt(def, max))
      errs.push(
        invalidValue(key(child(p, 'default'), n), def, `default value ${def} is greater than max value ${max}`),
      );
    if (ratio !== undefined && compareQuantities(ratio, '1') < 0)
      errs.push(invalidValue(key(child(p, 'maxLimitRequestRatio'), n), ratio, `ratio ${ratio} is less than 1`));
    if (ratio !== undefined && max !== undefined && min !== undefined && milliValue(min) > 0) {
      const maxRatio = milliValue(max) / milliValue(min);
      if (milliValue(ratio) / 1000 > maxRatio)
        errs.push(
          invalidValue(
            key(child(p, 'maxLimitRequestRatio'), n),
            ratio,
            `ratio ${ratio} is greater than max/min = ${maxRatio.toFixed(6)}`,
          ),
        );
    }
  }
  return errs;
}
