/** namespaces/finalize, like upstream's FinalizeREST: replaces spec.finalizers only. */
import { notFound } from '../../../api/index.js';
import { decodeBody, readBody } from '../../body.js';
import type { RestContext } from '../../endpoints/context.js';
import { checkBodyKind, parseDryRun, writeObject } from '../../endpoints/write.js';
import { deepCopy, type Obj } from '../../object.js';

/** PUT namespaces/finalize: replaces spec.finalizers only; a terminating namespace with none left is deleted. */
export async function handleFinalize(ctx: RestContext): Promise<void> {
  const body = checkBodyKind(ctx, decodeBody(await readBody(ctx.req), ctx.req.headers['content-type']));
  const finalizers = ((body.spec as Obj | undefined)?.finalizers ?? []) as string[];
  const dryRun = parseDryRun(ctx.info.query);
  const { obj } = await ctx.store.guaranteedUpdate(
    undefined,
    ctx.info.name,
    (cur) => {
      if (cur === null) throw notFound('namespaces', ctx.info.name);
      const next = deepCopy(cur);
      next.spec = { ...(next.spec as Obj), finalizers };
      return next;
    },
    { allowCreate: false, dryRun },
  );
  const done = dryRun ? obj : (await ctx.store.finalizeIfDone(obj)).obj;
  writeObject(ctx, 200, done);
}
