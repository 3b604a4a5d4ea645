/**
 * The object-level storage contract, in the shape of kube-apiserver's storage.Interface
 * (staging/src/k8s.io/apiserver/pkg/storage/interfaces.go): gets, lists and watches of one
 * resource, returning encoded objects (each item's stored JSON and revision, with the response
 * bytes made once and decoding done only on demand). The API server's registry and handlers
 * read through this contract only. Two implementations:
 * - DirectObjectStorage (direct_objects.ts): over the byte-level Storage (sqlite, etcd3, the router);
 * - Cacher (cacher/): the watch cache, a decorator that answers from memory and hands a read to
 *   the direct store when shouldDelegate (delegator.ts) says so.
 *
 * resourceVersion rules, as for Kubernetes GET, LIST and WATCH:
 * - `revision` (an exact resourceVersion, resourceVersionMatch=Exact): the state at exactly that
 *   revision; Expired (410) when compacted (or, for the cache, older than its window and not in storage);
 *   TooLargeResourceVersion (504) when ahead of the store.
 * - `minRevision` (resourceVersion "N" with NotOlderThan, and "0"): any state at or after N; like
 *   kube-apiserver, "0" may serve stale data. N ahead of the store: TooLargeResourceVersion (504).
 * - neither: a consistent read, reflecting every write acknowledged before the read started.
 * - `continue`: the token of an earlier page; every page reads at the first page's revision.
 */
import type { EncodedObject } from './encoded_object.js';

/** One term of a field selector: the field-selector name, = or !=, and the value. */
export interface FieldTerm {
  field: string;
  operator: '=' | '!=';
  value: string;
}

/**
 * A selector predicate. When it is exactly a field selector (no label selector), `fieldTerms` lists its terms, and a
 * store that keeps each of those fields' values beside its objects (the watch cache's indexers, as upstream's
 * cacher keeps every object's fields) tests them on those values instead of decoding the object.
 */
export interface SelectorPredicate {
  (obj: unknown): boolean;
  fieldTerms?: readonly FieldTerm[];
}

/** A field a store can filter by cheaply (an index in the cache), e.g. spec.nodeName for pods. */
export interface Indexer {
  /** The field-selector name, e.g. 'spec.nodeName' or 'metadata.name'. */
  name: string;
  /** The field's value on a decoded object ('' when unset). */
  fn(obj: unknown): string;
  /**
   * The same field as a path of plain member names (e.g. ['spec', 'nodeName']), when `fn` is
   * `String(obj.<path> ?? '')`: JSON values are then indexed without decoding them.
   */
  path?: readonly string[];
  /**
   * Whether many objects share each value (a node name: every pod on the node): entries then hold one string
   * per value instead of one each. Not for values unique to an object, such as its name.
   */
  shared?: boolean;
}

/** The resourceVersion of a read; see the module comment. */
export interface ReadVersion {
  /** Exactly this revision (resourceVersionMatch=Exact); 0 or omitted: not an exact read. */
  revision?: number;
  /** Not older than this revision (resourceVersion "N", or "0" for any); omitted with no `revision`: a consistent read. */
  minRevision?: number;
}

/** Options of getObject. */
export type ObjectGetOptions = ReadVersion;

/** Options of listObjects: a Kubernetes list, filtered while walking. */
export interface ObjectListOptions extends ReadVersion {
  /** Only objects in this namespace. */
  namespace?: string;
  /** Only objects whose indexer `name` has `value`; the indexer must be configured. */
  index?: { name: string; value: string };
  /** Only objects that pass (label and field selectors); tested on a decoded copy, which it must not keep. */
  predicate?: SelectorPredicate;
  /** At most this many items; 0 or omitted means all. */
  limit?: number;
  /** An opaque token from an earlier page's `continue`; its revision wins over `revision`/`minRevision`. */
  continue?: string;
  /**
   * A client's LIST (the list endpoint): the watch cache may refuse it with Busy (429) while over
   * --watch-cache-max-bytes. The server's own lists never are, so it keeps running.
   */
  refusable?: boolean;
}

