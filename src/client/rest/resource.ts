/**
 * Typed helpers for one resource, like client-go's typed clients and the
 * dynamic client: URL building for core and named groups, namespaced and
 * cluster-scoped paths, the list/watch options, the four patch types and the
 * subresources control-plane components write (status, binding, eviction, scale).
 */
import type { KubeList, KubeObject, Status } from '../../api/index.js';
import type { Query, RequestOptions, RESTClient } from './client.js';
import { DEFAULT_WATCH_BUFFER, StreamWatch, type Watch } from './watch.js';

/** A group, version and plural resource, plus whether it lives in namespaces. */
export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
  namespaced: boolean;
}

/** List and watch options, as query parameters (metav1.ListOptions). */
export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  limit?: number;
  continue?: string;
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  signal?: AbortSignal;
}

/** Options of a single read. */
export interface GetOptions {
  namespace?: string;
  /** "0" lets the server answer from its cache, like kubelet's node GETs. */
  resourceVersion?: string;
  signal?: AbortSignal;
}

/** Options of create, update and patch (metav1.CreateOptions and friends). */
export interface WriteOptions {
  namespace?: string;
  fieldManager?: string;
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  dryRun?: boolean;
  signal?: AbortSignal;
}

/** The patch types, named like client-go's types.PatchType. */
export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

/** Options of a patch; `force` is for server-side apply conflicts. */
export interface PatchOptions extends WriteOptions {
  force?: boolean;
  subresource?: string;
  /**
   * Do not decode the object the server answers with (the call resolves to undefined): for a caller that
   * throws the result away, such as a hollow kubelet's status PATCHes (tens of thousands of pods, each
   * answer a whole Pod).
   */
  discardResult?: boolean;
}

/** Options of a delete (metav1.DeleteOptions). */
export interface DeleteOptions {
  namespace?: string;
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
  signal?: AbortSignal;
}

/** Options of a watch beyond list options. */
export interface WatchOptions extends ListOptions {
  /** Events buffered before the socket is paused. */
  bufferSize?: number;
  /**
   * The signal cancels only the opening of the watch (until the server answers); the open watch ends with
   * `stop()`. For a watcher of thousands of watches (a hollow fleet's reflectors): none keeps a signal and
   * its listener while it streams.
   */
  signalUntilResponse?: boolean;
}

/** A client for one resource type; T is the object shape. */
export class ResourceClient<T extends KubeObject = KubeObject> {
  constructor(
    readonly rest: RESTClient,
    readonly gvr: GroupVersionResource,
  ) {}

  /** The URL path of the collection, an object, or its subresource. */
  path(namespace?: string, name?: string, subresource?: string): string {
    const g = this.gvr;
    let p = g.group === '' ? `/api/${g.version}` : `/apis/${g.group}/${g.version}`;
    if (g.namespaced && namespace !== undefined && namespace !== '')
      p += `/namespaces/${encodeURIComponent(namespace)}`;
    p += `/${g.resource}`;
    if (name !== undefined) p += `/${encodeURIComponent(name)}`;
    if (subresource !== undefined) p += `/${subresource}`;
    return p;
  }

  private ns(obj: KubeObject | undefined, namespace: string | undefined): string | undefined {
    return namespace ?? obj?.metadata?.namespace;
  }

  /** GET one object. */
  get(name: string, opts: GetOptions = {}): Promise<T> {
    return this.read<T>(this.path(opts.namespace, name), opts);
  }

  /** A GET of one object or subresource at the options' resourceVersion. */
  private read<R>(path: string, opts: GetOptions): Promise<R> {
    return this.rest.request<R>({
      method: 'GET',
      path,
      query: { resourceVersion: opts.resourceVersion },
      signal: opts.signal,
    });
  }

  /** GET the collection (all namespaces when a namespaced resource has no namespace). */
  list(opts: ListOptions = {}): Promise<KubeList<T>> {
    return this.rest.request<KubeList<T>>({
      method: 'GET',
      path: this.path(opts.namespace),
      query: listQuery(opts),
      signal: opts.signal,
    });
  }

  /** Opens a watch; resolves once the server answers 200, throws StatusError (e.g. 410) otherwise. */
  async watch(opts: WatchOptions = {}): Promise<Watch<T>> {
    const res = await this.rest.stream({
      method: 'GET',
      path: this.path(opts.namespace),
      query: { ...listQuery(opts), watch: 'true' },
      signal: opts.signal,
      signalUntilResponse: opts.signalUntilResponse === true,
    });
    return new StreamWatch<T>(res, opts.bufferSize ?? DEFAULT_WATCH_BUFFER);
  }

  /** A POST or PUT of `body` with the write options' dryRun, fieldManager and signal. */
  private write<R>(method: 'POST' | 'PUT', path: string, body: unknown, opts: WriteOptions): Promise<R> {
    return this.rest.request<R>({ method, path, query: writeQuery(opts), body, signal: opts.signal });
  }

