/**
 * StatusError and its constructors, with the messages, reasons and codes of
 * apimachinery's pkg/api/errors so clients that string-match them keep working.
 */
import type { Status, StatusCause, StatusDetails } from './types.js';

/** A group plus a plural resource, like schema.GroupResource ("deployments.apps"). */
export interface GroupResource {
  group: string;
  resource: string;
}

/** A group plus a kind, like schema.GroupKind ("Deployment.apps"). */
export interface GroupKind {
  group: string;
  kind: string;
}

/** The optimistic-lock message kube-apiserver appends to update conflicts. */
export const OPTIMISTIC_LOCK_ERROR_MSG =
  'the object has been modified; please apply your changes to the latest version and try again';

/** One exception type carrying the Kubernetes Status; one place turns it into the response. */
export class StatusError extends Error {
  override readonly name = 'StatusError';
  constructor(
    readonly status: Status,
    options?: { cause?: unknown },
  ) {
    super(status.message ?? status.reason ?? 'unknown error', options);
  }
  /** The HTTP status code. */
  get code(): number {
    return this.status.code;
  }
  /** The machine-readable reason (NotFound, Conflict, Invalid, ...). */
  get reason(): string {
    return this.status.reason ?? '';
  }
}

function gr(r: GroupResource | string): GroupResource {
  return typeof r === 'string' ? { group: '', resource: r } : r;
}

/** "pods" or "deployments.apps", like GroupResource.String(). */
export function groupResourceString(r: GroupResource | string): string {
  const g = gr(r);
  return g.group ? `${g.resource}.${g.group}` : g.resource;
}

/** Builds a failure StatusError; empty details are left out as upstream's omitempty does. */
export function newStatusError(code: number, reason: string, message: string, details?: StatusDetails): StatusError {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details) {
    const d: StatusDetails = {};
    for (const [k, v] of Object.entries(details))
      if (v !== undefined && v !== '') (d as Record<string, unknown>)[k] = v;
    if (Object.keys(d).length) status.details = d;
  }
  return new StatusError(status);
}

function details(r: GroupResource | string, name: string): StatusDetails {
  const g = gr(r);
  return { name, group: g.group, kind: g.resource };
}

/** 404 `pods "x" not found`. */
export const notFound = (r: GroupResource | string, name: string): StatusError =>
  newStatusError(404, 'NotFound', `${groupResourceString(r)} "${name}" not found`, details(r, name));

/** 409 `pods "x" already exists`. */
/**
 * The 404 for a path no route serves (an unknown resource or subresource): what client-go reports
 * for go-restful's bare 404, so kubectl prints "the server could not find the requested resource".
 */
export function routeNotFound(): StatusError {
  return newStatusError(404, 'NotFound', 'the server could not find the requested resource');
}

export const alreadyExists = (r: GroupResource | string, name: string): StatusError =>
  newStatusError(409, 'AlreadyExists', `${groupResourceString(r)} "${name}" already exists`, details(r, name));

