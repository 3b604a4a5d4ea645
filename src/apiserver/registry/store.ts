/**
 * The generic registry store, like upstream's registry/generic/registry.Store:
 * get and list; create, update and delete with the whole write sequence
 * (metadata, the strategy's defaults and preparation, admission, validation,
 * the write, and the strategy's after-hooks), with admission passed in by the
 * caller; update runs inside guaranteedUpdate so patches retry on conflict,
 * and delete honours finalizers and graceful deletion. The strategy shapes
 * each resource.
 */
import type { ResourceInfo } from '../../api/index.js';
import { storageKey } from '../../api/index.js';
import * as errs from '../../api/index.js';
import { formatTimestamp, generateName, newUID } from '../../api/index.js';
import { throwIfInvalid, type ErrorList } from '../../api/index.js';
import type { Attributes } from '../admission/chain.js';
import { DirectObjectStorage, type KeyValue, type ObjectStorage, type Storage } from '../../storage/index.js';
import { isStorageError } from '../../storage/index.js';
import { decode, encodeForStorage } from '../codec.js';
import { deepCopy, deepEqual, meta, type Obj } from '../object.js';
import { toStatusError } from '../responsewriters.js';
import { writesStatus, type Strategy, type WriteContext } from './strategy.js';
import type { UserInfo } from '../authentication/user.js';

/** A filter applied while walking a list, so unmatched objects are never copied out. */
export type Predicate = (obj: Obj) => boolean;

/** A page of objects read at one revision. */
export interface ListPage {
  items: { obj: Obj }[];
  revision: number;
  continue?: string;
  remainingItemCount?: number;
}

/** How a list reads: resourceVersion semantics already resolved by the handler. */
export interface ListParams {
  namespace?: string;
  /** 0: latest. */
  revision?: number;
  limit?: number;
  continue?: string;
  predicate?: Predicate;
}

/** An update computed from the current object, run inside compare-and-swap. */
export type UpdateFn = (current: Obj | null) => Obj | Promise<Obj>;

/** Admission as the store runs it, like upstream's admission.Interface: mutating then validating plugins, throwing StatusErrors. */
export interface Admission {
  run(a: Attributes): Promise<void>;
}

/** Options of a create (metav1.CreateOptions), with the admission to run (none for the server's own bootstrap objects). */
export interface CreateOptions {
  dryRun: boolean;
  now: number;
  admission?: Admission;
  /** The requesting user, for the strategy (admission is told through admissionFor). */
  user?: UserInfo;
  /** Runs on the admitted and validated object just before it is written (the handlers record field managers here). */
  beforeWrite?: (obj: Obj) => void;
}

/** Options of an update (metav1.UpdateOptions) of the object or one of its subresources. */
export interface UpdateOptions {
  dryRun: boolean;
  now: number;
  admission?: Admission;
  /** The requesting user, for the strategy (admission is told through admissionFor). */
  user?: UserInfo;
  /** '' for the object itself, else the subresource written (status, scale). */
  subresource: string;
  /**
   * Creates a missing object even when the strategy does not allow create-on-update (server-side apply),
   * like upstream's forceAllowCreate; only the object itself is ever created, never through a subresource.
   */
  forceAllowCreate?: boolean;
  /** The resourceVersion the client's object carries: a precondition unless empty. */
  expectRV?: string;
  /** Runs on the admitted and validated object just before it is written (`old` is null for a create). */
  beforeWrite?: (obj: Obj, old: Obj | null) => void;
}

/** Options of a delete request (metav1.DeleteOptions), with the admission to run. */
export interface DeleteParams {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  dryRun: boolean;
  now: number;
  admission?: Admission;
}

/** The store of one resource. */
export class GenericStore {
  readonly gr: errs.GroupResource;

  /** Writes and lists go here: the watch cache over storage, or storage itself. */
  private readonly storage: Storage;
  /** Single-object reads with no resourceVersion go straight to storage (a quorum read, like upstream's Get). */
  private readonly quorum: Storage;
  /**
   * The object-level reads HTTP gets, lists and watches are served from: the resource's Cacher,
   * or (the default) storage read directly; which of the two answers a read is theirs to decide.
   */
  readonly objects: ObjectStorage;

