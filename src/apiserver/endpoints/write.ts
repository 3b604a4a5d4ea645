/**
 * CREATE and UPDATE (PUT), like upstream's handlers/create.go and update.go:
 * decode and check the body, then hand it to the registry store, which runs
 * the write sequence (defaults, admission, validation, the write) with the
 * request's admission; the handler records field managers and answers.
 */
import { groupVersionString } from '../../api/index.js';
import { badRequest } from '../../api/index.js';
import { readBody, decodeBody, isProtobuf } from '../body.js';
import { deepCopy, meta, type Obj } from '../object.js';
import { writeJSON, writeJSONParts } from '../responsewriters.js';
import { resourceVersionParts } from '../codec.js';
import type { KeyValue } from '../../storage/index.js';
import { admissionFor, type RestContext } from './context.js';
import { traceStep } from '../request_trace.js';
import { writesStatus } from '../registry/strategy.js';
import {
  applyFieldValidation,
  parseFieldValidation,
  recordUpdateManager,
  type FieldValidation,
} from './fieldmanager.js';

/** Reads ?dryRun: only "All" is valid, as upstream. */
export function parseDryRun(q: URLSearchParams): boolean {
  const v = q.getAll('dryRun');
  if (v.length === 0) return false;
  for (const d of v) if (d !== 'All') throw badRequest(`Invalid dry run value: ${d}, must be one of: All`);
  return true;
}

/** Checks that a decoded body is an object of this resource's kind and version (400 otherwise). */
export function checkBodyKind(
  ctx: RestContext,
  body: unknown,
  kind = ctx.resource.kind,
  gv = groupVersionString(ctx.resource.group, ctx.resource.version),
): Obj {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw badRequest('the body of the request was not a JSON object');
  const obj = body as Obj;
  if (typeof obj.kind !== 'string' || obj.kind === '')
    throw badRequest(`Object 'Kind' is missing in '${JSON.stringify(obj).slice(0, 200)}'`);
  if (obj.apiVersion !== gv) {
    throw badRequest(
      `the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${gv})`,
    );
  }
  if (obj.kind !== kind)
    throw badRequest(`the kind in the data (${obj.kind}) does not match the expected kind (${kind})`);
  if (
    obj.metadata !== undefined &&
    (obj.metadata === null || typeof obj.metadata !== 'object' || Array.isArray(obj.metadata))
  ) {
    throw badRequest('metadata must be an object');
  }
  return obj;
}

/**
 * Fills a missing kind and apiVersion from the endpoint, as upstream's decoder does
 * with the request's default GVK: `{"metadata":{"name":"x"}}` POSTed to …/configmaps is a ConfigMap.
 */
export function withDefaultGVK(ctx: RestContext, body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const obj = body as Obj;
  if (obj.kind === undefined || obj.kind === '') obj.kind = ctx.resource.kind;
  if (obj.apiVersion === undefined || obj.apiVersion === '')
    obj.apiVersion = groupVersionString(ctx.resource.group, ctx.resource.version);
  return obj;
}

/**
 * Checks a PUT or apply body against the URL: its name (400 on a mismatch) and
 * namespace, then applies field validation. Returns the body's metadata.
 */
export function checkBodyTarget(ctx: RestContext, obj: Obj, validation: FieldValidation): Obj {
  const m = meta(obj);
  if (m.name !== undefined && m.name !== ctx.info.name) {
    throw badRequest(
      `the name of the object (${String(m.name)}) does not match the name on the URL (${ctx.info.name})`,
    );
  }
  m.name = ctx.info.name;
  checkNamespace(ctx, obj);
  applyFieldValidation(ctx, obj, validation);
  return m;
}

