/**
 * pods/binding, like upstream's BindingREST: the scheduler's write, which
 * assigns a pod to a node once and marks it PodScheduled.
 */
import { formatTimestamp } from '../../../api/index.js';
import { conflict, newStatusError, notFound } from '../../../api/index.js';
import { decodeBody, readBody } from '../../body.js';
import type { RestContext } from '../../endpoints/context.js';
import { checkBodyKind, parseDryRun } from '../../endpoints/write.js';
import { deepCopy, meta, type Obj } from '../../object.js';
import { writeJSON } from '../../responsewriters.js';
import { statusSuccess } from '../status_success.js';

/** POST pods/binding: assigns the pod to a node once, like upstream's BindingREST. */
export async function handleBinding(ctx: RestContext): Promise<void> {
  const binding = checkBodyKind(
    ctx,
    decodeBody(await readBody(ctx.req), ctx.req.headers['content-type']),
    'Binding',
    'v1',
  );
  const target = binding.target as Obj | undefined;
  const node = target?.name as string | undefined;
  if (node === undefined || node === '')
    throw newStatusError(422, 'Invalid', 'Binding "" is invalid: target.name: Required value');
  const dryRun = parseDryRun(ctx.info.query);
  const now = formatTimestamp(ctx.services.clock.now());
  await ctx.store.guaranteedUpdate(
    ctx.info.namespace,
    ctx.info.name,
    (pod) => {
      if (pod === null) throw notFound('pods', ctx.info.name);
      if (meta(pod).deletionTimestamp !== undefined)
        throw conflict('pods', ctx.info.name, `pod ${ctx.info.name} is being deleted, cannot be assigned to a host`);
      const spec = (pod.spec ?? {}) as Obj;
      if (spec.nodeName !== undefined && spec.nodeName !== '') {
        throw conflict(
          'pods',
          ctx.info.name,
          `pod ${ctx.info.name} is already assigned to node "${String(spec.nodeName)}"`,
        );
      }
      const next = deepCopy(pod);
      next.spec = { ...spec, nodeName: node };
      const status = (next.status ?? (next.status = {})) as Obj;
      const conds = ((status.conditions as Obj[] | undefined) ?? []).filter((c) => c.type !== 'PodScheduled');
      conds.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now });
      status.conditions = conds;
      return next;
    },
    { allowCreate: false, dryRun },
  );
  writeJSON(ctx.res, 201, statusSuccess(201));
}