  constructor(
    readonly info: ResourceInfo,
    readonly strategy: Strategy,
    backends: { storage: Storage; quorum?: Storage; objects?: ObjectStorage },
  ) {
    this.storage = backends.storage;
    this.quorum = backends.quorum ?? backends.storage;
    this.objects =
      backends.objects ?? new DirectObjectStorage({ storage: this.quorum, resourcePrefix: info.storagePrefix });
    this.gr = { group: info.group, resource: info.resource };
  }

  /** The storage key of an object. */
  key(namespace: string | undefined, name: string): string {
    return storageKey(this.info, this.info.namespaced ? namespace : undefined, name);
  }

  /** Reads one object (latest state). */
  async get(namespace: string | undefined, name: string): Promise<Obj> {
    try {
      return decode(await this.quorum.get(this.key(namespace, name)));
    } catch (err) {
      throw toStatusError(err, this.gr, name);
    }
  }

  /**
   * Reads one object as a GET with resourceVersion=0 does: the watch cache's copy when it holds the object (any
   * revision it has), else the latest from storage, like upstream's callers that read with RV 0 and fall back to a
   * live lookup on any error. A missing object is a 404.
   */
  async getCached(namespace: string | undefined, name: string): Promise<Obj> {
    try {
      return (await this.objects.getObject(this.key(namespace, name), { minRevision: 0 })).decode() as Obj;
    } catch {
      return this.get(namespace, name);
    }
  }

  /**
   * The name and uid of one object, read as getCached reads it. From the watch cache they are decoded once per
   * cached version and kept with it: every pod's TokenRequest names its Node, and a node's 30 pods share one version,
   * where decoding the whole Node per token was 1.7% of the server's CPU at 1,000 nodes.
   */
  async getCachedRef(namespace: string | undefined, name: string): Promise<{ name: string; uid: string }> {
    let cached;
    try {
      cached = await this.objects.getObject(this.key(namespace, name), { minRevision: 0 });
    } catch {
      return refOf(await this.get(namespace, name));
    }
    return cached.encoded('name-uid', (o) => refOf(o.decode() as Obj));
  }

  /** Reads one object with its storage record. */
  async getWithKV(namespace: string | undefined, name: string): Promise<{ obj: Obj; kv: KeyValue }> {
    try {
      const kv = await this.quorum.get(this.key(namespace, name));
      return { obj: decode(kv), kv };
    } catch (err) {
      throw toStatusError(err, this.gr, name);
    }
  }

  /** Lists objects (a consistent read) through the object storage, decoded; for the server's own loops, not HTTP. */
  async list(p: ListParams): Promise<ListPage> {
    const ns = this.info.namespaced && p.namespace !== undefined && p.namespace !== '' ? p.namespace : undefined;
    try {
      const page = await this.objects.listObjects({
        ...(p.revision !== undefined && p.revision > 0 ? { revision: p.revision } : {}),
        ...(ns === undefined ? {} : { namespace: ns }),
        ...(p.predicate === undefined ? {} : { predicate: p.predicate as (o: unknown) => boolean }),
        ...(p.limit === undefined || p.limit === 0 ? {} : { limit: p.limit }),
        ...(p.continue === undefined || p.continue === '' ? {} : { continue: p.continue }),
      });
      const out: ListPage = { items: page.items.map((o) => ({ obj: o.decode() as Obj })), revision: page.revision };
      if (page.continue !== undefined) out.continue = page.continue;
      if (page.remainingItemCount !== undefined) out.remainingItemCount = page.remainingItemCount;
      return out;
    } catch (err) {
      throw toStatusError(err, this.gr);
    }
  }

