/**
 * Container resource requirements: quantities parse, are non-negative, use
 * standard or qualified resource names, and requests do not exceed limits.
 */
import { isQualifiedName } from '../meta.js';
import { compareQuantities, isQuantity, QUANTITY_FORMAT_ERROR, tryParseQuantity } from '../quantity.js';
import { asString, isObject } from '../types.js';
import { child, fromMessages, invalidValue, key, type ErrorList } from './field.js';

const NATIVE = new Set(['cpu', 'memory', 'ephemeral-storage', 'storage', 'pods']);

// Native and kubernetes.io-prefixed resources may be overcommitted; extended ones (example.com/gpu) may not.
const isNative = (name: string): boolean =>
  NATIVE.has(name) || name.startsWith('hugepages-') || !name.includes('/') || name.includes('kubernetes.io/');

function validateResourceName(name: string, path: string): ErrorList {
  const msgs = isQualifiedName(name);
  if (msgs.length) return fromMessages(path, name, msgs);
  if (
    !name.includes('/') &&
    !NATIVE.has(name) &&
    !name.startsWith('hugepages-') &&
    !name.startsWith('requests.') &&
    !name.startsWith('limits.')
  )
    return [invalidValue(path, name, 'must be a standard resource type or fully qualified')];
  return [];
}

function validateList(list: unknown, path: string): ErrorList {
  if (!isObject(list)) return [];
  const errs: ErrorList = [];
  for (const [name, q] of Object.entries(list)) {
    const p = key(path, name);
    errs.push(...validateResourceName(name, p));
    const v = tryParseQuantity(q);
    if (v === undefined) errs.push(invalidValue(p, q, QUANTITY_FORMAT_ERROR));
    else if (v < 0) errs.push(invalidValue(p, q, 'must be greater than or equal to 0'));
  }
  return errs;
}

/** Validates `resources` (limits, requests) of one container at `path`. */
export function validateResourceRequirements(res: unknown, path: string): ErrorList {
  if (!isObject(res)) return [];
  const limitsPath = child(path, 'limits');
  const requestsPath = child(path, 'requests');
  const errs = [...validateList(res.limits, limitsPath), ...validateList(res.requests, requestsPath)];
  const limits = isObject(res.limits) ? res.limits : {};
  const requests = isObject(res.requests) ? res.requests : {};
  for (const [name, req] of Object.entries(requests)) {
    const lim = limits[name];
    if (!isQuantity(req)) continue;
    if (lim === undefined) {
      if (!isNative(name)) errs.push(invalidValue(key(requestsPath, name), req, `must be equal to ${name} limit of 0`));
      continue;
    }
    if (!isQuantity(lim)) continue;
    const cmp = compareQuantities(req as string, lim as string);
    if (!isNative(name) && cmp !== 0)
      errs.push(
        invalidValue(key(requestsPath, name), asString(req), `must be equal to ${name} limit of ${asString(lim)}`),
      );
    else if (cmp > 0)
      errs.push(
        invalidValue(
          key(requestsPath, name),
          asString(req),
          `must be less than or equal to ${name} limit of ${asString(lim)}`,
        ),
      );
  }
  return errs;
}
