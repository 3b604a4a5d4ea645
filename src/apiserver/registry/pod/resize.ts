/**
 * pods/resize, like upstream's ResizeREST (1.33): GET, PUT and PATCH of the pod through the generic handlers, whose
 * store runs the pod strategy's resize rules (only the containers' resources and resizePolicy change, the QoS class
 * stays) and admission as an UPDATE of pods/resize, which ResourceQuota charges and LimitRanger checks.
 */
import type { RestContext } from '../../endpoints/context.js';
import { handlePatch } from '../../endpoints/patch.js';
import { handleGet } from '../../endpoints/read.js';
import { handleUpdate } from '../../endpoints/write.js';

/** GET, PUT or PATCH pods/<name>/resize (the scheme allows no other verb). */
export async function handleResize(ctx: RestContext): Promise<void> {
  if (ctx.info.verb === 'get') return handleGet(ctx);
  if (ctx.info.verb === 'update') return handleUpdate(ctx);
  return handlePatch(ctx);
}
