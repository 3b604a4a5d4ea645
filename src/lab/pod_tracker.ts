/**
 * Watches every pod and node of the cluster, as ClusterLoader2's pod startup
 * measurement does, and records per pod when the lab's watch first saw it,
 * saw it bound to a node, and saw it Running. Objects are cut down to those
 * fields before they are cached, so 75,000 pods cost little memory.
 */
import {
  DeletedFinalStateUnknown,
  newInformer,
  RESOURCES,
  type KubeObject,
  type RESTClient,
  type Stopper,
} from '../client/index.js';
import type { Node, Pod } from '../api/index.js';

/** The times of one pod, ms since the epoch on the lab's clock. */
export interface PodTimes {
  /** Sent by the lab (its create call started), when the lab made the pod itself. */
  createSentAt?: number;
  /** First seen by the watch. */
  seenAt: number;
  /** First seen with spec.nodeName. */
  scheduledAt?: number;
  /** First seen Running. */
  runningAt?: number;
  deletedAt?: number;
  /** The kind of its controller (ReplicaSet, DaemonSet, StatefulSet, Job), when it has one. */
  owner?: string;
  /** It mounts a volume that is not stateless (a claim, a host path): upstream's pod startup SLI leaves it out. */
  stateful?: true;
}

/**
 * Upstream's stateless pod (sig-scalability's pod startup SLI): no volume sources but secrets, config maps, the
 * downward API and empty dirs; a projected volume (the service account's, in every pod) is made of those.
 */
const STATELESS_SOURCES = new Set(['name', 'secret', 'configMap', 'downwardAPI', 'emptyDir', 'projected']);

function isStatelessVolume(v: object): boolean {
  return Object.keys(v).every((k) => STATELESS_SOURCES.has(k));
}

/** The kind of the owner reference marked controller, if any. */
function controllerKind(p: Pod): string | undefined {
  return p.metadata?.ownerReferences?.find((r) => r.controller === true)?.kind;
}

function slimPod(o: KubeObject): KubeObject {
  const p = o as Pod;
  const m = o.metadata ?? {};
  return {
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      ...ownerOnly(p),
    },
    spec: { nodeName: p.spec?.nodeName, ...statefulOnly(p) },
    status: { phase: p.status?.phase },
  } as KubeObject;
}

// Only the controller's kind is kept: what the report breaks pod startup down by.
function ownerOnly(p: Pod): { ownerReferences?: { kind: string; controller: true }[] } {
  const kind = controllerKind(p);
  return kind === undefined ? {} : { ownerReferences: [{ kind, controller: true }] };
}

// Only the volumes that make a pod stateful are kept (most pods: none).
function statefulOnly(p: Pod): { volumes?: object[] } {
  const volumes = (p.spec?.volumes ?? []).filter((v) => !isStatelessVolume(v));
  return volumes.length === 0 ? {} : { volumes };
}

function slimNode(o: KubeObject): KubeObject {
  const n = o as Node;
  const ready = n.status?.conditions?.find((c) => c.type === 'Ready');
  return {
    metadata: { name: o.metadata?.name, resourceVersion: o.metadata?.resourceVersion },
    status: { conditions: ready === undefined ? [] : [{ type: 'Ready', status: ready.status }] },
  } as KubeObject;
}

/** Counters the progress display shows. */
export interface ClusterCounts {
  nodes: number;
  nodesReady: number;
  podsSeen: number;
  podsScheduled: number;
  podsRunning: number;
  podsLive: number;
  /** Times a Ready node turned not Ready (heartbeats missed past the grace period, or a killed node). */
  nodesTurnedNotReady: number;
  /** Pod watch events the lab received. */
  watchEvents: number;
}

/** Pod and node informers with per-pod times. */
export class PodTracker {
  /** Per pod uid. */
  readonly pods = new Map<string, PodTimes>();
  /** Create times the lab recorded before its calls, by namespace/name, claimed by the watch. */
  private readonly sent = new Map<string, number>();
  readonly counts: ClusterCounts = {
    nodes: 0,
    nodesReady: 0,
    podsSeen: 0,
    podsScheduled: 0,
    podsRunning: 0,
    podsLive: 0,
    nodesTurnedNotReady: 0,
    watchEvents: 0,
  };
  /** Times at which pods were first seen scheduled (for throughput). */
  readonly scheduledTimes: number[] = [];
  private readonly podInformer;
  private readonly nodeInformer;
  private readonly readyNodes = new Set<string>();
  private readonly knownNodes = new Set<string>();
  private stoppers: Stopper[] = [];

