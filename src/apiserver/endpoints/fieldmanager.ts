/**
 * Field validation (?fieldValidation=Strict|Warn|Ignore) and field managers
 * (metadata.managedFields) for every write, like upstream's fieldmanager
 * wrapping of the REST handlers.
 */
import { findUnknownFields, strictDecodingError, unknownFieldWarnings } from '../../api/index.js';
import { ApplyConflictError, serverSideApply as ssa, updateManagedFields } from '../../api/index.js';
import { formatTimestamp } from '../../api/index.js';
import { badRequest, StatusError } from '../../api/index.js';
import { patchSchemaForObject } from '../../api/index.js';
import type { Obj } from '../object.js';
import type { RestContext } from './context.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** Reads ?fieldValidation; kubectl sends Strict by default. Unset means Warn, as upstream. */
export function parseFieldValidation(q: URLSearchParams): FieldValidation {
  const v = q.get('fieldValidation') ?? 'Warn';
  if (v !== 'Strict' && v !== 'Warn' && v !== 'Ignore')
    throw badRequest(`fieldValidation: Unsupported value: "${v}": supported values: "Ignore", "Strict", "Warn"`);
  return v;
}

/**
 * Rejects (Strict), warns about (Warn, in Warning headers) or drops (Ignore)
 * fields the kind's schema does not know. Unknown fields are never stored,
 * as upstream's decoding into typed objects drops them.
 */
export function applyFieldValidation(ctx: RestContext, obj: Obj, v: FieldValidation): void {
  const unknown =
    ctx.store.strategy.unknownFields?.(obj) ??
    findUnknownFields(obj.kind as string, obj, ctx.resource.group, ctx.resource.version);
  if (unknown.length === 0) return;
  if (v === 'Strict') {
    const err = strictDecodingError(unknown);
    // Like upstream's transformDecodeError, a decoded create or update body names its kind and version.
    if (ctx.info.verb === 'create' || ctx.info.verb === 'update') {
      const kind = String(obj.kind);
      const version = String(obj.apiVersion).split('/').pop();
      throw badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: ${err.status.message}`);
    }
    throw err;
  }
  if (v === 'Warn') {
    const prev = ctx.res.getHeader('Warning');
    const list = [
      ...(Array.isArray(prev) ? prev : prev === undefined ? [] : [String(prev)]),
      ...unknownFieldWarnings(unknown).map((w) => `299 - ${quoteWarning(w)}`),
    ];
    ctx.res.setHeader('Warning', list);
  }
  for (const path of unknown) prune(obj, path);
}

/**
 * A warning text as a quoted, ASCII-only header value, like upstream's strconv.Quote in
 * NewWarningHeader: a field name with non-ASCII characters must not make the header invalid (a 500).
 */
function quoteWarning(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Deletes the field at a path like `spec.containers[0].foo`. */
function prune(obj: Obj, path: string): void {
  const parts = path.match(/[^.[\]]+|\[\d+\]/g) ?? [];
  let cur: unknown = obj;
  for (let i = 0; i < parts.length - 1; i++) {
    const p = parts[i];
    if (cur === null || typeof cur !== 'object') return;
    cur = p.startsWith('[') ? (cur as unknown[])[Number(p.slice(1, -1))] : (cur as Obj)[p];
  }
  const last = parts[parts.length - 1];
  if (last !== undefined && cur !== null && typeof cur === 'object' && !Array.isArray(cur)) delete (cur as Obj)[last];
}

/** The field manager of a request: ?fieldManager, else the user agent's program name, as upstream. */
export function managerOf(ctx: RestContext): string {
  const fm = ctx.info.query.get('fieldManager');
  if (fm !== null && fm !== '') {
    if (fm.length > 128) throw badRequest('fieldManager: Too long: may not be more than 128 bytes');
    return fm;
  }
  const ua = ctx.req.headers['user-agent'] ?? 'unknown';
  return ua.split('/')[0].slice(0, 128) || 'unknown';
}

/** The fields a write to this endpoint may not own (status on the main resource, all but status on /status). */
function resetFields(ctx: RestContext): string[][] {
  if (!ctx.store.strategy.hasStatusSubresource) return [];
  return ctx.info.subresource === 'status' ? [['spec'], ['metadata']] : [['status']];
}

/** Records the request's field manager on `obj` (an Update operation), moving changed fields to it. */
export function recordUpdateManager(ctx: RestContext, obj: Obj, old: Obj | null, _op: 'Update'): void {
  const r = updateManagedFields({
    live: old,
    updated: obj,
    manager: managerOf(ctx),
    schema: ctx.store.strategy.patchSchema ?? patchSchemaForObject(obj),
    now: formatTimestamp(ctx.services.clock.now()),
    ...(ctx.info.subresource === '' ? {} : { subresource: ctx.info.subresource }),
    resetFields: resetFields(ctx),
  });
  const m = (obj.metadata ?? (obj.metadata = {})) as Obj;
  const result: Obj = r.object;
  const mf = (result.metadata as Obj | undefined)?.managedFields as unknown[] | undefined;
  if (mf === undefined || mf.length === 0) delete m.managedFields;
  else m.managedFields = mf;
}

/** Server-side apply of `applied` onto `live` by `manager`; a conflict without force is a 409 listing the fields. */
export function serverSideApply(
  ctx: RestContext,
  live: Obj | null,
  applied: Obj,
  manager: string,
  force: boolean,
  now: number,
): Obj {
  try {
    const r = ssa({
      live,
      applied,
      manager,
      force,
      schema: ctx.store.strategy.patchSchema ?? patchSchemaForObject(applied),
      now: formatTimestamp(now),
      ...(ctx.info.subresource === '' ? {} : { subresource: ctx.info.subresource }),
      resetFields: resetFields(ctx),
    });
    return r.object;
  } catch (err) {
    if (err instanceof ApplyConflictError) throw new StatusError(err.status);
    throw err;
  }
}
