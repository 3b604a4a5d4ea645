/**
 * GET and LIST handlers, like upstream's handlers/get.go: resourceVersion
 * semantics, label and field selectors, limit/continue, and Table output,
 * read through the object-level storage contract (storage/objects.ts). Each
 * object's JSON bytes are encoded once and written as they are.
 */
import { compileFieldSelector, type FieldRequirement } from '../../api/index.js';
import { parseLabelSelector } from '../../api/index.js';
import { groupVersionString } from '../../api/index.js';
import { badRequest } from '../../api/index.js';
import { negotiateOutput } from '../negotiation.js';
import { printTable, tableFor } from '../registry/index.js';
import type { Obj } from '../object.js';
import type { Predicate } from '../registry/store.js';
import { toStatusError, writeJSON, writeLatin1JSON } from '../responsewriters.js';
import type { RestContext } from './context.js';
import { ChunkedBody } from './list_body.js';

/** Compiles a field selector against the resource's selectable fields (a custom resource's selectableFields too). */
const fieldSelectorOf = (ctx: RestContext, raw: string): ReturnType<typeof compileFieldSelector> =>
  compileFieldSelector(ctx.resource.resource, raw, ctx.resource.namespaced, ctx.fieldGetters);

/**
 * Compiles ?labelSelector and ?fieldSelector into one predicate (undefined when both are empty). A field selector
 * alone also carries its terms, so the watch cache can test them on the field values it keeps (see SelectorPredicate).
 */
export function selectorPredicate(ctx: RestContext): Predicate | undefined {
  const q = ctx.info.query;
  const ls = parseLabelSelector(q.get('labelSelector') ?? '');
  const fs = fieldSelectorOf(ctx, q.get('fieldSelector') ?? '');
  if (ls.empty && fs.empty) return undefined;
  const p: Predicate & { fieldTerms?: readonly FieldRequirement[] } = (obj: Obj) =>
    ls.matches((obj.metadata as Obj | undefined)?.labels as Record<string, string> | undefined) && fs.matches(obj);
  if (ls.empty) p.fieldTerms = fs.selector.requirements;
  return p;
}

/** Parses a resourceVersion parameter: undefined for "", else a non-negative integer (400 otherwise). */
export function parseRV(v: string | null): number | undefined {
  if (v === null || v === '') return undefined;
  // Past 2^53 a revision is not exact in a JS number (storage would see a float): a 400, as upstream's failed uint64 parse.
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw badRequest(`invalid resource version: ${v}`);
  return Number(v);
}

/** The fields a store may index, in the order they are preferred for a lookup. */
export const INDEXED_FIELDS = ['spec.nodeName', 'metadata.name'];

/** The index lookup an exact field-selector term allows, if the store has that index (spec.nodeName=x, metadata.name=x). */
export function indexFromSelector(ctx: RestContext): { name: string; value: string } | undefined {
  const raw = ctx.info.query.get('fieldSelector') ?? '';
  if (raw === '') return undefined;
  const indexed = ctx.store.objects.indexNames;
  const reqs = fieldSelectorOf(ctx, raw).selector.requirements;
  for (const field of INDEXED_FIELDS) {
    if (!indexed.includes(field)) continue;
    const r = reqs.find((x) => x.field === field && x.operator === '=');
    if (r !== undefined) return { name: field, value: r.value };
  }
  return undefined;
}

/**
 * The predicate still needed once an index lookup is used: none when the
 * selector is exactly that one indexed term (a kubelet's spec.nodeName=x), so
 * the cache never decodes objects for it.
 */
export function residualPredicate(
  ctx: RestContext,
  index: { name: string; value: string } | undefined,
  predicate: Predicate | undefined,
): Predicate | undefined {
  if (index === undefined || predicate === undefined) return predicate;
  if ((ctx.info.query.get('labelSelector') ?? '') !== '') return predicate;
  const reqs = fieldSelectorOf(ctx, ctx.info.query.get('fieldSelector') ?? '').selector.requirements;
  return reqs.length === 1 && reqs[0]!.field === index.name && reqs[0]!.operator === '=' ? undefined : predicate;
}

/**
 * GET of one object: resourceVersion "0" or "N" (not older than N), or unset (a consistent
 * read). The object storage decides whether its watch cache or storage answers.
 */