  /**
   * Creates an object, like upstream's Store.Create: metadata, defaults and the strategy's
   * preparation, admission, validation, the write, then afterCreate. A failure after the
   * strategy reserved something (service IPs and ports) gives it back. Returns the object and
   * its stored record (absent for a dry run), so a response can reuse the stored bytes.
   */
  async create(obj: Obj, opts: CreateOptions): Promise<{ obj: Obj; stored?: KeyValue }> {
    try {
      await this.prepareNew(obj, (meta(obj).namespace as string | undefined) ?? '', opts);
    } catch (err) {
      if (!opts.dryRun) await this.strategy.abortCreate?.(obj);
      throw err;
    }
    opts.beforeWrite?.(obj);
    let created: { obj: Obj; stored?: KeyValue };
    try {
      created = await this.createStored(obj, opts);
    } catch (err) {
      if (!opts.dryRun) await this.strategy.abortCreate?.(obj);
      throw err;
    }
    if (!opts.dryRun) await this.strategy.afterCreate?.(created.obj);
    return created;
  }

  /** Writes an object that already passed the create sequence; the stored record is absent for a dry run. */
  private async createStored(obj: Obj, ctx: WriteContext): Promise<{ obj: Obj; stored?: KeyValue }> {
    const m = meta(obj);
    const name = m.name as string;
    const value = encodeForStorage(obj);
    if (ctx.dryRun) {
      // Dry run: everything but the write. An existing name still conflicts, as upstream.
      const exists = await this.exists(m.namespace as string | undefined, name);
      if (exists) throw errs.alreadyExists(this.gr, name);
      return { obj };
    }
    try {
      const ttl = this.strategy.ttlSeconds?.(obj);
      const kv = await this.storage.create(
        this.key(m.namespace as string | undefined, name),
        value,
        ttl === undefined ? { object: obj } : { ttlSeconds: ttl, object: obj },
      );
      // The stored bytes are exactly `obj` encoded: answer with it instead of decoding them again.
      m.resourceVersion = String(kv.modRevision);
      return { obj, stored: kv };
    } catch (err) {
      throw toStatusError(err, this.gr, name);
    }
  }

  /**
   * Updates an object, like upstream's Store.Update: `objInfo` computes the new object from the
   * current one (null when missing and creating is allowed), which then goes through the create
   * sequence or the update sequence (metadata carried over, defaults and the strategy's
   * preparation, admission, validation) inside compare-and-swap, so a conflict runs it all again.
   * An update that leaves a deleted object without finalizers removes it. `stored` is the stored
   * record of the result (absent for a dry run, or when the object was then removed).
   */
  async update(
    namespace: string | undefined,
    name: string,
    objInfo: UpdateFn,
    opts: UpdateOptions,
  ): Promise<{ obj: Obj; created: boolean; stored?: KeyValue }> {
    const sub = opts.subresource;
    const allowCreate = sub === '' && (this.strategy.allowCreateOnUpdate || opts.forceAllowCreate === true);
    const result = await this.guaranteedUpdate(
      namespace,
      name,
      async (current) => {
        const next = await objInfo(current);
        if (current === null) await this.prepareNew(next, namespace ?? '', opts);
        else await this.prepareUpdated(next, current, namespace ?? '', name, opts);
        opts.beforeWrite?.(next, current);
        return next;
      },
      { allowCreate, dryRun: opts.dryRun, ...(opts.expectRV === undefined ? {} : { expectRV: opts.expectRV }) },
    );
    if (opts.dryRun) return result;
    const final = await this.finalizeIfDone(result.obj);
    if (result.created) await this.strategy.afterCreate?.(final.obj);
    return final.obj === result.obj ? result : { obj: final.obj, created: result.created };
  }