  /** POST a new object. */
  create(obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.write<T>('POST', this.path(this.ns(obj, opts.namespace)), obj, opts);
  }

  /** PUT an object; its resourceVersion makes it a compare-and-swap (409 Conflict when stale). */
  update(obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.write<T>('PUT', this.path(this.ns(obj, opts.namespace), name(obj)), obj, opts);
  }

  /** PUT the status subresource. */
  updateStatus(obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.write<T>('PUT', this.path(this.ns(obj, opts.namespace), name(obj), 'status'), obj, opts);
  }

  /** PATCH an object or subresource with one of the four patch types. */
  patch(objName: string, patchType: PatchType, patch: unknown, opts: PatchOptions = {}): Promise<T> {
    const query: Query = writeQuery(opts);
    if (opts.force !== undefined) query.force = opts.force;
    const req: RequestOptions = {
      method: 'PATCH',
      path: this.path(opts.namespace, objName, opts.subresource),
      query,
      body: patch,
      contentType: PATCH_CONTENT_TYPES[patchType],
      signal: opts.signal,
    };
    if (opts.discardResult === true) return this.rest.requestRaw(req).then(() => undefined as unknown as T);
    return this.rest.request<T>(req);
  }

  /** PATCH the status subresource. */
  patchStatus(objName: string, patchType: PatchType, patch: unknown, opts: PatchOptions = {}): Promise<T> {
    return this.patch(objName, patchType, patch, { ...opts, subresource: 'status' });
  }

  /** Server-side apply: creates or updates the fields `fieldManager` owns. */
  apply(obj: T, opts: PatchOptions & { fieldManager: string }): Promise<T> {
    return this.patch(name(obj), 'apply', obj, { ...opts, namespace: this.ns(obj, opts.namespace) });
  }

  /** DELETE an object; resolves to the object (graceful deletion) or a Success Status. */
  delete(objName: string, opts: DeleteOptions = {}): Promise<T | Status> {
    const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
    if (opts.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
    if (opts.propagationPolicy !== undefined) body.propagationPolicy = opts.propagationPolicy;
    if (opts.preconditions !== undefined) body.preconditions = opts.preconditions;
    return this.rest.request<T | Status>({
      method: 'DELETE',
      path: this.path(opts.namespace, objName),
      query: { dryRun: opts.dryRun === true ? 'All' : undefined },
      body,
      signal: opts.signal,
    });
  }

  /** POST to a subresource (pods/binding, pods/eviction). */
  createSubresource<R = KubeObject>(
    objName: string,
    subresource: string,
    body: unknown,
    opts: WriteOptions = {},
  ): Promise<R> {
    return this.write<R>('POST', this.path(opts.namespace, objName, subresource), body, opts);
  }

  /** GET a subresource (scale, status). */
  getSubresource<R = KubeObject>(objName: string, subresource: string, opts: GetOptions = {}): Promise<R> {
    return this.read<R>(this.path(opts.namespace, objName, subresource), opts);
  }

  /** PUT a subresource (scale). */
  updateSubresource<R = KubeObject>(
    objName: string,
    subresource: string,
    body: unknown,
    opts: WriteOptions = {},
  ): Promise<R> {
    return this.write<R>('PUT', this.path(opts.namespace, objName, subresource), body, opts);
  }

  /** Binds a pod to a node through pods/binding, as the scheduler does. */
  bind(podName: string, namespace: string, nodeName: string, opts: WriteOptions = {}): Promise<Status> {
    const binding = {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: podName, namespace },
      target: { apiVersion: 'v1', kind: 'Node', name: nodeName },
    };
    return this.createSubresource<Status>(podName, 'binding', binding, { ...opts, namespace });
  }

  /** Evicts a pod through pods/eviction (honours PodDisruptionBudgets where the server has them). */
  evict(
    podName: string,
    namespace: string,
    deleteOptions: Record<string, unknown> = {},
    opts: WriteOptions = {},
  ): Promise<Status> {
    const eviction = {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: podName, namespace },
      deleteOptions,
    };
    return this.createSubresource<Status>(podName, 'eviction', eviction, { ...opts, namespace });
  }
}

function name(obj: KubeObject): string {
  const n = obj.metadata?.name;
  if (n === undefined || n === '') throw new Error('object has no metadata.name');
  return n;
}

function listQuery(o: ListOptions): Query {
  return {
    labelSelector: o.labelSelector || undefined,
    fieldSelector: o.fieldSelector || undefined,
    resourceVersion: o.resourceVersion,
    resourceVersionMatch: o.resourceVersionMatch,
    limit: o.limit,
    continue: o.continue || undefined,
    timeoutSeconds: o.timeoutSeconds,
    allowWatchBookmarks: o.allowWatchBookmarks === true ? 'true' : undefined,
  };
}

function writeQuery(o: WriteOptions): Query {
  return {
    fieldManager: o.fieldManager,
    fieldValidation: o.fieldValidation,
    dryRun: o.dryRun === true ? 'All' : undefined,
  };
}
