/**
 * GET and LIST handlers, like upstream's handlers/get.go: resourceVersion
 * semantics, label and field selectors, limit/continue, and Table output.
 */
import { compileFieldSelector } from '../../api/fields.js';
import { parseLabelSelector } from '../../api/labels.js';
import { groupVersionString } from '../../api/registry.js';
import { printTable } from '../../api/printers/index.js';
import { badRequest, timeout } from '../../api/status.js';
import { decode, withResourceVersion } from '../codec.js';
import { negotiateOutput } from '../negotiation.js';
import type { Obj } from '../object.js';
import type { Predicate } from '../registry/store.js';
import { writeJSON } from '../responsewriters.js';
import { getFromCache, listFromCache } from './cached_read.js';
import type { RestContext } from './context.js';

/** Compiles ?labelSelector and ?fieldSelector into one predicate (undefined when both are empty). */
export function selectorPredicate(ctx: RestContext): Predicate | undefined {
  const q = ctx.info.query;
  const ls = parseLabelSelector(q.get('labelSelector') ?? '');
  const fs = compileFieldSelector(ctx.resource.resource, q.get('fieldSelector') ?? '', ctx.resource.namespaced);
  if (ls.empty && fs.empty) return undefined;
  return (obj: Obj) => ls.matches((obj.metadata as Obj | undefined)?.labels as Record<string, string> | undefined) && fs.matches(obj);
}

/** Parses a resourceVersion parameter: undefined for "", else a non-negative integer (400 otherwise). */
export function parseRV(v: string | null): number | undefined {
  if (v === null || v === '') return undefined;
  // Past 2^53 a revision is not exact in a JS number (storage would see a float): a 400, as upstream's failed uint64 parse.
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw badRequest(`invalid resource version: ${v}`);
  return Number(v);
}

/** Fails with 504 "Too large resource version" when asked for a revision the store has not reached. */
export async function checkNotAhead(ctx: RestContext, rv: number | undefined): Promise<number> {
  const current = await ctx.services.storageFor(ctx.resource.resource).currentRevision();
  if (rv !== undefined && rv > current) throw timeout(`Too large resource version: ${rv}, current: ${current}`, 1);
  return current;
}

/** GET of one object. */
export async function handleGet(ctx: RestContext): Promise<void> {
  const getRV = parseRV(ctx.info.query.get('resourceVersion'));
  // "0" and "N" are served from the watch cache. Unset is a consistent read: upstream sends it to etcd (so do
  // we over etcd), but when the embedded store tells its acknowledged revision for free, the cache answers it
  // the way upstream's ConsistentListFromCache answers a list, after reaching that revision, so a GET still
  // sees every write acknowledged before it.
  const cacher = ctx.store.cacher;
  if (cacher !== undefined && (getRV !== undefined || cacher.consistentGetsFromCache)) return getFromCache(ctx, cacher, getRV);
  if (getRV !== undefined) await checkNotAhead(ctx, getRV);
  const kv = await ctx.store.getKV(ctx.info.namespace, ctx.info.name);
  const out = negotiateOutput(ctx.req, ctx.info.query);
  if (out.table) {
    writeJSON(ctx.res, 200, printTable(ctx.resource.resource, [decode(kv)], { now: ctx.services.clock.now(), includeObject: out.includeObject, resourceVersion: String(kv.modRevision) }));
    return;
  }
  // The stored bytes, with the resourceVersion spliced in: no decode and no re-encode.
  writeJSON(ctx.res, 200, withResourceVersion(kv.value, kv.modRevision));
}

/** LIST, honouring resourceVersion/resourceVersionMatch, selectors and pagination. */
export async function handleList(ctx: RestContext): Promise<void> {
  const q = ctx.info.query;
  const rv = parseRV(q.get('resourceVersion'));
  const match = q.get('resourceVersionMatch') ?? '';
  const cont = q.get('continue') ?? '';
  const limitParam = q.get('limit');
  const limit = limitParam === null || limitParam === '' ? 0 : Number(limitParam);
  if (!Number.isSafeInteger(limit) || limit < 0) throw badRequest(`invalid limit: ${limitParam}`);
  if (cont !== '' && rv !== undefined && rv !== 0) throw badRequest('specifying resource version is not allowed when using continue');
  if (match !== '' && match !== 'Exact' && match !== 'NotOlderThan') throw badRequest(`invalid resourceVersionMatch: ${match}`);
  if (match !== '' && rv === undefined) throw badRequest('resourceVersionMatch is forbidden unless resourceVersion is provided');
  if (match === 'Exact' && rv === 0) throw badRequest('resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
  if (ctx.store.cacher !== undefined) {
    return listFromCache(ctx, ctx.store.cacher, ctx.store.cacheIndexes, { rv, exact: match === 'Exact', limit, cont, predicate: selectorPredicate(ctx) });
  }
  // Exact reads at that revision; "", "0" and NotOlderThan read the latest state (after checking it is not behind).
  let revision = 0;
  if (match === 'Exact') revision = rv!;
  else await checkNotAhead(ctx, rv);
  const predicate = selectorPredicate(ctx);
  const page = await ctx.store.list({
    namespace: ctx.info.namespace,
    revision,
    limit,
    ...(cont === '' ? {} : { continue: cont }),
    ...(predicate === undefined ? {} : { predicate }),
  });
  const out = negotiateOutput(ctx.req, q);
  const listMeta: Obj = { resourceVersion: String(page.revision) };
  if (page.continue !== undefined) listMeta.continue = page.continue;
  if (page.remainingItemCount !== undefined) listMeta.remainingItemCount = page.remainingItemCount;
  if (out.table) {
    writeJSON(
      ctx.res,
      200,
      printTable(ctx.resource.resource, page.items.map((i) => i.obj), {
        now: ctx.services.clock.now(),
        includeObject: out.includeObject,
        resourceVersion: listMeta.resourceVersion as string,
        ...(page.continue === undefined ? {} : { continue: page.continue }),
        ...(page.remainingItemCount === undefined ? {} : { remainingItemCount: page.remainingItemCount }),
      }),
    );
    return;
  }
  // Encode once: splice the stored bytes of each item into the list without re-serializing them.
  const head = Buffer.from(
    `{"kind":${JSON.stringify(ctx.resource.listKind)},"apiVersion":${JSON.stringify(groupVersionString(ctx.resource.group, ctx.resource.version))},"metadata":${JSON.stringify(listMeta)},"items":[`,
  );
  const parts: Buffer[] = [head];
  page.items.forEach((it, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(withResourceVersion(it.kv.value, it.kv.modRevision));
  });
  parts.push(TAIL);
  writeJSON(ctx.res, 200, Buffer.concat(parts));
}

const COMMA = Buffer.from(',');
const TAIL = Buffer.from(']}');
