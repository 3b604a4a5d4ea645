/**
 * GarbageCollector, like pkg/controller/garbagecollector/garbagecollector.go:
 * deletes objects whose owners are all gone (background cascading), deletes
 * the dependents of an owner deleted in the foreground before removing its
 * `foregroundDeletion` finalizer, and strips ownerReferences from the
 * dependents of an owner deleted with `orphan` before removing that
 * finalizer. Owners are always confirmed against the API server before a
 * dependent is deleted, as upstream does.
 */
import type { KubeObject, OwnerReference } from '../../api/index.js';
import {
  isConflictError,
  isNotFoundError,
  RateLimitingQueue,
  runWorkers,
  unwrapDeleted,
  type ClientLogger,
  type RESTClient,
  type Workers,
} from '../../client/index.js';
import type { Controller, ControllerContext } from '../controller_context.js';
import { KIND_TO_RESOURCE, MONITORED_RESOURCES, RESOURCE_TO_KIND, type GarbageCollectorOptions } from './config.js';
import { GraphBuilder, type GraphNode, type ObjectIdentity } from './graph.js';

/** The controller's name for --controllers. */
export const GARBAGE_COLLECTOR_CONTROLLER = 'garbage-collector-controller';

/** Owners found gone are remembered (by uid) so many dependents of one owner cost one GET. */
const ABSENT_OWNER_CACHE_SIZE = 500;

/** Cascading deletion by ownerReferences. */
export class GarbageCollector implements Controller {
  readonly name = GARBAGE_COLLECTOR_CONTROLLER;
  readonly graph: GraphBuilder;
  private readonly attemptToDelete: RateLimitingQueue<GraphNode>;
  private readonly attemptToOrphan: RateLimitingQueue<GraphNode>;
  private readonly client: RESTClient;
  private readonly log: ClientLogger;
  private readonly absentOwners = new Set<string>();
  private workers: Workers[] = [];

  constructor(
    ctx: ControllerContext,
    private readonly opts: GarbageCollectorOptions = ctx.config.garbageCollector,
  ) {
    this.client = ctx.client;
    this.log = ctx.logger;
    this.attemptToDelete = new RateLimitingQueue<GraphNode>({
      clock: ctx.clock,
      name: 'garbage_collector_attempt_to_delete',
    });
    this.attemptToOrphan = new RateLimitingQueue<GraphNode>({
      clock: ctx.clock,
      name: 'garbage_collector_attempt_to_orphan',
    });
    this.graph = new GraphBuilder({
      attemptToDelete: (n) => this.attemptToDelete.add(n),
      attemptToOrphan: (n) => this.attemptToOrphan.add(n),
    });
    for (const gvr of MONITORED_RESOURCES) {
      const kind = RESOURCE_TO_KIND[gvr.resource]!;
      ctx.informers.informerFor<KubeObject>(gvr).addEventHandler({
        onAdd: (o) => this.graph.observe(o, kind),
        onUpdate: (_old, o) => this.graph.observe(o, kind),
        onDelete: (o) => {
          const obj = unwrapDeleted(o);
          if (obj.metadata?.uid !== undefined) this.graph.remove(obj.metadata.uid);
        },
      });
    }
  }

  /** Starts the delete and orphan workers. */
  run(): void {
    this.workers = [
      runWorkers(this.attemptToDelete, this.opts.concurrentGCSyncs, (n) => this.attemptToDeleteItem(n), {
        logger: this.log,
        name: 'garbagecollector-delete',
      }),
      runWorkers(this.attemptToOrphan, this.opts.concurrentGCSyncs, (n) => this.attemptToOrphanItem(n), {
        logger: this.log,
        name: 'garbagecollector-orphan',
      }),
    ];
  }

