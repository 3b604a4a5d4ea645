/**
 * Field errors like apimachinery's util/validation/field: a type, a path such
 * as `spec.containers[0].name`, the bad value and a detail, printed with
 * upstream's texts ("Required value", `Invalid value: "x": ...`).
 */
import { invalid, type GroupKind, type StatusError } from '../status.js';
import { asString, type StatusCause } from '../types.js';

/** The field error types; each is a StatusCause reason. */
export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError';

/** One field-level validation error. */
export interface FieldError {
  type: FieldErrorType;
  field: string;
  /** The offending value; `undefined` means the body omits it (Required, Forbidden, TooLong). */
  badValue?: unknown;
  detail: string;
}

/** A list of field errors; empty means valid. */
export type ErrorList = FieldError[];

const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
};

/** Appends a field name to a path ("" + "spec" → "spec", "spec" + "x" → "spec.x"). */
export const child = (path: string, ...names: string[]): string => names.reduce((p, n) => (p ? `${p}.${n}` : n), path);
/** Appends a list index: `spec.containers[0]`. */
export const index = (path: string, i: number): string => `${path}[${i}]`;
/** Appends a map key: `metadata.labels[app]`. */
export const key = (path: string, k: string): string => `${path}[${k}]`;

// Go's %q and %v for the value kinds that show up in JSON.
function formatValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]${typeof v[0] === 'number' ? 'int' : 'string'}{${v.map(formatValue).join(', ')}}`;
  if (typeof v === 'object')
    return `map[string]string{${Object.entries(v as Record<string, unknown>)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, x]) => `${JSON.stringify(k)}:${formatValue(x)}`)
      .join(', ')}}`;
  return asString(v);
}

/** The error text without the field, like Error.ErrorBody(). */
export function errorBody(e: FieldError): string {
  let s = TYPE_TEXT[e.type];
  const omit =
    e.type === 'FieldValueRequired' ||
    e.type === 'FieldValueForbidden' ||
    e.type === 'FieldValueTooLong' ||
    e.type === 'InternalError';
  if (!omit && e.badValue !== undefined) s += `: ${formatValue(e.badValue)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

/** `field: body`, like Error.Error(). */
export const errorString = (e: FieldError): string => `${e.field}: ${errorBody(e)}`;

/** Value required (empty string, null or empty list). */
export const required = (field: string, detail = ''): FieldError => ({ type: 'FieldValueRequired', field, detail });
/** Malformed value. */
export const invalidValue = (field: string, badValue: unknown, detail: string): FieldError => ({
  type: 'FieldValueInvalid',
  field,
  badValue,
  detail,
});
/** Value not in an enumeration: `supported values: "A", "B"`. */
export const notSupported = (field: string, badValue: unknown, valid: string[]): FieldError => ({
  type: 'FieldValueNotSupported',
  field,
  badValue,
  detail: valid.length ? `supported values: ${valid.map((v) => JSON.stringify(v)).join(', ')}` : '',
});
/** Value must be unique. */
export const duplicate = (field: string, badValue: unknown): FieldError => ({
  type: 'FieldValueDuplicate',
  field,
  badValue,
  detail: '',
});
/** Valid but not allowed here. */
export const forbidden = (field: string, detail: string): FieldError => ({
  type: 'FieldValueForbidden',
  field,
  detail,
});
/** Value too long: `may not be more than N bytes`. */
export const tooLong = (field: string, max: number): FieldError => ({
  type: 'FieldValueTooLong',
  field,
  detail: `may not be more than ${max} bytes`,
});
/** List too long. */
export const tooMany = (field: string, actual: number, max: number): FieldError => ({
  type: 'FieldValueTooMany',
  field,
  badValue: actual,
  detail: `must have at most ${max} items`,
});
/** A value that may not change on update: `field is immutable`. */
export const immutable = (field: string, badValue: unknown): FieldError =>
  invalidValue(field, badValue, 'field is immutable');

/** Turns errors into the 422 StatusError, deduplicated like ErrorList.ToAggregate. */
export function toInvalidError(kind: GroupKind | string, name: string, errs: ErrorList): StatusError {
  const seen = new Set<string>();
  const texts: string[] = [];
  const causes: StatusCause[] = [];
  for (const e of errs) {
    const t = errorString(e);
    if (seen.has(t)) continue;
    seen.add(t);
    texts.push(t);
    causes.push({ reason: e.type, message: errorBody(e), field: e.field });
  }
  return invalid(kind, name, causes, texts);
}

/** Maps string messages from a validator (like isDNS1123Label) to Invalid errors at `field`. */
export const fromMessages = (field: string, value: unknown, msgs: string[]): ErrorList =>
  msgs.map((m) => invalidValue(field, value, m));

/** Integer >= 0 check with upstream's message. */
export function validateNonnegative(v: unknown, field: string): ErrorList {
  if (v === undefined || v === null) return [];
  return typeof v === 'number' && v < 0 ? [invalidValue(field, v, 'must be greater than or equal to 0')] : [];
}

/** Integer > 0 check with upstream's message. */
export function validatePositive(v: unknown, field: string): ErrorList {
  if (v === undefined || v === null) return [];
  return typeof v === 'number' && v <= 0 ? [invalidValue(field, v, 'must be greater than zero')] : [];
}