export async function handleGet(ctx: RestContext): Promise<void> {
  const rv = parseRV(ctx.info.query.get('resourceVersion'));
  let obj;
  try {
    obj = await ctx.store.objects.getObject(
      ctx.store.key(ctx.info.namespace, ctx.info.name),
      rv === undefined ? {} : { minRevision: rv },
    );
  } catch (err) {
    throw toStatusError(err, ctx.store.gr, ctx.info.name);
  }
  const out = negotiateOutput(ctx.req, ctx.info.query);
  if (out.table) {
    writeJSON(
      ctx.res,
      200,
      printTable(ctx.printer ?? tableFor(ctx.resource), [obj.decode() as Obj], {
        now: ctx.services.clock.now(),
        includeObject: out.includeObject,
        resourceVersion: String(obj.revision),
      }),
    );
    return;
  }
  // The stored bytes with the resourceVersion spliced in, copied by the stream (no ArrayBuffer, see EncodedObject).
  writeLatin1JSON(ctx.res, 200, obj.responseText());
}

/**
 * LIST, honouring resourceVersion/resourceVersionMatch, selectors and pagination: "0" and "N"
 * (NotOlderThan) read any state at or after N, unset is a consistent read, Exact reads that
 * revision, and selectors filter during the walk (spec.nodeName and metadata.name through indexes).
 */
export async function handleList(ctx: RestContext): Promise<void> {
  const q = ctx.info.query;
  const rv = parseRV(q.get('resourceVersion'));
  const match = q.get('resourceVersionMatch') ?? '';
  const cont = q.get('continue') ?? '';
  const limitParam = q.get('limit');
  const limit = limitParam === null || limitParam === '' ? 0 : Number(limitParam);
  if (!Number.isSafeInteger(limit) || limit < 0) throw badRequest(`invalid limit: ${limitParam}`);
  if (cont !== '' && rv !== undefined && rv !== 0)
    throw badRequest('specifying resource version is not allowed when using continue');
  if (match !== '' && match !== 'Exact' && match !== 'NotOlderThan')
    throw badRequest(`invalid resourceVersionMatch: ${match}`);
  if (match !== '' && rv === undefined)
    throw badRequest('resourceVersionMatch is forbidden unless resourceVersion is provided');
  if (match === 'Exact' && rv === 0)
    throw badRequest('resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
  const index = indexFromSelector(ctx);
  const predicate = residualPredicate(ctx, index, selectorPredicate(ctx));
  let list;
  try {
    list = await ctx.store.objects.listObjects({
      ...(match === 'Exact' ? { revision: rv! } : rv === undefined ? {} : { minRevision: rv }),
      ...(ctx.resource.namespaced && ctx.info.namespace !== '' ? { namespace: ctx.info.namespace } : {}),
      ...(index === undefined ? {} : { index }),
      ...(predicate === undefined ? {} : { predicate: predicate as (o: unknown) => boolean }),
      ...(limit > 0 ? { limit } : {}),
      ...(cont === '' ? {} : { continue: cont }),
      refusable: true,
    });
  } catch (err) {
    throw toStatusError(err, ctx.store.gr);
  }
  const listMeta: Obj = { resourceVersion: String(list.revision) };
  if (list.continue !== undefined) listMeta.continue = list.continue;
  if (list.remainingItemCount !== undefined) listMeta.remainingItemCount = list.remainingItemCount;
  const out = negotiateOutput(ctx.req, q);
  if (out.table) {
    writeJSON(
      ctx.res,
      200,
      printTable(
        ctx.printer ?? tableFor(ctx.resource),
        list.items.map((o) => o.decode() as Obj),
        {
          now: ctx.services.clock.now(),
          includeObject: out.includeObject,
          resourceVersion: listMeta.resourceVersion as string,
          ...(list.continue === undefined ? {} : { continue: list.continue }),
          ...(list.remainingItemCount === undefined ? {} : { remainingItemCount: list.remainingItemCount }),
        },
      ),
    );
    return;
  }
  // Stream the shared bytes through two reused chunks: one concat of 75k objects would copy ~150 MB
  // at once, and a fresh chunk per MiB costs page faults and external-memory GCs on every large list.
  const head = `{"kind":${JSON.stringify(ctx.resource.listKind)},"apiVersion":${JSON.stringify(groupVersionString(ctx.resource.group, ctx.resource.version))},"metadata":${JSON.stringify(listMeta)},"items":[`;
  ctx.res.writeHead(200, { 'Content-Type': 'application/json' });
  const body = new ChunkedBody(ctx.res);
  body.text(head);
  for (let i = 0; i < list.items.length; i++) {
    if (i > 0) body.text(',');
    if (!body.object(list.items[i]!) && !(await body.flushThen(list.items[i]!))) return;
  }
  body.text(']}');
  body.end();
}