/** 409 `Operation cannot be fulfilled on pods "x": <why>`; `why` defaults to the optimistic-lock message. */
export const conflict = (r: GroupResource | string, name: string, why = OPTIMISTIC_LOCK_ERROR_MSG): StatusError =>
  newStatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${groupResourceString(r)} "${name}": ${why}`,
    details(r, name),
  );

/** 422 `Pod "x" is invalid: <errors>`, carrying one cause per field error. */
export function invalid(
  kind: GroupKind | string,
  name: string,
  causes: StatusCause[],
  errorTexts: string[],
): StatusError {
  const gk = typeof kind === 'string' ? { group: '', kind } : kind;
  const qualified = gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
  // Like utilerrors.Aggregate: one error prints bare, several print as a bracketed list.
  const agg = errorTexts.length === 1 ? errorTexts[0] : `[${errorTexts.join(', ')}]`;
  return newStatusError(422, 'Invalid', `${qualified} "${name}" is invalid: ${agg}`, {
    name,
    group: gk.group,
    kind: gk.kind,
    causes,
  });
}

/** 400 with the given message. */
export const badRequest = (message: string): StatusError => newStatusError(400, 'BadRequest', message);

/** 401. */
export const unauthorized = (message = 'Unauthorized'): StatusError => newStatusError(401, 'Unauthorized', message);

/** 403 `pods "x" is forbidden: <why>`. */
export function forbidden(r: GroupResource | string, name: string, why: string): StatusError {
  const g = gr(r);
  let message: string;
  if (!g.resource && !g.group) message = `forbidden: ${why}`;
  else if (!name) message = `${groupResourceString(g)} is forbidden: ${why}`;
  else message = `${groupResourceString(g)} "${name}" is forbidden: ${why}`;
  return newStatusError(403, 'Forbidden', message, details(g, name));
}

/** 405 `<verb> is not supported on resources of kind "pods"`. */
export const methodNotSupported = (r: GroupResource | string, action: string): StatusError =>
  newStatusError(
    405,
    'MethodNotAllowed',
    `${action} is not supported on resources of kind "${groupResourceString(r)}"`,
    {
      group: gr(r).group,
      kind: gr(r).resource,
    },
  );

/** 406, like the apiserver's content negotiation. */
export const notAcceptable = (accepted: string[]): StatusError =>
  newStatusError(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);

/** 415, like the apiserver's content negotiation. */
export const unsupportedMediaType = (accepted: string[]): StatusError =>
  newStatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );

/** 413 `Request entity too large: <message>`. */
export const requestEntityTooLarge = (message: string): StatusError =>
  newStatusError(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`);

/** 410 Expired, e.g. `too old resource version: 5 (100)`. */
export const expired = (message: string): StatusError => newStatusError(410, 'Expired', message);

/** 410 Gone. */
export const gone = (message: string): StatusError => newStatusError(410, 'Gone', message);

/** 429 with a Retry-After hint in details. */
export const tooManyRequests = (message: string, retryAfterSeconds = 0): StatusError =>
  newStatusError(429, 'TooManyRequests', message, retryAfterSeconds > 0 ? { retryAfterSeconds } : undefined);

/** 500 `Internal error occurred: <err>`. */
export function internal(err: unknown): StatusError {
  const msg = err instanceof Error ? err.message : String(err);
  const e = newStatusError(500, 'InternalError', `Internal error occurred: ${msg}`, { causes: [{ message: msg }] });
  return e;
}

/** 503 with the given message. */
export const serviceUnavailable = (message: string): StatusError => newStatusError(503, 'ServiceUnavailable', message);

/** 504 `Timeout: <message>`. */
export const timeout = (message: string, retryAfterSeconds = 0): StatusError =>
  newStatusError(504, 'Timeout', `Timeout: ${message}`, retryAfterSeconds > 0 ? { retryAfterSeconds } : undefined);

/** Any error as a Status: StatusErrors pass through, anything else is a 500. */
export function toStatus(err: unknown): Status {
  return err instanceof StatusError ? err.status : internal(err).status;
}

/** The reason of a StatusError, or "" for other errors. */
export const reasonForError = (err: unknown): string => (err instanceof StatusError ? err.reason : '');
/** True for a 404 NotFound StatusError. */
export const isNotFoundError = (err: unknown): boolean => reasonForError(err) === 'NotFound';
/** True for a 409 AlreadyExists StatusError. */
export const isAlreadyExistsError = (err: unknown): boolean => reasonForError(err) === 'AlreadyExists';
/** True for a 409 Conflict StatusError. */
export const isConflictError = (err: unknown): boolean => reasonForError(err) === 'Conflict';
/** True for a 422 Invalid StatusError. */
export const isInvalidError = (err: unknown): boolean => reasonForError(err) === 'Invalid';