/** A page of objects; `items[i].bytes()` is the JSON of each with its resourceVersion. */
export interface ObjectList {
  items: EncodedObject[];
  /** The revision the list was read at (the first page's, for later pages). */
  revision: number;
  /** Set when more items remain; pass it back to read the next page. */
  continue?: string;
  /** How many items remain after this page, when the store knows cheaply (unfiltered lists only). */
  remainingItemCount?: number;
}

/**
 * Kubernetes watch event types. ERROR is not an event here: a watch that breaks throws a
 * StorageError from its iterator (Expired: 410, TooLargeResourceVersion: 504, TooSlow), which
 * the handler writes as the ERROR event (or, for TooSlow, ends the stream so the client re-watches).
 */
export type ObjectEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

/** One event for a watcher of objects. */
export interface ObjectEvent {
  type: ObjectEventType;
  /** The event's resourceVersion; for BOOKMARK, the revision the store has reached. */
  revision: number;
  /**
   * The object as this event shows it: `bytes()` is its JSON with metadata.resourceVersion
   * set. DELETED shows the last state at the deletion's (or selector exit's) revision. Null for BOOKMARK.
   */
  object: EncodedObject | null;
}

/** A running watch of objects; iterate it with `for await`, and stop it explicitly. */
export interface ObjectWatcher extends AsyncIterable<ObjectEvent> {
  stop(): void;
}

/** Options of watchObjects. Selectors apply as transitions: entering is ADDED, leaving is DELETED. */
export interface ObjectWatchOptions {
  /**
   * Deliver every change after this revision (exclusive), like a watch from resourceVersion R.
   * Older than what the store still has (compaction, or the cache's window): Expired (410).
   * Ahead of the store: TooLargeResourceVersion (504), after a short wait in the cache.
   * 0 or omitted: from the current revision.
   */
  fromRevision?: number;
  /** With fromRevision 0/omitted: first an ADDED event for every current object that matches (resourceVersion "0" or unset). */
  initialEvents?: boolean;
  /** With fromRevision 0/omitted: the initial state is a consistent read (resourceVersion unset). */
  consistent?: boolean;
  /** After the initial events, one BOOKMARK at the revision they were read at (sendInitialEvents' initial-events-end). */
  initialEventsEndBookmark?: boolean;
  /** Only objects in this namespace. */
  namespace?: string;
  /** Only objects whose indexer `name` has `value`, e.g. { name: 'spec.nodeName', value: 'node-7' }; the indexer must be configured. */
  index?: { name: string; value: string };
  /** Only objects that pass, tested on the decoded object before and after each change; must not mutate it. */
  predicate?: SelectorPredicate;
  /** Send BOOKMARK events (allowWatchBookmarks=true). */
  allowBookmarks?: boolean;
  /** Clock time (ms) when the API server will end this watch (its timeoutSeconds); bookmarks aim just before it. */
  deadline?: number;
}

/** Reads and watches of the objects of one resource (upstream's storage.Interface, read side). */
export interface ObjectStorage {
  /** The resource's key prefix, ending in '/', e.g. '/registry/pods/'. */
  readonly resourcePrefix: string;
  /** The names of the configured indexers (the fields `index` may name). */
  readonly indexNames: readonly string[];
  /** Reads one object; KeyNotFound when missing at the chosen revision. */
  getObject(key: string, opts?: ObjectGetOptions): Promise<EncodedObject>;
  /** Lists objects under the resource (or a namespace), in key order, filtered while walking. */
  listObjects(opts?: ObjectListOptions): Promise<ObjectList>;
  /** Watches objects; failures are thrown from the iterator (see ObjectEventType). */
  watchObjects(opts?: ObjectWatchOptions): ObjectWatcher;
}