  /** `ownNamespace`: which pods are the lab's (in an existing cluster, only those in its namespaces); default all. */
  constructor(
    client: RESTClient,
    private readonly now: () => number = Date.now,
    private readonly ownNamespace: (namespace: string) => boolean = () => true,
  ) {
    this.podInformer = newInformer(client, RESOURCES.pods, {}, { reflector: { name: 'lab-pods', transform: slimPod } });
    this.nodeInformer = newInformer(
      client,
      RESOURCES.nodes,
      {},
      { reflector: { name: 'lab-nodes', transform: slimNode } },
    );
    this.podInformer.addEventHandler({
      onAdd: (p) => this.observe(p as Pod),
      onUpdate: (_o, p) => this.observe(p as Pod),
      onDelete: (p) => {
        const obj = (p instanceof DeletedFinalStateUnknown ? p.obj : p) as Pod;
        if (!this.ownNamespace(obj.metadata?.namespace ?? '')) return;
        const t = this.pods.get(obj.metadata?.uid ?? '');
        this.counts.watchEvents++;
        if (t !== undefined && t.deletedAt === undefined) {
          t.deletedAt = this.now();
          this.counts.podsLive--;
        }
      },
    });
    this.nodeInformer.addEventHandler({
      onAdd: (n) => this.observeNode(n as Node),
      onUpdate: (_o, n) => this.observeNode(n as Node),
      onDelete: (n) => {
        const name = (n instanceof DeletedFinalStateUnknown ? n.obj : n).metadata?.name ?? '';
        if (this.readyNodes.delete(name)) this.counts.nodesReady--;
        if (this.knownNodes.delete(name)) this.counts.nodes--;
      },
    });
  }

  /** Starts both informers and waits for their first list. */
  async start(): Promise<void> {
    this.stoppers = [this.podInformer.run(), this.nodeInformer.run()];
    await Promise.all([this.podInformer.waitForSync(), this.nodeInformer.waitForSync()]);
  }

  /** Records the start of the lab's own create call for a pod. */
  noteCreateSent(namespace: string, name: string, at: number): void {
    this.sent.set(`${namespace}/${name}`, at);
  }

  /** Names of the nodes whose Ready condition is True. */
  readyNodeNames(): string[] {
    return [...this.readyNodes].sort();
  }

  /** Stops the informers. */
  async stop(): Promise<void> {
    await Promise.all(this.stoppers.map((s) => s.stop()));
  }

  private observe(p: Pod): void {
    if (!this.ownNamespace(p.metadata?.namespace ?? '')) return;
    this.counts.watchEvents++;
    const uid = p.metadata?.uid ?? '';
    const now = this.now();
    let t = this.pods.get(uid);
    if (t === undefined) {
      const key = `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`;
      const sentAt = this.sent.get(key);
      if (sentAt !== undefined) this.sent.delete(key);
      const owner = controllerKind(p);
      t = {
        seenAt: now,
        ...(sentAt !== undefined ? { createSentAt: sentAt } : {}),
        ...(owner !== undefined ? { owner } : {}),
        ...(statefulOnly(p).volumes !== undefined ? { stateful: true as const } : {}),
      };
      this.pods.set(uid, t);
      this.counts.podsSeen++;
      this.counts.podsLive++;
    }
    if (t.scheduledAt === undefined && p.spec?.nodeName !== undefined && p.spec.nodeName !== '') {
      t.scheduledAt = now;
      this.counts.podsScheduled++;
      this.scheduledTimes.push(now);
    }
    if (t.runningAt === undefined && p.status?.phase === 'Running') {
      t.runningAt = now;
      this.counts.podsRunning++;
    }
  }

  private observeNode(n: Node): void {
    const name = n.metadata?.name ?? '';
    const ready = n.status?.conditions?.[0]?.status === 'True';
    if (!this.knownNodes.has(name)) {
      this.knownNodes.add(name);
      this.counts.nodes++;
    }
    if (ready && !this.readyNodes.has(name)) {
      this.readyNodes.add(name);
      this.counts.nodesReady++;
    } else if (!ready && this.readyNodes.delete(name)) {
      this.counts.nodesReady--;
      this.counts.nodesTurnedNotReady++;
    }
  }
}