  /**
   * Read-modify-write with no strategy: `fn` gets the current object (null when missing and
   * `allowCreate`), returns the new one, and is retried on conflict, like upstream's
   * GuaranteedUpdate (subresources with their own rules, such as pods/binding, and the server's
   * controllers use it). When the result equals the current object nothing is written.
   * `stored` is the stored record of the result (absent for a dry run), whose bytes a response can reuse.
   */
  async guaranteedUpdate(
    namespace: string | undefined,
    name: string,
    fn: UpdateFn,
    opts: { allowCreate: boolean; dryRun: boolean; expectRV?: string },
  ): Promise<{ obj: Obj; created: boolean; stored?: KeyValue }> {
    let created = false;
    let dryResult: Obj | null = null;
    // The object the last attempt stored (or kept): the result, without decoding the stored bytes again.
    let result: Obj | null = null;
    const key = this.key(namespace, name);
    try {
      const kv = await this.storage.guaranteedUpdate(
        key,
        async (cur) => {
          const current = cur === null ? null : decode(cur);
          // Like upstream, resourceVersion "0" (parsed as 0) is no precondition: an unconditional update.
          const conditional = opts.expectRV !== undefined && opts.expectRV !== '' && opts.expectRV !== '0';
          if (current !== null && conditional && opts.expectRV !== String(cur!.modRevision)) {
            throw errs.conflict(this.gr, name);
          }
          if (current === null && !opts.allowCreate) throw errs.notFound(this.gr, name);
          created = current === null;
          const next = await fn(current);
          if (opts.dryRun) {
            dryResult = next;
            throw DRY_RUN;
          }
          if (current !== null && deepEqual(stripRV(next), stripRV(current))) {
            result = current;
            return { value: cur!.value };
          }
          result = next;
          const ttl = created ? this.strategy.ttlSeconds?.(next) : undefined;
          const value = encodeForStorage(next);
          return ttl === undefined ? { value, object: next } : { value, ttlSeconds: ttl, object: next };
        },
        { ignoreNotFound: opts.allowCreate },
      );
      // Storage stores the bytes it was given, or keeps the current ones when they are equal: either way `result`.
      const obj = result ?? decode(kv);
      meta(obj).resourceVersion = String(kv.modRevision);
      return { obj, created, stored: kv };
    } catch (err) {
      if (err === DRY_RUN && dryResult !== null) return { obj: dryResult, created };
      if (isStorageError(err, 'KeyNotFound')) throw errs.notFound(this.gr, name);
      throw toStatusError(err, this.gr, name);
    }
  }

