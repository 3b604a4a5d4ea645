/**
 * PATCH with the four types kubectl and client libraries send: JSON patch,
 * JSON merge patch, strategic merge patch, and server-side apply (which
 * creates a missing object). The patch is applied inside compare-and-swap, so
 * a concurrent write makes it re-apply to the new state, as upstream does.
 */
import { applyMergePatch, applyStrategicMergePatch, patchSchemaForObject } from '../../api/index.js';
import { badRequest, conflict, invalid, newStatusError, notFound, unsupportedMediaType } from '../../api/index.js';
import { findRestoreError, goFormat } from '../../api/index.js';
import { readBody, decodeBody, mediaType } from '../body.js';
import { meta, type Obj } from '../object.js';
import { admissionFor, type RestContext } from './context.js';
import { traceStep } from '../request_trace.js';
import { applyJSONPatch } from './json_patch.js';
import { applyFieldValidation, parseFieldValidation, recordUpdateManager, serverSideApply } from './fieldmanager.js';
import { checkBodyKind, checkBodyTarget, parseDryRun, withStatusFrom, writeObject } from './write.js';
import { queryBool } from '../query.js';
import { writesStatus } from '../registry/strategy.js';

/** The media types PATCH accepts, as upstream. */
export const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

/** PATCH of an object or its status. */
export async function handlePatch(ctx: RestContext): Promise<void> {
  const q = ctx.info.query;
  const type = mediaType(ctx.req.headers['content-type']);
  if (!PATCH_TYPES.includes(type)) throw unsupportedMediaType(PATCH_TYPES);
  // Like upstream, custom resources have no patch strategies to merge by: strategic merge patch is 415.
  if (ctx.resource.custom === true && type === 'application/strategic-merge-patch+json')
    throw unsupportedMediaType(PATCH_TYPES.filter((t) => t !== type));
  const dryRun = parseDryRun(q);
  const validation = parseFieldValidation(q);
  const patch = decodeBody(await readBody(ctx.req), type);
  const isApply = type === 'application/apply-patch+yaml';
  const force = queryBool(q, 'force');
  const manager = q.get('fieldManager') ?? '';
  if (isApply && manager === '')
    throw badRequest(
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
  if (!isApply && force)
    throw badRequest(
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    );
  let applied: Obj | null = null;
  if (isApply) {
    applied = checkBodyKind(ctx, patch);
    checkBodyTarget(ctx, applied, validation);
  }
  const sub = ctx.info.subresource;
  const statusWrite = writesStatus(ctx.store.strategy, sub);
  const gr = { group: ctx.resource.group, resource: ctx.resource.resource };
  const result = await ctx.store.update(
    ctx.info.namespace,
    ctx.info.name,
    (current) => {
      if (current === null) {
        // Server-side apply of a missing object creates it; any other patch needs an object to patch.
        if (!isApply) throw notFound(gr, ctx.info.name);
        return serverSideApply(ctx, null, applied!, manager, force, ctx.services.clock.now());
      }
      let next: Obj;
      if (isApply) next = serverSideApply(ctx, current, applied!, manager, force, ctx.services.clock.now());
      else next = applyPatch(type, statusWrite ? statusPatchBase(type, current, patch) : current, patch);
      checkBodyKind(ctx, next);
      const nm = meta(next);
      if (nm.name !== current.metadata.name)
        throw badRequest('metadata.name: the name of an object cannot be changed by a patch');
      // A patch carrying a resourceVersion is a precondition (optimistic concurrency).
      if (nm.resourceVersion !== undefined && nm.resourceVersion !== current.metadata.resourceVersion)
        throw conflict(gr, ctx.info.name);
      if (!isApply) applyFieldValidation(ctx, next, validation);
      const merged = statusWrite ? withStatusFrom(current, next) : next;
      // An apply records its manager in the result's managedFields, which withStatusFrom took from `current`.
      if (isApply && merged !== next) meta(merged).managedFields = meta(next).managedFields;
      return merged;
    },
    {
      dryRun,
      now: ctx.services.clock.now(),
      admission: admissionFor(ctx),
      user: ctx.info.user,
      subresource: sub,
      forceAllowCreate: isApply,
      beforeWrite: (o: Obj, old: Obj | null) => {
        if (!isApply) recordUpdateManager(ctx, o, old, 'Update');
        traceStep(ctx.res, 'about to store');
      },
    },
  );
  traceStep(ctx.res, 'stored');
  writeObject(ctx, result.created ? 201 : 200, result.obj, result.stored);
}

/** Top-level fields a status patch may carry for statusPatchBase to leave the rest of the object out. */
const STATUS_PATCH_FIELDS = new Set(['apiVersion', 'kind', 'metadata', 'status']);

/**
 * What a status patch is applied to. Only the status of the result is kept (withStatusFrom), and
 * a merge or strategic merge patch that names nothing but these fields (a kubelet's pod or node
 * status patch: metadata for its uid precondition, and status) gives the same metadata and status
 * whether or not the object's other fields are there; so they are left out, and the patch copies
 * metadata and status instead of the whole object. Anything else (JSON patch, whose paths may name
 * any field; a patch touching spec, or a top-level directive) is applied to the whole object, with
 * upstream's errors.
 */
export function statusPatchBase(type: string, current: Obj, patch: unknown): Obj {
  if (type !== 'application/merge-patch+json' && type !== 'application/strategic-merge-patch+json') return current;
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return current;
  for (const k in patch) if (!STATUS_PATCH_FIELDS.has(k)) return current;
  const base: Obj = {};
  for (const k of STATUS_PATCH_FIELDS) if (current[k] !== undefined) base[k] = current[k];
  return base;
}

/** Applies a JSON, merge or strategic merge patch to a copy of `current`. */
export function applyPatch(type: string, current: Obj, patch: unknown): Obj {
  switch (type) {
    case 'application/json-patch+json': {
      if (!Array.isArray(patch)) throw badRequest('json patch must be an array of operations');
      return applyJSONPatch(current, patch);
    }
    case 'application/merge-patch+json':
      if (patch === null || typeof patch !== 'object' || Array.isArray(patch))
        throw badRequest('merge patch must be a JSON object');
      return applyMergePatch(current, patch) as Obj;
    case 'application/strategic-merge-patch+json':
      if (patch === null || typeof patch !== 'object' || Array.isArray(patch))
        throw badRequest('strategic merge patch must be a JSON object');
      let patched: Obj;
      try {
        patched = applyStrategicMergePatch(current, patch, patchSchemaForObject(current));
      } catch (err) {
        throw newStatusError(
          422,
          'Invalid',
          `the server rejected our request due to an error in our request: ${(err as Error).message}`,
        );
      }
      checkPatchedShape(patched, patch);
      return patched;
    default:
      throw unsupportedMediaType(PATCH_TYPES);
  }
}

/**
 * Like upstream's strategic merge patcher, which converts the patched map to the typed object: a value of
 * the wrong shape (labels as a string) is a 422 on the field "patch" naming the patch and the conversion error.
 */
function checkPatchedShape(patched: Obj, patch: object): void {
  const [group, version] = splitAPIVersion(patched.apiVersion);
  const why = findRestoreError(group, String(patched.kind), patched, version);
  if (why === undefined) return;
  const value = goFormat(patch);
  throw invalid(
    '',
    '',
    [{ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(value)}: ${why}`, field: 'patch' }],
    [`patch: Invalid value: ${JSON.stringify(value)}: ${why}`],
  );
}

function splitAPIVersion(v: unknown): [string, string] {
  const s = typeof v === 'string' ? v : '';
  const slash = s.indexOf('/');
  return slash < 0 ? ['', s] : [s.slice(0, slash), s.slice(slash + 1)];
}
