/**
 * The scale subresource (autoscaling/v1 Scale), like upstream's ScaleREST of
 * deployments and replicasets: a view of spec.replicas that GET, PUT and PATCH
 * read and write; a write goes through the store's update sequence.
 */
import { conflict, newStatusError, notFound, unsupportedMediaType } from '../../api/index.js';
import { decodeBody, mediaType, readBody } from '../body.js';
import { admissionFor, type RestContext } from '../endpoints/context.js';
import { applyPatch, PATCH_TYPES } from '../endpoints/patch.js';
import { checkBodyKind, parseDryRun } from '../endpoints/write.js';
import { deepCopy, meta, type Obj } from '../object.js';
import { writeJSON } from '../responsewriters.js';

/** An autoscaling/v1 Scale of `obj` (its identity metadata) with the given replicas and status. */
export function scaleObject(obj: Obj, replicas: number, status: Obj): Obj {
  const m = meta(obj);
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
    },
    spec: { replicas },
    status,
  };
}

/** The autoscaling/v1 Scale view of a deployment or replicaset. */
export function scaleOf(obj: Obj): Obj {
  const sel = (obj.spec as Obj | undefined)?.selector as Obj | undefined;
  // A ReplicationController's selector is the label map itself.
  const labelMap = sel !== undefined && sel.matchLabels === undefined && sel.matchExpressions === undefined;
  const matchLabels = ((labelMap ? sel : sel?.matchLabels) ?? {}) as Record<string, string>;
  return scaleObject(obj, ((obj.spec as Obj | undefined)?.replicas as number | undefined) ?? 0, {
    replicas: ((obj.status as Obj | undefined)?.replicas as number | undefined) ?? 0,
    selector: Object.entries(matchLabels)
      .map(([k, v]) => `${k}=${v}`)
      .join(','),
  });
}

/** A resource's Scale view and how a new spec.replicas is written back (custom resources: their scale paths). */
export interface ScaleAccess {
  view: (obj: Obj) => Obj;
  /** Returns a copy of `obj` with the replicas set. */
  setReplicas: (obj: Obj, replicas: number) => Obj;
}

const specReplicas: ScaleAccess = {
  view: scaleOf,
  setReplicas: (cur, replicas) => {
    const next = deepCopy(cur);
    next.spec = { ...(next.spec as Obj), replicas };
    return next;
  },
};

/** GET, PUT and PATCH of deployments/scale and replicasets/scale. */
export const handleScale = (ctx: RestContext): Promise<void> => serveScale(ctx, specReplicas);

/** GET, PUT and PATCH of a scale subresource through `access`: the write goes through the store's update sequence. */
export async function serveScale(ctx: RestContext, access: ScaleAccess): Promise<void> {
  const scaleOf = access.view;
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
      const scale =
        method === 'PATCH' ? applyPatch(type, current, body) : checkBodyKind(ctx, body, 'Scale', 'autoscaling/v1');
      const want = meta(scale).resourceVersion as string | undefined;
      if (want !== undefined && want !== '' && want !== meta(cur).resourceVersion)
        throw conflict({ group: ctx.resource.group, resource: ctx.resource.resource }, ctx.info.name);
      const replicas = (scale.spec as Obj | undefined)?.replicas;
      if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
        throw newStatusError(
          422,
          'Invalid',
          `Scale.autoscaling "${ctx.info.name}" is invalid: spec.replicas: Invalid value: ${String(replicas)}: must be greater than or equal to 0`,
        );
      }
      return access.setReplicas(cur, replicas);
    },
    { dryRun, now: ctx.services.clock.now(), admission: admissionFor(ctx), subresource: 'scale' },
  );
  writeJSON(ctx.res, 200, scaleOf(obj));
}