/** Sets the request's namespace on the object (400 on a mismatch). */
export function checkNamespace(ctx: RestContext, obj: Obj): void {
  const m = meta(obj);
  if (!ctx.resource.namespaced) {
    delete m.namespace;
    return;
  }
  if (m.namespace !== undefined && m.namespace !== '' && m.namespace !== ctx.info.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  m.namespace = ctx.info.namespace;
}

/**
 * The field validation a body gets: as ?fieldValidation says, except that a protobuf body is never
 * strict, like upstream, whose protobuf serializer has no strict mode (it cannot carry an unknown field name).
 */
export function bodyFieldValidation(ctx: RestContext): FieldValidation {
  const v = parseFieldValidation(ctx.info.query);
  return isProtobuf(ctx.req.headers['content-type']) ? 'Ignore' : v;
}

/** POST: create an object. */
export async function handleCreate(ctx: RestContext): Promise<void> {
  const q = ctx.info.query;
  const dryRun = parseDryRun(q);
  const validation = bodyFieldValidation(ctx);
  const obj = checkBodyKind(
    ctx,
    withDefaultGVK(ctx, decodeBody(await readBody(ctx.req), ctx.req.headers['content-type'])),
  );
  checkNamespace(ctx, obj);
  applyFieldValidation(ctx, obj, validation);
  const created = await ctx.store.create(obj, {
    dryRun,
    now: ctx.services.clock.now(),
    admission: admissionFor(ctx),
    user: ctx.info.user,
    beforeWrite: (o) => {
      recordUpdateManager(ctx, o, null, 'Update');
      traceStep(ctx.res, 'about to store');
    },
  });
  traceStep(ctx.res, 'stored');
  writeObject(ctx, 201, created.obj, created.stored);
}

/** PUT: replace an object (or create it, where the strategy allows). Status and other subresources copy only their part. */
export async function handleUpdate(ctx: RestContext): Promise<void> {
  const q = ctx.info.query;
  const dryRun = parseDryRun(q);
  const validation = bodyFieldValidation(ctx);
  const body = await readBody(ctx.req);
  const decodeTarget = (v: FieldValidation): { obj: Obj; m: Obj } => {
    const obj = checkBodyKind(ctx, withDefaultGVK(ctx, decodeBody(body, ctx.req.headers['content-type'])));
    return { obj, m: checkBodyTarget(ctx, obj, v) };
  };
  const { obj, m } = decodeTarget(validation);
  // The first attempt consumes the decoded body; a retry (after a concurrent write) decodes it again
  // (Warn's warnings are already on the response), which is cheaper than copying it up front.
  let unused: Obj | undefined = obj;
  const sub = ctx.info.subresource;
  const result = await ctx.store.update(
    ctx.info.namespace,
    ctx.info.name,
    (current) => {
      const next = unused ?? decodeTarget(validation === 'Warn' ? 'Ignore' : validation).obj;
      unused = undefined;
      return current !== null && writesStatus(ctx.store.strategy, sub) ? withStatusFrom(current, next) : next;
    },
    {
      dryRun,
      now: ctx.services.clock.now(),
      admission: admissionFor(ctx),
      user: ctx.info.user,
      subresource: sub,
      expectRV: (m.resourceVersion as string | undefined) ?? '',
      beforeWrite: (o, old) => {
        recordUpdateManager(ctx, o, old, 'Update');
        traceStep(ctx.res, 'about to store');
      },
    },
  );
  traceStep(ctx.res, 'stored');
  writeObject(ctx, result.created ? 201 : 200, result.obj, result.stored);
}

/**
 * The current object with only the status (and nothing else) taken from `next`, like upstream's
 * status strategies. `next` is consumed (callers pass an object that owns all of its values, never one
 * sharing values with a request body that a retry reuses): its status moves into the result. Like upstream's
 * `newPod.Spec = oldPod.Spec`, the result shares every top-level field but metadata and status
 * with `current` (a status write cannot change them), so copying and comparing a pod's spec costs
 * nothing; callers own `current` for this write only, so a mutation reaching it through the
 * shared fields is harmless.
 */
export function withStatusFrom(current: Obj, next: Obj): Obj {
  const out: Obj = { ...current, metadata: deepCopy(current.metadata ?? {}) };
  if (next.status === undefined) delete out.status;
  else out.status = next.status;
  // The status update's resourceVersion is the precondition; keep it for the conflict check.
  meta(out).resourceVersion = meta(next).resourceVersion ?? meta(current).resourceVersion;
  return out;
}

/**
 * Writes an object response. With `stored` (the record `obj` was just stored as, or read from)
 * the stored bytes are written with the resourceVersion spliced in: encode once, never twice.
 */
export function writeObject(ctx: RestContext, code: number, obj: Obj, stored?: KeyValue): void {
  if (stored !== undefined) writeJSONParts(ctx.res, code, resourceVersionParts(stored.value, stored.modRevision));
  else writeJSON(ctx.res, code, obj);
}
