/**
 * Per-resource behaviour for the generic store, like upstream's
 * rest.RESTCreateStrategy / RESTUpdateStrategy / RESTDeleteStrategy: what
 * create and update reset, how objects validate, and how deletion is graceful.
 */
import type { ErrorList } from '../../api/validation/index.js';
import type { Obj } from '../object.js';

/** The context a write runs in: the time, and the admission chain's view of the cluster. */
export interface WriteContext {
  now: number;
  dryRun: boolean;
}

/** Behaviour of one resource; every hook is optional except where noted. */
export interface Strategy {
  /** Whether status is only written through the /status subresource (spec writes keep the old status). */
  hasStatusSubresource: boolean;
  /** Whether metadata.generation tracks spec changes (deployments, replicasets, jobs, ...). */
  tracksGeneration: boolean;
  /** Whether PUT to a missing name creates it (leases, endpoints, events, like upstream). */
  allowCreateOnUpdate: boolean;
  /** Upstream's defaulting functions (SetDefaults_*), applied on every write. */
  applyDefaults?(obj: Obj): void;
  /** Resets fields a create may not set (status of resources with a status subresource, ...). */
  prepareForCreate?(obj: Obj, ctx: WriteContext): void | Promise<void>;
  /** Carries over what an update may not change. */
  prepareForUpdate?(obj: Obj, old: Obj, ctx: WriteContext): void;
  /** Field errors of a new object. */
  validate?(obj: Obj): ErrorList;
  /** Field errors of an update, including immutable fields. */
  validateUpdate?(obj: Obj, old: Obj): ErrorList;
  /** Field errors of a status-subresource update. */
  validateStatusUpdate?(obj: Obj, old: Obj): ErrorList;
  /**
   * The grace period to delete with, or 0 for immediate deletion, given the
   * requested grace (undefined: the resource's default). Upstream's CheckGracefulDelete.
   */
  gracePeriod?(obj: Obj, requested: number | undefined): number;
  /** Runs after a successful create (outside storage), e.g. to create dependants. */
  afterCreate?(obj: Obj): Promise<void>;
  /** Undoes what prepareForCreate reserved when the create then fails (allocated IPs and ports). */
  abortCreate?(obj: Obj): void;
  /** Runs after a delete that removed the object from storage (to release allocations). */
  afterDelete?(obj: Obj): Promise<void>;
  /** Finalizers outside metadata.finalizers that block removal (namespaces: spec.finalizers). */
  pendingFinalizers?(obj: Obj): string[];
  /** Marks an object whose deletion has started (namespaces: status.phase Terminating). */
  markDeleting?(obj: Obj): void;
  /** TTL for new objects (events: --event-ttl). */
  ttlSeconds?(obj: Obj): number | undefined;
}

/** A strategy with upstream's defaults: no status subresource, no generation, no create-on-update. */
export const baseStrategy: Strategy = { hasStatusSubresource: false, tracksGeneration: false, allowCreateOnUpdate: false };
