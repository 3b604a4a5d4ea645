/**
 * Per-resource behaviour for the generic store, like upstream's
 * rest.RESTCreateStrategy / RESTUpdateStrategy / RESTDeleteStrategy: what
 * create and update reset, how objects validate, and how deletion is graceful.
 * Each resource's folder under registry/ builds its own from `genericStrategy`.
 */
import { applyDefaults } from '../../api/index.js';
import type { ResourceInfo } from '../../api/index.js';
import type { KubeObject, PatchSchemaLookup } from '../../api/index.js';
import { validateCreate, validateStatusUpdate, validateUpdate, type ErrorList } from '../../api/index.js';
import type { UserInfo } from '../authentication/user.js';
import type { Obj } from '../object.js';
import type { IPAllocator, PortAllocator } from './ipallocator.js';

/** The context a write runs in: the time, and whether it is a dry run. */
export interface WriteContext {
  now: number;
  dryRun: boolean;
  /** Who is writing (upstream's request user), when the write comes from a request. */
  user?: UserInfo;
  /** The subresource an update writes ('' or absent for the object itself). */
  subresource?: string;
}

/** What strategies need from the server's configuration. */
export interface StrategyConfig {
  eventTTLSeconds: number;
  serviceIPs: IPAllocator;
  nodePorts: PortAllocator;
}

/** Behaviour of one resource; every hook is optional except where noted. */
export interface Strategy {
  /** Whether status is only written through the /status subresource (spec writes keep the old status). */
  hasStatusSubresource: boolean;
  /**
   * Whether a create keeps the status it was given even though status has its own subresource
   * (nodes, whose kubelet registers with a status; pods and namespaces, whose prepareForCreate sets it).
   */
  keepsStatusOnCreate: boolean;
  /** Whether metadata.generation tracks spec changes (deployments, replicasets, jobs, ...). */
  tracksGeneration: boolean;
  /** Whether PUT to a missing name creates it (leases, endpoints, events, like upstream). */
  allowCreateOnUpdate: boolean;
  /** Whether spec is a Go struct upstream, so it always serializes, at least as {}. */
  alwaysHasSpec: boolean;
  /** Whether status is a Go struct upstream, so it always serializes, at least as {}. */
  alwaysHasStatus: boolean;
  /** Subresources besides status that write the status (certificatesigningrequests/approval). */
  otherStatusSubresources?: readonly string[];
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
  /** Field errors of a pods/resize update (prepareForUpdate has kept all but the containers' resources). */
  validateResize?(obj: Obj, old: Obj): ErrorList;
  /**
   * The grace period to delete with, or 0 for immediate deletion, given the
   * requested grace (undefined: the resource's default). Upstream's CheckGracefulDelete.
   */
  gracePeriod?(obj: Obj, requested: number | undefined): number;
  /** Runs after a successful create (outside storage), e.g. to create dependants. */
  afterCreate?(obj: Obj): Promise<void>;
  /** Undoes what prepareForCreate reserved when the create then fails (allocated IPs and ports). */
  abortCreate?(obj: Obj): void | Promise<void>;
  /** Runs after a delete that removed the object from storage (to release allocations). */
  afterDelete?(obj: Obj): Promise<void>;
  /** Finalizers outside metadata.finalizers that block removal (namespaces: spec.finalizers). */
  pendingFinalizers?(obj: Obj): string[];
  /** Marks an object whose deletion has started (namespaces: status.phase Terminating). */
  markDeleting?(obj: Obj): void;
  /** TTL for new objects (events: --event-ttl). */
  ttlSeconds?(obj: Obj): number | undefined;
  /** The fields of `obj` the kind's schema does not know, when it is not a built-in schema (custom resources). */
  unknownFields?(obj: Obj): string[];
  /** Server-side apply's merge metadata, when it is not a built-in kind's (custom resources). */
  patchSchema?: PatchSchemaLookup;
}

/** Whether a write to `subresource` writes the status (and keeps the rest of the object), as status does. */
export function writesStatus(s: Strategy, subresource: string): boolean {
  return subresource === 'status' || (s.otherStatusSubresources?.includes(subresource) ?? false);
}

/** The rules a resource's folder sets; anything left out takes upstream's default (false). */
export type StrategyRules = Partial<Strategy>;

/**
 * A resource's strategy: the scheme's defaulting and validation from src/api, a status
 * subresource when the scheme serves one, and upstream's defaults (no generation, no
 * create-on-update), with `rules` layered on top.
 */
export function genericStrategy(info: ResourceInfo, rules: StrategyRules = {}): Strategy {
  const k = (o: Obj): KubeObject => o;
  const alwaysHasSpec = rules.alwaysHasSpec ?? false;
  const alwaysHasStatus = rules.alwaysHasStatus ?? false;
  return {
    hasStatusSubresource: info.subresources.some((x) => x.name === 'status'),
    keepsStatusOnCreate: false,
    tracksGeneration: false,
    allowCreateOnUpdate: false,
    alwaysHasSpec,
    alwaysHasStatus,
    applyDefaults: (o) => {
      if (alwaysHasSpec && (o.spec === undefined || o.spec === null)) o.spec = {};
      if (alwaysHasStatus && (o.status === undefined || o.status === null)) o.status = {};
      applyDefaults(info, k(o));
    },
    validate: (o) => validateCreate(info, k(o)),
    validateUpdate: (o, old) => validateUpdate(info, k(o), k(old)),
    validateStatusUpdate: (o, old) => validateStatusUpdate(info, k(o), k(old)),
    ...rules,
  };
}
