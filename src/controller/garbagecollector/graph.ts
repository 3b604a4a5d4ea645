/**
 * The dependency graph, like pkg/controller/garbagecollector/graph.go and
 * graph_builder.go: one node per object uid with its owners and dependents,
 * built from the monitors' informer events. An owner referenced before it is
 * seen becomes a "virtual" node the collector verifies against the API
 * server. The builder decides what the collector must look at: dependents of
 * a deleted owner, owners being deleted in the foreground or orphaning.
 */
import type { KubeObject, OwnerReference } from '../../api/index.js';

/** Who an object is. */
export interface ObjectIdentity {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
}

const NO_DEPENDENTS: ReadonlySet<GraphNode> = new Set<GraphNode>();

/** One object of the graph. */
export class GraphNode {
  // Most nodes (pods) own nothing: their dependents set is made on the first dependent, not per node.
  private deps: Set<GraphNode> | undefined;
  owners: OwnerReference[] = [];
  /** Referenced but not (yet) observed by a monitor. */
  virtual = false;
  beingDeleted = false;
  /** Being deleted in the foreground: it waits for its blocking dependents. */
  deletingDependents = false;

  constructor(public identity: ObjectIdentity) {}

  /** The nodes that list this one among their owners. */
  get dependents(): ReadonlySet<GraphNode> {
    return this.deps ?? NO_DEPENDENTS;
  }

  /** Records `n` as a dependent. */
  addDependent(n: GraphNode): void {
    (this.deps ??= new Set()).add(n);
  }

  /** Forgets the dependent `n`. */
  removeDependent(n: GraphNode): void {
    if (this.deps?.delete(n) === true && this.deps.size === 0) this.deps = undefined;
  }

  /** Dependents whose reference to this node has blockOwnerDeletion (blockingDependents). */
  blockingDependents(): GraphNode[] {
    return [...this.dependents].filter((d) =>
      d.owners.some((o) => o.uid === this.identity.uid && o.blockOwnerDeletion === true),
    );
  }
}

/** What the builder asks the collector to do. */
export interface GraphQueues {
  attemptToDelete(n: GraphNode): void;
  attemptToOrphan(n: GraphNode): void;
}

const hasFinalizer = (o: KubeObject, f: string): boolean => (o.metadata?.finalizers ?? []).includes(f);

/** The uid -> node map and its maintenance from informer events. */
export class GraphBuilder {
  readonly uidToNode = new Map<string, GraphNode>();

  constructor(private readonly queues: GraphQueues) {}

  /** An object was added or updated. */
  observe(obj: KubeObject, kind: { apiVersion: string; kind: string }): void {
    const m = obj.metadata;
    if (m?.uid === undefined) return;
    // One literal with every field: a spread of `kind` would put the last three in a separate property array per node.
    const identity: ObjectIdentity = {
      apiVersion: kind.apiVersion,
      kind: kind.kind,
      namespace: m.namespace ?? '',
      name: m.name ?? '',
      uid: m.uid,
    };
    const owners = m.ownerReferences ?? [];
    let node = this.uidToNode.get(m.uid);
    if (node === undefined) {
      node = new GraphNode(identity);
      node.owners = owners;
      this.uidToNode.set(m.uid, node);
      this.addDependentToOwners(node, owners);
    } else {
      node.identity = identity;
      node.virtual = false;
      const removed = node.owners.filter((o) => !owners.some((x) => x.uid === o.uid));
      const added = owners.filter((o) => !node!.owners.some((x) => x.uid === o.uid));
      node.owners = owners;
      this.addDependentToOwners(node, added);
      for (const ref of removed) {
        const owner = this.uidToNode.get(ref.uid);
        if (owner === undefined) continue;
        owner.removeDependent(node);
        // A foreground-deleting owner may have waited for just this dependent.
        if (owner.deletingDependents) this.queues.attemptToDelete(owner);
      }
    }
    if (m.deletionTimestamp !== undefined) node.beingDeleted = true;
    this.processTransitions(obj, node);
  }

  /** An object was deleted: its dependents may now be garbage, its foreground owners unblocked. */
  remove(uid: string): void {
    const node = this.uidToNode.get(uid);
    if (node === undefined) return;
    this.removeNode(node);
    for (const dep of node.dependents) this.queues.attemptToDelete(dep);
    for (const ref of node.owners) {
      const owner = this.uidToNode.get(ref.uid);
      if (owner?.deletingDependents === true) this.queues.attemptToDelete(owner);
    }
  }

  private removeNode(node: GraphNode): void {
    this.uidToNode.delete(node.identity.uid);
    for (const ref of node.owners) this.uidToNode.get(ref.uid)?.removeDependent(node);
  }

  private addDependentToOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    for (const ref of owners) {
      let owner = this.uidToNode.get(ref.uid);
      if (owner === undefined) {
        // Not seen yet: a virtual node the collector checks against the API server.
        owner = new GraphNode({
          apiVersion: ref.apiVersion,
          kind: ref.kind,
          namespace: node.identity.namespace,
          name: ref.name,
          uid: ref.uid,
        });
        owner.virtual = true;
        this.uidToNode.set(ref.uid, owner);
        this.queues.attemptToDelete(owner);
      }
      owner.addDependent(node);
    }
  }

  private processTransitions(obj: KubeObject, node: GraphNode): void {
    if (obj.metadata?.deletionTimestamp === undefined) return;
    if (hasFinalizer(obj, 'orphan')) {
      this.queues.attemptToOrphan(node);
      return;
    }
    if (hasFinalizer(obj, 'foregroundDeletion')) {
      node.deletingDependents = true;
      for (const dep of node.dependents) this.queues.attemptToDelete(dep);
      this.queues.attemptToDelete(node);
    }
  }
}
