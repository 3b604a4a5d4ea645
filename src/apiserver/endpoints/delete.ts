/**
 * DELETE and DELETE-collection, like upstream's handlers/delete.go: options
 * from the body or the query (gracePeriodSeconds, preconditions,
 * propagationPolicy, dryRun), then the store's graceful delete, which runs
 * delete admission first.
 */
import { groupVersionString } from '../../api/index.js';
import { badRequest } from '../../api/index.js';
import { readBody, decodeBody } from '../body.js';
import type { Obj } from '../object.js';
import type { DeleteParams } from '../registry/store.js';
import { writeJSON } from '../responsewriters.js';
import { admissionFor, type RestContext } from './context.js';
import { traceStep } from '../request_trace.js';
import { selectorPredicate } from './read.js';
import { parseDryRun } from './write.js';
import { queryBool } from '../query.js';

/** The longest grace period that fits a Go time.Duration (about 292 years). */
const MAX_GRACE_SECONDS = 9_223_372_036;

async function deleteOptions(ctx: RestContext): Promise<DeleteParams> {
  const q = ctx.info.query;
  let body: Obj = {};
  const raw = await readBody(ctx.req);
  if (raw.length > 0) {
    const decoded = decodeBody(raw, ctx.req.headers['content-type'] ?? 'application/json');
    if (decoded === null || typeof decoded !== 'object' || Array.isArray(decoded))
      throw badRequest('DeleteOptions must be a JSON object');
    body = decoded;
  }
  const graceQ = q.get('gracePeriodSeconds');
  const grace = graceQ !== null ? Number(graceQ) : (body.gracePeriodSeconds as number | undefined);
  // Upstream adds the grace to now as a Go Duration (int64 nanoseconds); past that a deletionTimestamp is not a time (here: a 500).
  if (grace !== undefined && (!Number.isSafeInteger(grace) || grace < 0 || grace > MAX_GRACE_SECONDS))
    throw badRequest(`invalid gracePeriodSeconds: ${String(grace)}`);
  let policy = (q.get('propagationPolicy') ?? body.propagationPolicy) as string | undefined;
  if (policy === undefined && (queryBool(q, 'orphanDependents') || body.orphanDependents === true)) policy = 'Orphan';
  if (policy !== undefined && policy !== 'Orphan' && policy !== 'Background' && policy !== 'Foreground') {
    throw badRequest(`propagationPolicy: Unsupported value: "${policy}"`);
  }
  const dryRun = parseDryRun(q) || (Array.isArray(body.dryRun) && (body.dryRun as string[]).includes('All'));
  const pre = body.preconditions as { uid?: string; resourceVersion?: string } | undefined;
  return {
    ...(grace === undefined ? {} : { gracePeriodSeconds: grace }),
    ...(pre === undefined ? {} : { preconditions: pre }),
    ...(policy === undefined ? {} : { propagationPolicy: policy }),
    dryRun,
    now: ctx.services.clock.now(),
    admission: admissionFor(ctx),
  };
}

/** DELETE of one object: 200 with the object (gone, or marked for graceful deletion). */
export async function handleDelete(ctx: RestContext): Promise<void> {
  const opts = await deleteOptions(ctx);
  traceStep(ctx.res, 'about to delete');
  const { obj } = await ctx.store.delete(ctx.info.namespace, ctx.info.name, opts);
  traceStep(ctx.res, 'deleted');
  writeJSON(ctx.res, 200, obj);
}

/** DELETE of a collection: every object matching the selectors, returned as a list. */
export async function handleDeleteCollection(ctx: RestContext): Promise<void> {
  const opts = await deleteOptions(ctx);
  const predicate = selectorPredicate(ctx);
  const page = await ctx.store.list({
    namespace: ctx.info.namespace,
    ...(predicate === undefined ? {} : { predicate }),
  });
  const items: Obj[] = [];
  for (const { obj } of page.items) {
    const m = obj.metadata as Obj;
    try {
      items.push((await ctx.store.delete(m.namespace as string | undefined, m.name as string, opts)).obj);
    } catch (err) {
      // Already gone (deleted concurrently) is success for a collection delete.
      if ((err as { reason?: string }).reason !== 'NotFound') throw err;
    }
  }
  writeJSON(ctx.res, 200, {
    kind: ctx.resource.listKind,
    apiVersion: groupVersionString(ctx.resource.group, ctx.resource.version),
    metadata: { resourceVersion: String(page.revision) },
    items,
  });
}
