/**
 * Follows the lab's objects other than pods, kind by kind, the way
 * ClusterLoader2's WaitForControlledPodsRunning and object checks do: a LIST
 * of each kind by the lab label, counting what exists and what is ready.
 */
import { RESOURCES, type GroupVersionResource, type KubeObject, type RESTClient } from '../client/index.js';
import { LAB_LABEL } from './objects.js';

/** A kind the lab counts. */
export type TrackedKind =
  | 'Deployment'
  | 'StatefulSet'
  | 'DaemonSet'
  | 'Job'
  | 'CronJob'
  | 'Service'
  | 'ConfigMap'
  | 'Secret'
  | 'PersistentVolumeClaim';

/**
 * One kind's figures in report.json, as the lab's LISTs saw them: the objects that came to exist (distinct UIDs), the
 * most present at once, the most ready at once, how many of those created were gone at the last LIST, and per phase
 * the seconds from the phase's start until the kind reached that phase's target (absent when it never did).
 */
export interface KindCount {
  created: number;
  peak: number;
  ready: number;
  deleted: number;
  phaseS?: Record<string, number>;
}

type Obj = KubeObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> };

const n = (v: unknown): number => (typeof v === 'number' ? v : 0);

/**
 * Ready, per kind, as upstream's tools read it: a DaemonSet when every desired pod is ready (`kubectl rollout
 * status`), a StatefulSet or Deployment when readyReplicas reaches spec.replicas, a CronJob once it has created a
 * Job, a claim once Bound; Jobs, Services, ConfigMaps and Secrets once they exist.
 */
const READY: Record<TrackedKind, (o: Obj) => boolean> = {
  Deployment: (o) => n(o.status?.readyReplicas) >= n(o.spec?.replicas ?? 1),
  StatefulSet: (o) => n(o.status?.readyReplicas) >= n(o.spec?.replicas ?? 1),
  DaemonSet: (o) =>
    n(o.status?.desiredNumberScheduled) > 0 && n(o.status?.numberReady) === n(o.status?.desiredNumberScheduled),
  CronJob: (o) =>
    o.status?.lastScheduleTime !== undefined || (Array.isArray(o.status?.active) && o.status.active.length > 0),
  PersistentVolumeClaim: (o) => o.status?.phase === 'Bound',
  Job: () => true,
  Service: () => true,
  ConfigMap: () => true,
  Secret: () => true,
};

/**
 * Kinds whose readiness a phase does not wait for, only their presence. A CronJob's first Job comes at the next
 * minute of its schedule, so waiting for it could idle a run for up to a minute; ClusterLoader2 waits on no CronJob.
 * Their `ready` figure still counts those seen with a Job.
 */
export const PRESENCE_ONLY: ReadonlySet<TrackedKind> = new Set<TrackedKind>(['CronJob']);

const RESOURCE: Record<TrackedKind, GroupVersionResource> = {
  Deployment: RESOURCES.deployments,
  StatefulSet: RESOURCES.statefulsets,
  DaemonSet: RESOURCES.daemonsets,
  Job: RESOURCES.jobs,
  CronJob: RESOURCES.cronjobs,
  Service: RESOURCES.services,
  ConfigMap: RESOURCES.configmaps,
  Secret: RESOURCES.secrets,
  PersistentVolumeClaim: RESOURCES.persistentvolumeclaims,
};

/** Present and ready objects of one kind at one LIST. */
export interface KindState {
  present: number;
  ready: number;
}

/** Counts the lab's objects of each kind by LIST, keeping each kind's figures for the report. */
export class ObjectTracker {
  private readonly figures = new Map<TrackedKind, { peak: number; ready: number; seen: Set<string>; live: number }>();

  constructor(private readonly client: RESTClient) {}

  /** LISTs each kind (every namespace, by the lab label) and returns what exists and is ready. */
  async poll(kinds: Iterable<TrackedKind>): Promise<Map<TrackedKind, KindState>> {
    const out = new Map<TrackedKind, KindState>();
    await Promise.all(
      [...kinds].map(async (kind) => {
        const list = await this.client.resource(RESOURCE[kind]).list({ labelSelector: `${LAB_LABEL}=true` });
        const items = list.items as Obj[];
        // An object being deleted (a claim held by pvc-protection until its pod is gone) is still present, as for
        // ClusterLoader2's deletion checks, but not ready.
        const live = items.filter((o) => o.metadata?.deletionTimestamp === undefined);
        const state = { present: items.length, ready: live.filter(READY[kind]).length };
        out.set(kind, state);
        const f = this.figures.get(kind) ?? { peak: 0, ready: 0, seen: new Set<string>(), live: 0 };
        for (const o of items) f.seen.add(o.metadata?.uid ?? `${o.metadata?.namespace}/${o.metadata?.name}`);
        f.peak = Math.max(f.peak, state.present);
        f.ready = Math.max(f.ready, state.ready);
        f.live = items.length;
        this.figures.set(kind, f);
      }),
    );
    return out;
  }

  /** Each kind's figures so far, by kind name. */
  counts(): Record<string, KindCount> {
    const out: Record<string, KindCount> = {};
    for (const [kind, f] of [...this.figures].sort(([a], [b]) => a.localeCompare(b)))
      out[kind] = { created: f.seen.size, peak: f.peak, ready: f.ready, deleted: f.seen.size - f.live };
    return out;
  }
}

/**
 * Which kinds the lab LISTs next while it waits for a phase's targets: the kinds not yet seen at their target, so
 * that the kinds already there (7,000 ConfigMaps and Secrets at 2,500 nodes) are not read again every poll while
 * the last Deployments become ready; once none is left, every kind, so that one LIST confirms them all at once.
 */
export class TargetPolls {
  private pending: Set<TrackedKind>;

  constructor(private readonly all: readonly TrackedKind[]) {
    this.pending = new Set(all);
  }

  /** The kinds the next LIST covers. */
  next(): TrackedKind[] {
    return this.pending.size > 0 ? [...this.pending] : [...this.all];
  }

  /** Whether the next LIST is the confirming one, of every kind. */
  get confirming(): boolean {
    return this.pending.size === 0;
  }

  /** Records a LIST of `listed` that found `short` below their targets; true once a LIST of every kind found none. */
  record(listed: readonly TrackedKind[], short: ReadonlySet<TrackedKind>): boolean {
    const everything = this.all.every((k) => listed.includes(k));
    for (const k of listed) if (!short.has(k)) this.pending.delete(k);
    for (const k of short) this.pending.add(k);
    return everything && short.size === 0;
  }
}
