/**
 * The Node authorizer's graph, as upstream's plugin/pkg/auth/authorizer/node Graph: a vertex per API
 * object, with every edge pointing towards the node whose kubelet may read the object:
 *
 *   node <- pod <- secret | configmap | serviceaccount | pvc
 *   pvc <- pv <- secret
 *
 * Upstream walks the edges on each decision (with a destination index on wide vertices). Here every
 * vertex keeps, per node, the number of its paths to that node, updated as edges come and go, so a
 * decision is two map lookups however many pods share a ServiceAccount or a Secret. The graph is
 * acyclic and at most four edges deep, so an edge change touches only the few vertices above it.
 * A vertex with one edge out (every pod, and a Secret only one pod mounts) has exactly its target's
 * paths, so it shares the target's map instead of keeping a copy.
 */

/** The kinds of vertex (upstream's vertexType). */
export type VertexType = 'node' | 'pod' | 'secret' | 'configmap' | 'serviceaccount' | 'pvc' | 'pv';

interface Vertex {
  readonly key: string;
  /** Edges towards nodes. */
  readonly out: Set<Vertex>;
  /** Edges from the vertices that reach nodes through this one; made on the first (most Secrets never get one). */
  in: Set<Vertex> | undefined;
  /**
   * Node name to the number of paths from this vertex to that node; a node vertex holds itself once.
   * With exactly one edge out, this is the target's own map.
   */
  reach: Map<string, number>;
}

/** What a bound pod contributes: its node and the objects it references (upstream's AddPod). */
export interface PodRefs {
  namespace: string;
  name: string;
  nodeName: string;
  /** Mirror pods get only their node edge: a node must not grant itself access by creating one. */
  mirror: boolean;
  serviceAccountName: string;
  secrets: readonly string[];
  configMaps: readonly string[];
  pvcs: readonly string[];
}

/** What a PersistentVolume contributes (upstream's AddPV): its bound claim and the Secrets it names. */
export interface PVRefs {
  name: string;
  claim?: { namespace: string; name: string };
  secrets: readonly { namespace: string; name: string }[];
}

const keyOf = (type: VertexType, namespace: string, name: string): string => `${type}/${namespace}/${name}`;

/** Vertices and edges, with each vertex's paths to nodes kept current. */
export class Graph {
  private readonly vertices = new Map<string, Vertex>();

  /** True when a path leads from the object to the node (upstream's hasPathFrom). */
  hasPathFrom(nodeName: string, type: VertexType, namespace: string, name: string): boolean {
    return this.vertices.get(keyOf(type, namespace, name))?.reach.has(nodeName) ?? false;
  }

  /** How many vertices the graph holds (for tests and metrics). */
  get size(): number {
    return this.vertices.size;
  }

  /** Sets a bound pod's edges, replacing any it had (upstream's AddPod). */
  setPod(p: PodRefs): void {
    this.deleteVertex('pod', p.namespace, p.name);
    const pod = this.vertex('pod', p.namespace, p.name);
    this.addEdge(pod, this.vertex('node', '', p.nodeName));
    if (p.mirror) return;
    if (p.serviceAccountName !== '')
      this.addEdge(this.vertex('serviceaccount', p.namespace, p.serviceAccountName), pod);
    for (const s of p.secrets) this.addEdge(this.vertex('secret', p.namespace, s), pod);
    for (const c of p.configMaps) this.addEdge(this.vertex('configmap', p.namespace, c), pod);
    for (const c of p.pvcs) this.addEdge(this.vertex('pvc', p.namespace, c), pod);
  }

  /** Removes a pod and the edges it brought (upstream's DeletePod). */
  deletePod(namespace: string, name: string): void {
    this.deleteVertex('pod', namespace, name);
  }

  /** Sets a PersistentVolume's edges: none unless it is bound to a claim (upstream's AddPV). */
  setPV(p: PVRefs): void {
    this.deleteVertex('pv', '', p.name);
    if (p.claim === undefined) return;
    const pv = this.vertex('pv', '', p.name);
    this.addEdge(pv, this.vertex('pvc', p.claim.namespace, p.claim.name));
    for (const s of p.secrets) this.addEdge(this.vertex('secret', s.namespace, s.name), pv);
  }

  /** Removes a PersistentVolume (upstream's DeletePV). */
  deletePV(name: string): void {
    this.deleteVertex('pv', '', name);
  }

  private vertex(type: VertexType, namespace: string, name: string): Vertex {
    const key = keyOf(type, namespace, name);
    let v = this.vertices.get(key);
    if (v === undefined) {
      v = { key, out: new Set(), in: undefined, reach: type === 'node' ? new Map([[name, 1]]) : new Map() };
      this.vertices.set(key, v);
    }
    return v;
  }

  private addEdge(from: Vertex, to: Vertex): void {
    if (from.out.has(to)) return;
    from.out.add(to);
    (to.in ??= new Set()).add(from);
    if (from.out.size === 1) {
      setReach(from, to.reach);
      propagateAbove(from, to.reach, 1);
      return;
    }
    // A second edge out: `from` stops sharing its first target's map.
    if (from.out.size === 2) setReach(from, new Map(from.reach));
    propagate(from, to.reach, 1);
  }

  private removeEdge(from: Vertex, to: Vertex): void {
    if (!from.out.delete(to)) return;
    to.in?.delete(from);
    if (from.out.size <= 1) {
      // Back to sharing its one remaining target's map, or to none at all.
      const [rest] = from.out;
      setReach(from, rest === undefined ? new Map() : rest.reach);
      propagateAbove(from, to.reach, -1);
    } else propagate(from, to.reach, -1);
    this.dropIfIsolated(to);
  }

  // Removes the vertex's edges, then the vertex and any neighbour left with no edge (as upstream's deleteVertexLocked).
  private deleteVertex(type: VertexType, namespace: string, name: string): void {
    const v = this.vertices.get(keyOf(type, namespace, name));
    if (v === undefined) return;
    for (const from of [...(v.in ?? [])]) {
      this.removeEdge(from, v);
      this.dropIfIsolated(from);
    }
    for (const to of [...v.out]) this.removeEdge(v, to);
    this.vertices.delete(v.key);
  }

  private dropIfIsolated(v: Vertex): void {
    if ((v.in?.size ?? 0) === 0 && v.out.size === 0) this.vertices.delete(v.key);
  }
}

// Adds (sign 1) or takes away (sign -1) `paths` at `v` and every vertex above it. `paths` belongs to a vertex
// below `v`, which the graph being acyclic keeps out of the walk. A vertex sharing its one target's map has
// changed with it already.
function propagate(v: Vertex, paths: ReadonlyMap<string, number>, sign: 1 | -1): void {
  if (v.out.size !== 1)
    for (const [node, n] of paths) {
      const next = (v.reach.get(node) ?? 0) + sign * n;
      if (next === 0) v.reach.delete(node);
      else v.reach.set(node, next);
    }
  propagateAbove(v, paths, sign);
}

// Gives `v` a new map, and every vertex that shares v's map (its one edge out leads to v) the same.
function setReach(v: Vertex, reach: Map<string, number>): void {
  v.reach = reach;
  if (v.in !== undefined) for (const up of v.in) if (up.out.size === 1) setReach(up, reach);
}

function propagateAbove(v: Vertex, paths: ReadonlyMap<string, number>, sign: 1 | -1): void {
  if (v.in !== undefined) for (const up of v.in) propagate(up, paths, sign);
}