  /** Stops the workers after in-flight items. */
  async stop(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.stop()));
  }

  /** True when no item is being processed and none is queued. */
  isIdle(): boolean {
    return this.workers.every((w) => w.idle()) && this.attemptToDelete.len() === 0 && this.attemptToOrphan.len() === 0;
  }

  private resourceClient(kind: string) {
    const gvr = KIND_TO_RESOURCE[kind];
    return gvr === undefined ? undefined : { rc: this.client.resource(gvr), namespaced: gvr.namespaced };
  }

  /** The live object, or undefined when it is gone or has another uid; throws for kinds it cannot map. */
  private async getObject(id: ObjectIdentity): Promise<KubeObject | undefined> {
    const r = this.resourceClient(id.kind);
    if (r === undefined) throw new Error(`unable to map ${id.apiVersion}/${id.kind} to a resource`);
    try {
      const obj = await r.rc.get(id.name, r.namespaced ? { namespace: id.namespace } : {});
      return obj.metadata?.uid === id.uid ? obj : undefined;
    } catch (err) {
      if (isNotFoundError(err)) return undefined;
      throw err;
    }
  }

  private async attemptToDeleteItem(item: GraphNode): Promise<void> {
    // Being deleted is a one-way trip: wait for the deletion, then its dependents are processed.
    if (item.beingDeleted && !item.deletingDependents) return;
    if (!this.graph.uidToNode.has(item.identity.uid)) return;
    const latest = await this.getObject(item.identity);
    if (latest === undefined) {
      // A virtual node that does not exist (or a stale one): drop it and look at its dependents.
      if (this.graph.uidToNode.get(item.identity.uid) === item) this.graph.remove(item.identity.uid);
      return;
    }
    if (item.deletingDependents) {
      await this.processDeletingDependentsItem(item);
      return;
    }
    const refs = latest.metadata?.ownerReferences ?? [];
    if (refs.length === 0) return;
    const { solid, dangling, waiting } = await this.classifyReferences(item, refs);
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return;
      // Keep the solid owners; drop references to owners that are gone or waiting on this very object.
      await this.patchOwnerRefsAway(
        item,
        [...dangling, ...waiting].map((r) => r.uid),
      );
      return;
    }
    if (waiting.length > 0 && item.dependents.size > 0) {
      await this.deleteObject(item.identity, 'Foreground');
      return;
    }
    const fin = latest.metadata?.finalizers ?? [];
    await this.deleteObject(
      item.identity,
      fin.includes('orphan') ? 'Orphan' : fin.includes('foregroundDeletion') ? 'Foreground' : 'Background',
    );
  }

  /** Sorts an object's owners into present, gone, and being deleted in the foreground. */
  private async classifyReferences(
    item: GraphNode,
    refs: OwnerReference[],
  ): Promise<{ solid: OwnerReference[]; dangling: OwnerReference[]; waiting: OwnerReference[] }> {
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of refs) {
      if (this.absentOwners.has(ref.uid)) {
        dangling.push(ref);
        continue;
      }
      let owner: KubeObject | undefined;
      try {
        owner = await this.getObject({
          apiVersion: ref.apiVersion,
          kind: ref.kind,
          name: ref.name,
          uid: ref.uid,
          namespace: item.identity.namespace,
        });
      } catch (err) {
        // An owner of a kind kscale does not serve is left alone, never treated as gone.
        if (this.resourceClient(ref.kind) === undefined) {
          solid.push(ref);
          continue;
        }
        throw err;
      }
      if (owner === undefined) {
        if (this.absentOwners.size >= ABSENT_OWNER_CACHE_SIZE) this.absentOwners.clear();
        this.absentOwners.add(ref.uid);
        dangling.push(ref);
      } else if (
        owner.metadata?.deletionTimestamp !== undefined &&
        (owner.metadata.finalizers ?? []).includes('foregroundDeletion')
      ) {
        waiting.push(ref);
      } else {
        solid.push(ref);
      }
    }
    return { solid, dangling, waiting };
  }

  /** A foreground-deleting owner: delete its blocking dependents, then drop its finalizer once none is left. */
  private async processDeletingDependentsItem(item: GraphNode): Promise<void> {
    const blocking = item.blockingDependents();
    if (blocking.length === 0) {
      await this.removeFinalizer(item.identity, 'foregroundDeletion');
      return;
    }
    for (const dep of blocking) if (!dep.deletingDependents) this.attemptToDelete.add(dep);
  }

  /** An owner deleted with `orphan`: strip its references from every dependent, then drop the finalizer. */
  private async attemptToOrphanItem(owner: GraphNode): Promise<void> {
    if (!this.graph.uidToNode.has(owner.identity.uid)) return;
    await Promise.all([...owner.dependents].map((dep) => this.patchOwnerRefsAway(dep, [owner.identity.uid])));
    await this.removeFinalizer(owner.identity, 'orphan');
  }

  private async patchOwnerRefsAway(item: GraphNode, ownerUIDs: string[]): Promise<void> {
    const r = this.resourceClient(item.identity.kind);
    if (r === undefined) return;
    const patch = {
      metadata: { ownerReferences: ownerUIDs.map((uid) => ({ $patch: 'delete', uid })), uid: item.identity.uid },
    };
    try {
      await r.rc.patch(
        item.identity.name,
        'strategic',
        patch,
        r.namespaced ? { namespace: item.identity.namespace } : {},
      );
    } catch (err) {
      if (!isNotFoundError(err)) throw err;
    }
  }

  private async deleteObject(
    id: ObjectIdentity,
    propagationPolicy: 'Orphan' | 'Background' | 'Foreground',
  ): Promise<void> {
    const r = this.resourceClient(id.kind);
    if (r === undefined) return;
    try {
      await r.rc.delete(id.name, {
        ...(r.namespaced ? { namespace: id.namespace } : {}),
        propagationPolicy,
        preconditions: { uid: id.uid },
      });
      this.log.debug({ kind: id.kind, namespace: id.namespace, name: id.name, propagationPolicy }, 'garbage collected');
    } catch (err) {
      // Gone already, or replaced by a new object of the same name (uid precondition): nothing to collect.
      if (!isNotFoundError(err) && !isConflictError(err)) throw err;
    }
  }

  /** Removes one finalizer with a read-modify-write that retries on conflict. */
  private async removeFinalizer(id: ObjectIdentity, finalizer: string): Promise<void> {
    const r = this.resourceClient(id.kind);
    if (r === undefined) return;
    const opts = r.namespaced ? { namespace: id.namespace } : {};
    for (let attempt = 0; attempt < 5; attempt++) {
      let obj: KubeObject;
      try {
        obj = await r.rc.get(id.name, opts);
      } catch (err) {
        if (isNotFoundError(err)) return;
        throw err;
      }
      const fins = obj.metadata?.finalizers ?? [];
      if (obj.metadata?.uid !== id.uid || !fins.includes(finalizer)) return;
      obj.metadata!.finalizers = fins.filter((f) => f !== finalizer);
      try {
        await r.rc.update(obj, opts);
        return;
      } catch (err) {
        if (isNotFoundError(err)) return;
        if (!isConflictError(err)) throw err;
      }
    }
    throw new Error(`removing finalizer ${finalizer} from ${id.kind} ${id.name}: too many conflicts`);
  }
}
