/**
 * Subresources with their own semantics: pods/binding (the scheduler's
 * write), pods/eviction (honouring PodDisruptionBudgets), the scale
 * subresource of deployments and replicasets (autoscaling/v1 Scale), and
 * namespaces/finalize.
 */
import { fromLabelSelector } from '../../api/labels.js';
import { formatTimestamp } from '../../api/meta.js';
import { badRequest, conflict, newStatusError, notFound, tooManyRequests, unsupportedMediaType } from '../../api/status.js';
import { readBody, decodeBody, mediaType } from '../body.js';
import { deepCopy, meta, type Obj } from '../object.js';
import { writeJSON } from '../responsewriters.js';
import { storeOf, type RestContext } from './context.js';
import { applyPatch, PATCH_TYPES } from './patch.js';
import { checkBodyKind, parseDryRun, writeObject } from './write.js';

const success = (code: number): Obj => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code });

/** POST pods/binding: assigns the pod to a node once, like upstream's BindingREST. */
export async function handleBinding(ctx: RestContext): Promise<void> {
  const binding = checkBodyKind(ctx, decodeBody(await readBody(ctx.req), ctx.req.headers['content-type']), 'Binding', 'v1');
  const target = binding.target as Obj | undefined;
  const node = target?.name as string | undefined;
  if (node === undefined || node === '') throw newStatusError(422, 'Invalid', 'Binding "" is invalid: target.name: Required value');
  const dryRun = parseDryRun(ctx.info.query);
  const now = formatTimestamp(ctx.services.clock.now());
  await ctx.store.guaranteedUpdate(
    ctx.info.namespace,
    ctx.info.name,
    (pod) => {
      if (pod === null) throw notFound('pods', ctx.info.name);
      if (meta(pod).deletionTimestamp !== undefined) throw conflict('pods', ctx.info.name, `pod ${ctx.info.name} is being deleted, cannot be assigned to a host`);
      const spec = (pod.spec ?? {}) as Obj;
      if (spec.nodeName !== undefined && spec.nodeName !== '') {
        throw conflict('pods', ctx.info.name, `pod ${ctx.info.name} is already assigned to node "${String(spec.nodeName)}"`);
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
  writeJSON(ctx.res, 201, success(201));
}

/** POST pods/eviction: deletes the pod unless a PodDisruptionBudget forbids it (429), like upstream's EvictionREST. */
export async function handleEviction(ctx: RestContext): Promise<void> {
  const body = decodeBody(await readBody(ctx.req), ctx.req.headers['content-type']) as Obj;
  if (body === null || typeof body !== 'object' || body.kind !== 'Eviction') throw badRequest('the body must be an Eviction');
  const pod = await ctx.store.get(ctx.info.namespace, ctx.info.name);
  const phase = (pod.status as Obj | undefined)?.phase as string | undefined;
  const dryRun = parseDryRun(ctx.info.query);
  // Terminal pods may always be evicted: they disrupt nothing.
  if (phase !== 'Succeeded' && phase !== 'Failed') {
    const pdbs = storeOf(ctx.services, 'poddisruptionbudgets');
    const page = await pdbs.list({ namespace: ctx.info.namespace });
    const labels = (meta(pod).labels ?? {}) as Record<string, string>;
    const matching = page.items.filter(({ obj }) => fromLabelSelector((obj.spec as Obj | undefined)?.selector as never).matches(labels));
    if (matching.length > 1) throw newStatusError(500, 'InternalError', 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
    if (matching.length === 1) {
      const pdb = matching[0].obj;
      const name = meta(pdb).name as string;
      await pdbs.guaranteedUpdate(ctx.info.namespace, name, (cur) => {
        if (cur === null) throw notFound({ group: 'policy', resource: 'poddisruptionbudgets' }, name);
        const st = (cur.status ?? {}) as Obj;
        const allowed = (st.disruptionsAllowed as number | undefined) ?? 0;
        if (allowed <= 0) {
          throw tooManyRequests(`Cannot evict pod as it would violate the pod's disruption budget.`, 0);
        }
        const next = deepCopy(cur);
        next.status = { ...st, disruptionsAllowed: allowed - 1 };
        return next;
      }, { allowCreate: false, dryRun });
    }
  }
  const opts = (body.deleteOptions ?? {}) as Obj;
  await ctx.store.delete(ctx.info.namespace, ctx.info.name, {
    ...(typeof opts.gracePeriodSeconds === 'number' ? { gracePeriodSeconds: opts.gracePeriodSeconds } : {}),
    dryRun,
    now: ctx.services.clock.now(),
  });
  writeJSON(ctx.res, 201, success(201));
}

/** The autoscaling/v1 Scale view of a deployment or replicaset. */
export function scaleOf(obj: Obj): Obj {
  const m = meta(obj);
  const sel = (obj.spec as Obj | undefined)?.selector as Obj | undefined;
  const matchLabels = (sel?.matchLabels ?? {}) as Record<string, string>;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: ((obj.spec as Obj | undefined)?.replicas as number | undefined) ?? 0 },
    status: {
      replicas: ((obj.status as Obj | undefined)?.replicas as number | undefined) ?? 0,
      selector: Object.entries(matchLabels).map(([k, v]) => `${k}=${v}`).join(','),
    },
  };
}

/** GET, PUT and PATCH of deployments/scale and replicasets/scale. */
export async function handleScale(ctx: RestContext): Promise<void> {
  const method = ctx.req.method ?? 'GET';
  if (method === 'GET') {
    writeJSON(ctx.res, 200, scaleOf(await ctx.store.get(ctx.info.namespace, ctx.info.name)));
    return;
  }
  const dryRun = parseDryRun(ctx.info.query);
  const raw = await readBody(ctx.req);
  const type = mediaType(ctx.req.headers['content-type']);
  // PATCH takes patch media types only, as upstream: a whole-object protobuf Scale is for PUT.
  if (method === 'PATCH' && !PATCH_TYPES.includes(type)) throw unsupportedMediaType(PATCH_TYPES);
  const body = decodeBody(raw, type);
  const { obj } = await ctx.store.update(
    ctx.info.namespace,
    ctx.info.name,
    (cur) => {
      if (cur === null) throw notFound({ group: ctx.resource.group, resource: ctx.resource.resource }, ctx.info.name);
      const current = scaleOf(cur);
      const scale = method === 'PATCH' ? applyPatch(type, current, body) : checkBodyKind(ctx, body, 'Scale', 'autoscaling/v1');
      const want = meta(scale).resourceVersion as string | undefined;
      if (want !== undefined && want !== '' && want !== meta(cur).resourceVersion) throw conflict({ group: ctx.resource.group, resource: ctx.resource.resource }, ctx.info.name);
      const replicas = (scale.spec as Obj | undefined)?.replicas;
      if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
        throw newStatusError(422, 'Invalid', `Scale.autoscaling "${ctx.info.name}" is invalid: spec.replicas: Invalid value: ${String(replicas)}: must be greater than or equal to 0`);
      }
      const next = deepCopy(cur);
      next.spec = { ...(next.spec as Obj), replicas };
      return next;
    },
    { dryRun, now: ctx.services.clock.now(), admission: ctx.services.admission, subresource: 'scale' },
  );
  writeJSON(ctx.res, 200, scaleOf(obj));
}

/** PUT namespaces/finalize: replaces spec.finalizers only; a terminating namespace with none left is deleted. */
export async function handleFinalize(ctx: RestContext): Promise<void> {
  const body = checkBodyKind(ctx, decodeBody(await readBody(ctx.req), ctx.req.headers['content-type']));
  const finalizers = ((body.spec as Obj | undefined)?.finalizers ?? []) as string[];
  const dryRun = parseDryRun(ctx.info.query);
  const { obj } = await ctx.store.guaranteedUpdate(undefined, ctx.info.name, (cur) => {
    if (cur === null) throw notFound('namespaces', ctx.info.name);
    const next = deepCopy(cur);
    next.spec = { ...(next.spec as Obj), finalizers };
    return next;
  }, { allowCreate: false, dryRun });
  const done = dryRun ? obj : (await ctx.store.finalizeIfDone(obj)).obj;
  writeObject(ctx, 200, done);
}
