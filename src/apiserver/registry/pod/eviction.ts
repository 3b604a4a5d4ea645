/**
 * pods/eviction, like upstream's EvictionREST: deletes the pod unless a
 * PodDisruptionBudget forbids it, spending one of the budget's disruptions.
 */
import { fromLabelSelector } from '../../../api/index.js';
import { badRequest, newStatusError, notFound, tooManyRequests } from '../../../api/index.js';
import { decodeBody, readBody } from '../../body.js';
import { admissionFor, storeOf, type RestContext } from '../../endpoints/context.js';
import { parseDryRun } from '../../endpoints/write.js';
import { deepCopy, meta, type Obj } from '../../object.js';
import { writeJSON } from '../../responsewriters.js';
import { statusSuccess } from '../status_success.js';

/** POST pods/eviction: deletes the pod unless a PodDisruptionBudget forbids it (429), like upstream's EvictionREST. */
export async function handleEviction(ctx: RestContext): Promise<void> {
  const body = decodeBody(await readBody(ctx.req), ctx.req.headers['content-type']) as Obj;
  if (body === null || typeof body !== 'object' || body.kind !== 'Eviction')
    throw badRequest('the body must be an Eviction');
  const dryRun = parseDryRun(ctx.info.query);
  // Admission sees the Eviction as a create of pods/eviction, as upstream's EvictionREST runs createValidation.
  await admissionFor(ctx).run({
    operation: 'CREATE',
    resource: 'pods',
    subresource: 'eviction',
    namespace: ctx.info.namespace,
    name: ctx.info.name,
    object: body,
    oldObject: null,
    dryRun,
  });
  const pod = await ctx.store.get(ctx.info.namespace, ctx.info.name);
  const phase = (pod.status as Obj | undefined)?.phase as string | undefined;
  // Terminal pods may always be evicted: they disrupt nothing.
  if (phase !== 'Succeeded' && phase !== 'Failed') {
    const pdbs = storeOf(ctx.services, 'poddisruptionbudgets');
    const page = await pdbs.list({ namespace: ctx.info.namespace });
    const labels = (meta(pod).labels ?? {}) as Record<string, string>;
    const matching = page.items.filter(({ obj }) =>
      fromLabelSelector((obj.spec as Obj | undefined)?.selector as never).matches(labels),
    );
    if (matching.length > 1)
      throw newStatusError(
        500,
        'InternalError',
        'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      );
    if (matching.length === 1) {
      const pdb = matching[0].obj;
      const name = meta(pdb).name as string;
      await pdbs.guaranteedUpdate(
        ctx.info.namespace,
        name,
        (cur) => {
          if (cur === null) throw notFound({ group: 'policy', resource: 'poddisruptionbudgets' }, name);
          const st = (cur.status ?? {}) as Obj;
          const allowed = (st.disruptionsAllowed as number | undefined) ?? 0;
          if (allowed <= 0) {
            throw tooManyRequests(`Cannot evict pod as it would violate the pod's disruption budget.`, 0);
          }
          const next = deepCopy(cur);
          next.status = { ...st, disruptionsAllowed: allowed - 1 };
          return next;
        },
        { allowCreate: false, dryRun },
      );
    }
  }
  const opts = (body.deleteOptions ?? {}) as Obj;
  await ctx.store.delete(ctx.info.namespace, ctx.info.name, {
    ...(typeof opts.gracePeriodSeconds === 'number' ? { gracePeriodSeconds: opts.gracePeriodSeconds } : {}),
    dryRun,
    now: ctx.services.clock.now(),
  });
  writeJSON(ctx.res, 201, statusSuccess(201));
}