  /**
   * Deletes an object the upstream way, after delete admission: with finalizers pending (or a graceful
   * period) it only sets deletionTimestamp and returns the object; otherwise it
   * removes it. Returns the object and whether it is gone from storage.
   */
  async delete(namespace: string | undefined, name: string, p: DeleteParams): Promise<{ obj: Obj; deleted: boolean }> {
    await p.admission?.run({
      operation: 'DELETE',
      resource: this.info.resource,
      subresource: '',
      namespace: namespace ?? '',
      name,
      object: null,
      oldObject: null,
      dryRun: p.dryRun,
    });
    const key = this.key(namespace, name);
    try {
      for (;;) {
        const { obj: current, kv } = await this.getWithKV(namespace, name);
        const m = meta(current);
        if (p.preconditions?.uid !== undefined && p.preconditions.uid !== m.uid) {
          throw errs.conflict(
            this.gr,
            name,
            `Precondition failed: UID in precondition: ${p.preconditions.uid}, UID in object meta: ${m.uid}`,
          );
        }
        if (
          p.preconditions?.resourceVersion !== undefined &&
          p.preconditions.resourceVersion !== String(kv.modRevision)
        ) {
          throw errs.conflict(
            this.gr,
            name,
            `Precondition failed: ResourceVersion in precondition: ${p.preconditions.resourceVersion}, ResourceVersion in object meta: ${kv.modRevision}`,
          );
        }
        const finalizers = [...((m.finalizers as string[] | undefined) ?? [])];
        if (p.propagationPolicy === 'Foreground' && !finalizers.includes('foregroundDeletion'))
          finalizers.push('foregroundDeletion');
        if (p.propagationPolicy === 'Orphan' && !finalizers.includes('orphan')) finalizers.push('orphan');
        const grace = this.strategy.gracePeriod?.(current, p.gracePeriodSeconds) ?? 0;
        const already = m.deletionTimestamp !== undefined;
        const pending = finalizers.length + (this.strategy.pendingFinalizers?.(current).length ?? 0);
        if (pending > 0 || grace > 0) {
          // Graceful: mark for deletion; a later delete may only shorten the grace period.
          const next = deepCopy(current);
          const nm = meta(next);
          if (!already) {
            nm.deletionTimestamp = formatTimestamp(p.now + grace * 1000);
            nm.deletionGracePeriodSeconds = grace;
          } else if (grace < ((nm.deletionGracePeriodSeconds as number | undefined) ?? 0)) {
            nm.deletionGracePeriodSeconds = grace;
            nm.deletionTimestamp = formatTimestamp(p.now + grace * 1000);
          }
          if (finalizers.length > 0) nm.finalizers = finalizers;
          this.strategy.markDeleting?.(next);
          if (p.dryRun || deepEqual(next, current)) return { obj: next, deleted: false };
          try {
            const written = await this.storage.guaranteedUpdate(key, () => ({ value: encodeForStorage(next) }), {
              precondition: { modRevision: kv.modRevision },
            });
            return { obj: decode(written), deleted: false };
          } catch (err) {
            if (isStorageError(err, 'Conflict')) continue;
            throw err;
          }
        }
        if (p.dryRun) return { obj: current, deleted: true };
        try {
          const gone = await this.storage.delete(key, { precondition: { modRevision: kv.modRevision } });
          const obj = decode(gone);
          meta(obj).resourceVersion = String(gone.modRevision);
          await this.strategy.afterDelete?.(obj);
          return { obj, deleted: true };
        } catch (err) {
          if (isStorageError(err, 'Conflict')) continue;
          throw err;
        }
      }
    } catch (err) {
      throw toStatusError(err, this.gr, name);
    }
  }

  /** Deletes the object if an update left it with deletionTimestamp set and no finalizers (upstream's deleteWithoutFinalizers). */
  async finalizeIfDone(obj: Obj): Promise<{ obj: Obj; deleted: boolean }> {
    const m = meta(obj);
    if (m.deletionTimestamp === undefined || ((m.finalizers as string[] | undefined) ?? []).length > 0)
      return { obj, deleted: false };
    if ((this.strategy.pendingFinalizers?.(obj).length ?? 0) > 0) return { obj, deleted: false };
    const grace = (m.deletionGracePeriodSeconds as number | undefined) ?? 0;
    if (grace > 0) return { obj, deleted: false };
    try {
      const gone = await this.storage.delete(this.key(m.namespace as string | undefined, m.name as string), {
        precondition: { modRevision: Number(m.resourceVersion) },
      });
      const out = decode(gone);
      meta(out).resourceVersion = String(gone.modRevision);
      await this.strategy.afterDelete?.(out);
      return { obj: out, deleted: true };
    } catch (err) {
      if (isStorageError(err, 'Conflict') || isStorageError(err, 'KeyNotFound')) return { obj, deleted: false };
      throw toStatusError(err, this.gr, m.name as string);
    }
  }

  /** The create sequence before the write: metadata, a name, defaults, the strategy's preparation, admission, validation. */
  private async prepareNew(obj: Obj, namespace: string, opts: CreateOptions | UpdateOptions): Promise<void> {
    this.prepareCreate(obj, opts);
    const m = meta(obj);
    if (typeof m.name !== 'string' || m.name === '') {
      const cause = {
        reason: 'FieldValueRequired',
        message: 'Required value: name or generateName is required',
        field: 'metadata.name',
      };
      throw errs.invalid(
        { group: this.info.group, kind: this.info.kind },
        '',
        [cause],
        ['metadata.name: Required value: name or generateName is required'],
      );
    }
    this.strategy.applyDefaults?.(obj);
    await this.strategy.prepareForCreate?.(obj, opts);
    await opts.admission?.run({
      operation: 'CREATE',
      resource: this.info.resource,
      subresource: '',
      namespace,
      name: m.name,
      object: obj,
      oldObject: null,
      dryRun: opts.dryRun,
    });
    this.check(m.name, this.strategy.validate?.(obj) ?? []);
  }

