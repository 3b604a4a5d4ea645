/**
 * GET and LIST served by the watch cache, like kube-apiserver's cacher-backed
 * registry: resourceVersion "0" and "N" (NotOlderThan) read the cache once it
 * has reached N, unset is a consistent read, Exact reads the window, and
 * selectors filter during the walk (spec.nodeName and metadata.name through
 * the cache's indexes). Each object's JSON bytes are encoded once and shared.
 */
import type { ServerResponse } from 'node:http';
import { compileFieldSelector } from '../../api/fields.js';
import { groupVersionString, storageKey } from '../../api/registry.js';
import { printTable } from '../../api/printers/index.js';
import type { Cacher, EncodedObject } from '../../storage/cacher/index.js';
import { negotiateOutput } from '../negotiation.js';
import type { Obj } from '../object.js';
import type { Predicate } from '../registry/store.js';
import { toStatusError, writeJSON, writeJSONParts } from '../responsewriters.js';
import type { RestContext } from './context.js';

/** The fields the cache indexes, in the order they are preferred for a lookup. */
export const INDEXED_FIELDS = ['spec.nodeName', 'metadata.name'];

/** The index lookup an exact field-selector term allows, if any (spec.nodeName=x, metadata.name=x). */
export function indexFromSelector(ctx: RestContext, indexed: readonly string[]): { name: string; value: string } | undefined {
  const raw = ctx.info.query.get('fieldSelector') ?? '';
  if (raw === '') return undefined;
  const reqs = compileFieldSelector(ctx.resource.resource, raw, ctx.resource.namespaced).selector.requirements;
  for (const field of INDEXED_FIELDS) {
    if (!indexed.includes(field)) continue;
    const r = reqs.find((x) => x.field === field && x.operator === '=');
    if (r !== undefined) return { name: field, value: r.value };
  }
  return undefined;
}

/** The parsed parameters of a list request. */
export interface ListRequest {
  rv: number | undefined;
  exact: boolean;
  limit: number;
  cont: string;
  predicate: Predicate | undefined;
}

/**
 * The predicate still needed once an index lookup is used: none when the
 * selector is exactly that one indexed term (a kubelet's spec.nodeName=x), so
 * the cache never decodes objects for it.
 */
export function residualPredicate(ctx: RestContext, index: { name: string; value: string } | undefined, predicate: Predicate | undefined): Predicate | undefined {
  if (index === undefined || predicate === undefined) return predicate;
  if ((ctx.info.query.get('labelSelector') ?? '') !== '') return predicate;
  const reqs = compileFieldSelector(ctx.resource.resource, ctx.info.query.get('fieldSelector') ?? '', ctx.resource.namespaced).selector.requirements;
  return reqs.length === 1 && reqs[0]!.field === index.name && reqs[0]!.operator === '=' ? undefined : predicate;
}

