/**
 * pods/exec, pods/attach and pods/portforward: upstream proxies these
 * streams to the kubelet; a hollow pod has no process or socket behind it,
 * so each answers a 400 that says so instead of a stream.
 */
import { badRequest } from '../../../api/index.js';
import type { RestContext } from '../../endpoints/context.js';
import type { SubresourceHandler } from '../resource.js';

/** The handler of one streaming subresource that hollow pods cannot serve. */
export function hollowStream(what: string): SubresourceHandler {
  return async (ctx: RestContext): Promise<void> => {
    await ctx.store.get(ctx.info.namespace, ctx.info.name);
    throw badRequest(
      `cannot ${what} pod ${ctx.info.name}: it is a kscale hollow pod, whose containers are simulated and run no processes`,
    );
  };
}