  /** The update sequence before the write: metadata and status carried over, defaults, the strategy's preparation, admission, validation. */
  private async prepareUpdated(
    next: Obj,
    current: Obj,
    namespace: string,
    name: string,
    opts: UpdateOptions,
  ): Promise<void> {
    const sub = opts.subresource;
    this.prepareUpdate(next, current, sub);
    this.strategy.applyDefaults?.(next);
    this.strategy.prepareForUpdate?.(next, current, opts);
    await opts.admission?.run({
      operation: 'UPDATE',
      resource: this.info.resource,
      subresource: sub,
      namespace,
      name,
      object: next,
      oldObject: current,
      dryRun: opts.dryRun,
    });
    const errors =
      sub === 'status'
        ? this.strategy.validateStatusUpdate?.(next, current)
        : sub === 'resize' && this.strategy.validateResize !== undefined
          ? this.strategy.validateResize(next, current)
          : this.strategy.validateUpdate?.(next, current);
    this.check(name, errors ?? []);
  }

  /** Fills the metadata a create sets (uid, timestamps, generation) and drops a status the create may not set. */
  private prepareCreate(obj: Obj, ctx: WriteContext): void {
    const m = meta(obj);
    if ((m.name === undefined || m.name === '') && typeof m.generateName === 'string' && m.generateName !== '') {
      m.name = generateName(m.generateName);
    }
    m.uid = newUID();
    m.creationTimestamp = formatTimestamp(ctx.now);
    delete m.resourceVersion;
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    delete m.selfLink;
    if (this.strategy.tracksGeneration) m.generation = 1;
    else delete m.generation;
    if (this.strategy.hasStatusSubresource && !this.strategy.keepsStatusOnCreate) delete obj.status;
  }

  /**
   * Carries over the metadata an update may not change (uid, creationTimestamp, deletion, generation);
   * a main-resource write also keeps the old status, a `status` subresource write keeps its own.
   */
  private prepareUpdate(obj: Obj, old: Obj, subresource: string): void {
    const m = meta(obj);
    const om = meta(old);
    for (const k of [
      'uid',
      'creationTimestamp',
      'deletionTimestamp',
      'deletionGracePeriodSeconds',
      'generateName',
    ] as const) {
      if (om[k] === undefined) delete m[k];
      else m[k] = om[k];
    }
    if (this.strategy.hasStatusSubresource && !writesStatus(this.strategy, subresource)) {
      if (old.status === undefined) delete obj.status;
      else obj.status = old.status;
    }
    if (this.strategy.tracksGeneration) {
      const gen = (om.generation as number | undefined) ?? 1;
      m.generation = deepEqual(obj.spec, old.spec) ? gen : gen + 1;
    } else if (om.generation !== undefined) {
      m.generation = om.generation;
    } else {
      delete m.generation;
    }
  }

  /** Throws 422 Invalid when `errors` is not empty. */
  private check(name: string, errors: ErrorList): void {
    throwIfInvalid(this.info, name, errors);
  }

  private async exists(namespace: string | undefined, name: string): Promise<boolean> {
    try {
      await this.quorum.get(this.key(namespace, name));
      return true;
    } catch (err) {
      if (isStorageError(err, 'KeyNotFound')) return false;
      throw err;
    }
  }
}

const DRY_RUN = new Error('dry run');

function stripRV(o: Obj): Obj {
  const m = o.metadata as Obj | undefined;
  if (m === undefined || m.resourceVersion === undefined) return o;
  const { resourceVersion: _rv, ...rest } = m;
  return { ...o, metadata: rest };
}

function refOf(obj: Obj): { name: string; uid: string } {
  const m = meta(obj);
  return Object.freeze({ name: String(m.name ?? ''), uid: String(m.uid ?? '') });
}