/** LIST from the cache. */
export async function listFromCache(ctx: RestContext, cacher: Cacher, indexed: readonly string[], r: ListRequest): Promise<void> {
  const index = indexFromSelector(ctx, indexed);
  r = { ...r, predicate: residualPredicate(ctx, index, r.predicate) };
  let list;
  try {
    list = await cacher.listObjects({
      ...(r.exact ? { revision: r.rv! } : r.rv === undefined ? {} : { minRevision: r.rv }),
      ...(ctx.resource.namespaced && ctx.info.namespace !== '' ? { namespace: ctx.info.namespace } : {}),
      ...(index === undefined ? {} : { index }),
      ...(r.predicate === undefined ? {} : { predicate: r.predicate as (o: unknown) => boolean }),
      ...(r.limit > 0 ? { limit: r.limit } : {}),
      ...(r.cont === '' ? {} : { continue: r.cont }),
    });
  } catch (err) {
    throw toStatusError(err, { group: ctx.resource.group, resource: ctx.resource.resource });
  }
  const listMeta: Obj = { resourceVersion: String(list.revision) };
  if (list.continue !== undefined) listMeta.continue = list.continue;
  if (list.remainingItemCount !== undefined) listMeta.remainingItemCount = list.remainingItemCount;
  const out = negotiateOutput(ctx.req, ctx.info.query);
  if (out.table) {
    writeJSON(ctx.res, 200, printTable(ctx.resource.resource, list.items.map((o) => o.decode() as Obj), {
      now: ctx.services.clock.now(),
      includeObject: out.includeObject,
      resourceVersion: listMeta.resourceVersion as string,
      ...(list.continue === undefined ? {} : { continue: list.continue }),
      ...(list.remainingItemCount === undefined ? {} : { remainingItemCount: list.remainingItemCount }),
    }));
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

/** Chunk size of a streamed list. */
const CHUNK = 1 << 20;
/** Room past CHUNK for the separators and tail, which are appended without a flush. */
const SLACK = 16;

/**
 * A list response body built in two alternating 1 MiB buffers: while one is
 * being written to the socket the other fills, and a buffer is reused only
 * after its write has completed (which is also the back-pressure).
 */
class ChunkedBody {
  private readonly bufs = [Buffer.allocUnsafeSlow(CHUNK + SLACK), Buffer.allocUnsafeSlow(CHUNK + SLACK)];
  private readonly writing: (Promise<void> | null)[] = [null, null];
  private cur = 0;
  private len = 0;

  constructor(private readonly res: ServerResponse) {}

  /** Appends ASCII text: the list's head (first) or a separator or the tail (into the slack). */
  text(t: string): void {
    if (this.len + t.length > CHUNK + SLACK) {
      // Only a head longer than a chunk: it goes out first, on its own.
      this.res.write(t);
      return;
    }
    this.len += this.bufs[this.cur]!.write(t, this.len, 'latin1');
  }

  /** Appends an object's response bytes; false when the current chunk has no room (call flushThen). */
  object(o: EncodedObject): boolean {
    const at = o.copyInto(this.bufs[this.cur]!, this.len, CHUNK);
    if (at < 0) return false;
    this.len = at;
    return true;
  }

  /** Sends the current chunk, waits until the other one is free, then appends `o`; false once the client is gone. */
  async flushThen(o: EncodedObject): Promise<boolean> {
    this.send(false);
    const pending = this.writing[this.cur];
    if (pending !== null) await pending;
    if (this.res.destroyed) return false;
    // An object larger than a whole chunk goes out on its own.
    if (!this.object(o)) this.res.write(Buffer.concat(o.parts()));
    return true;
  }

  /** Ends the response with what is buffered. */
  end(): void {
    this.send(true);
  }

  private send(last: boolean): void {
    const i = this.cur;
    const data = this.bufs[i]!.subarray(0, this.len);
    if (last) {
      this.res.end(data);
      return;
    }
    if (this.len > 0) {
      this.writing[i] = new Promise<void>((resolve) => {
        const done = (): void => {
          this.res.off('close', done);
          resolve();
        };
        this.res.once('close', done);
        this.res.write(data, done);
      });
    }
    this.cur = i ^ 1;
    this.len = 0;
  }
}

/** GET from the cache: resourceVersion "0" or "N" (not older than N), or unset (a consistent read). */
export async function getFromCache(ctx: RestContext, cacher: Cacher, rv: number | undefined): Promise<void> {
  const key = storageKey(ctx.resource, ctx.resource.namespaced ? ctx.info.namespace : undefined, ctx.info.name);
  let obj;
  try {
    obj = await cacher.getObject(key, rv === undefined ? {} : { minRevision: rv });
  } catch (err) {
    throw toStatusError(err, { group: ctx.resource.group, resource: ctx.resource.resource }, ctx.info.name);
  }
  const out = negotiateOutput(ctx.req, ctx.info.query);
  if (out.table) {
    writeJSON(ctx.res, 200, printTable(ctx.resource.resource, [obj.decode() as Obj], { now: ctx.services.clock.now(), includeObject: out.includeObject, resourceVersion: String(obj.revision) }));
    return;
  }
  // Slices of the cached bytes around the resourceVersion: no copy kept per object, one writev per response.
  writeJSONParts(ctx.res, 200, obj.parts());
}

