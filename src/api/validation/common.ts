/**
 * Validators shared by several groups: label selectors and int-or-percent
 * values (maxSurge, maxUnavailable, minAvailable); and the readers every
 * validator uses on plain JSON.
 */
import { isQualifiedName, isValidLabelValue, regexError } from '../meta.js';
import { asString, isObject } from '../types.js';
import { child, fromMessages, index, invalidValue, notSupported, required, type ErrorList } from './field.js';

/** A JSON object as the validators read it. */
export type Obj = Record<string, unknown>;

/** The value as an object, or {} when it is not one. */
export const obj = (v: unknown): Obj => (isObject(v) ? v : {});

/**
 * The value as a list of objects, or [] when it is not a list. An element that is not an object (`null`) reads as
 * {}, as upstream's decoder makes a zero-value struct of a JSON null, so it is validated at its own index
 * (a missing port, say) rather than crashing the validator.
 */
export const arr = (v: unknown): Obj[] => (Array.isArray(v) ? v.map((x) => (isObject(x) ? x : {})) : []);

const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

/** Validates a metav1.LabelSelector, like ValidateLabelSelector. */
export function validateLabelSelector(sel: unknown, path: string): ErrorList {
  if (sel === undefined || sel === null) return [];
  if (!isObject(sel)) return [invalidValue(path, sel, 'must be a label selector')];
  const errs: ErrorList = [];
  const exprs = Array.isArray(sel.matchExpressions) ? (sel.matchExpressions as Record<string, unknown>[]) : [];
  exprs.forEach((e, i) => {
    const p = index(child(path, 'matchExpressions'), i);
    const values = Array.isArray(e.values) ? (e.values as string[]) : [];
    const op = e.operator as string;
    if (op === 'In' || op === 'NotIn') {
      if (!values.length)
        errs.push(required(child(p, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (values.length)
        errs.push({
          type: 'FieldValueForbidden',
          field: child(p, 'values'),
          detail: "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        });
    } else errs.push(notSupported(child(p, 'operator'), op, OPERATORS));
    errs.push(...fromMessages(child(p, 'key'), e.key, isQualifiedName(asString(e.key))));
    values.forEach((v, j) =>
      errs.push(...fromMessages(index(child(p, 'values'), j), v, isValidLabelValue(asString(v)))),
    );
  });
  const ml = isObject(sel.matchLabels) ? sel.matchLabels : {};
  for (const [k, v] of Object.entries(ml)) {
    errs.push(...fromMessages(child(path, 'matchLabels'), k, isQualifiedName(k)));
    errs.push(...fromMessages(child(path, 'matchLabels'), v, isValidLabelValue(asString(v))));
  }
  return errs;
}

/** True when a LabelSelector restricts nothing ({}), which workload controllers reject. */
export const isEmptySelector = (sel: unknown): boolean =>
  isObject(sel) &&
  !Object.keys(isObject(sel.matchLabels) ? sel.matchLabels : {}).length &&
  !(Array.isArray(sel.matchExpressions) && sel.matchExpressions.length);

/** Validates an IntOrString that is a non-negative count or a percentage ("25%"), at most 100%. */
export function validateIntOrPercent(v: unknown, path: string): ErrorList {
  if (v === undefined || v === null) return [];
  if (typeof v === 'number') return v < 0 ? [invalidValue(path, v, 'must be greater than or equal to 0')] : [];
  if (typeof v === 'string') {
    if (!/^[0-9]+%$/.test(v))
      return [
        invalidValue(
          path,
          v,
          regexError(
            "a valid percent string must be a numeric string followed by an ending '%'",
            '[0-9]+%',
            '1%',
            '93%',
          ),
        ),
      ];
    if (Number(v.slice(0, -1)) > 100) return [invalidValue(path, v, 'must not be greater than 100%')];
    return [];
  }
  return [invalidValue(path, v, "must be an integer or percentage (e.g '5%')")];
}

/** The integer or percent value scaled against `total`, rounding percentages up or down like GetScaledValueFromIntOrPercent. */
export function scaledIntOrPercent(v: unknown, total: number, roundUp: boolean): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^[0-9]+%$/.test(v)) {
    const x = (Number(v.slice(0, -1)) * total) / 100;
    return roundUp ? Math.ceil(x) : Math.floor(x);
  }
  return 0;
}
