/**
 * The load generator: runs a scenario's phases against the cluster at the
 * pod rate. With `controllers` it creates ClusterLoader2's object mix
 * (Deployments, StatefulSets, DaemonSets, Jobs, CronJobs, with their Services,
 * ConfigMaps and Secrets) and lets the controller-manager and scheduler make
 * and place the pods; with `pods` it creates the pods itself, and binds them
 * (spec.nodeName, round-robin over Ready nodes) when no scheduler runs.
 */
import {
  RESOURCES,
  isAlreadyExistsError,
  isNotFoundError,
  type GroupVersionResource,
  type KubeObject,
  type RESTClient,
} from '../client/index.js';
import {
  configMap,
  cronJob,
  daemonSet,
  deployment,
  job,
  namespace,
  pod,
  secret,
  service,
  statefulSet,
} from './objects.js';
import { ObjectTracker, PRESENCE_ONLY, TargetPolls, type KindCount, type TrackedKind } from './object_tracker.js';
import type { PhaseSpec, PlannedWorkload } from './scenario.js';
import type { PodTracker } from './pod_tracker.js';

/** A workload kind's object and resource; Pod has none (its pods are the objects). */
function workloadObject(w: PlannedWorkload): { obj: KubeObject; res: GroupVersionResource } | undefined {
  const refs = { configMap: w.configMap === true, secret: w.secret === true };
  switch (w.kind) {
    case 'Deployment':
      return { obj: deployment(w.namespace, w.name, w.replicas, refs), res: RESOURCES.deployments };
    case 'StatefulSet':
      return {
        obj: statefulSet(w.namespace, w.name, w.replicas, w.claims === true, refs),
        res: RESOURCES.statefulsets,
      };
    case 'DaemonSet':
      return { obj: daemonSet(w.namespace, w.name, refs), res: RESOURCES.daemonsets };
    case 'Job':
      return { obj: job(w.namespace, w.name, w.replicas, refs), res: RESOURCES.jobs };
    case 'CronJob':
      return { obj: cronJob(w.namespace, w.name, w.schedule ?? '*/1 * * * *'), res: RESOURCES.cronjobs };
    case 'Pod':
      return undefined;
  }
}

/** The objects that come with a workload, each named after it. */
function companions(w: PlannedWorkload): { kind: TrackedKind; res: GroupVersionResource; obj: KubeObject }[] {
  const out: { kind: TrackedKind; res: GroupVersionResource; obj: KubeObject }[] = [];
  if (w.configMap === true)
    out.push({ kind: 'ConfigMap', res: RESOURCES.configmaps, obj: configMap(w.namespace, w.name) });
  if (w.secret === true) out.push({ kind: 'Secret', res: RESOURCES.secrets, obj: secret(w.namespace, w.name) });
  if (w.service) out.push({ kind: 'Service', res: RESOURCES.services, obj: service(w.namespace, w.name) });
  return out;
}

/**
 * How often the lab LISTs its non-pod objects while it waits for a phase's target: every second once the pods are
 * there, and before that one second per thousand objects expected, so that the kinds' times are measured without the
 * LISTs themselves loading a large cluster.
 */
const OBJECT_POLL_MS = 1000;

/** The resource the lab scales and rolls for a workload kind that has them. */
const SCALABLE: Partial<Record<PlannedWorkload['kind'], GroupVersionResource>> = {
  Deployment: RESOURCES.deployments,
  StatefulSet: RESOURCES.statefulsets,
};

/** How the workloads' pods come to exist and get a node. */
export interface WorkloadMode {
  workloads: 'controllers' | 'pods';
  binding: 'scheduler' | 'direct';
}

/** What one phase did. */
export interface PhaseResult {
  name: string;
  type: PhaseSpec['type'];
  /** Seconds since the run started. */
  start: number;
  end: number;
  durationS: number;
  /** Pods this phase asked for (created, or replaced). */
  podsRequested: number;
  /** Pods the phase asked for per second of its issuing time. */
  issueRatePerSec: number;
  /** Pods that became Running during the phase per second of the whole phase (issue until all Running). */
  achievedPodsPerSec: number;
  /** API calls the generator made, and how many failed. */
  calls: number;
  errors: number;
  /** False when the phase hit its timeout before the cluster reached the target. */
  completed: boolean;
  note?: string;
  /**
   * Per kind (and `Pod`): the objects this phase created, changed or deleted through the lab's own calls, how many the
   * phase's target holds, and the seconds from the phase's start until the kind reached it (absent when it never did).
   */
  objects?: Record<string, PhaseKind>;
  /** kill-nodes: seconds from the kill until the lab's watch saw every killed node not Ready, and until all were Ready again after revival. */
  detectionS?: number;
  recoveryS?: number;
}

/** One kind's part of a phase. */
export interface PhaseKind {
  changed: number;
  want: number;
  readyS?: number;
}

/** A completed phase that asked for no pods and made no calls (the nodes and kill-nodes phases), from `start` to `end` seconds. */
export function quietPhase(name: string, type: PhaseSpec['type'], start: number, end: number): PhaseResult {
  return {
    name,
    type,
    start,
    end,
    durationS: end - start,
    podsRequested: 0,
    issueRatePerSec: 0,
    achievedPodsPerSec: 0,
    calls: 0,
    errors: 0,
    completed: true,
  };
}

/** Client-side latency samples, ms, per "resource verb". */
export type ClientLatencies = Map<string, number[]>;

/** Up to this much lost time is made up by the pacer. */
const MAX_DEBT_MS = 1000;

/** Paces pods at a rate: take(n) waits until n more pods fit (n larger than a second's worth is spread, not burst). */
class PodPacer {
  private next = 0;
  constructor(private readonly rate: number) {}
  /** Starts a new schedule now (a phase's start): no debt is carried over from an earlier phase. */
  reset(): void {
    this.next = performance.now();
  }
  async take(n: number, signal: AbortSignal): Promise<void> {
    if (this.rate <= 0 || n <= 0) return;
    const now = performance.now();
    // Keeps the schedule: time lost to a late timer or a slow call is made up, up to MAX_DEBT_MS of it, so the
    // offered rate is the asked one rather than the asked one less every delay.
    const at = Math.max(now - MAX_DEBT_MS, this.next);
    this.next = at + (n * 1000) / this.rate;
    if (at > now) await sleep(at - now, signal);
  }
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('aborted'));
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(new Error('aborted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });

/** A bounded set of in-flight calls. */
class InFlight {
  private readonly running = new Set<Promise<void>>();
  constructor(private readonly limit: number) {}
  async add(fn: () => Promise<void>): Promise<void> {
    while (this.running.size >= this.limit) await Promise.race(this.running);
    const p = fn().finally(() => this.running.delete(p));
    this.running.add(p);
  }
  async drain(): Promise<void> {
    await Promise.all(this.running);
  }
}

/** Options of a generator. */
export interface LoadGeneratorOptions {
  client: RESTClient;
  tracker: PodTracker;
  mode: WorkloadMode;
  podRate: number;
  /** Seconds since the run started. */
  elapsed: () => number;
  signal: AbortSignal;
  /** A deterministic source for the scale/rollout picks. */
  random: () => number;
  /** Most calls in flight at once. */
  concurrency?: number;
  onPhase?: (name: string, target: { running: number; live: number }) => void;
}

/** Runs phases one after another. */
export class LoadGenerator {
  readonly latencies: ClientLatencies = new Map();
  private readonly pacer: PodPacer;
  private calls = 0;
  private errors = 0;
  private lastError = '';
  /** Live pods of each workload (name list), in pods mode. */
  private readonly podsOf = new Map<PlannedWorkload, string[]>();
  private readonly revision = new Map<PlannedWorkload, number>();
  private podSeq = 0;
  private namespaces: string[] = [];
  private nodeCursor = 0;
  private nodes: string[] = [];
  /** Pods the cluster should hold, and Running pods expected since the run began. */
  private expectedLive = 0;
  private expectedRunning = 0;
  /** Objects of each kind the cluster should hold; a kind stays once used, so its deletion is waited for too. */
  private readonly expectedObjects = new Map<TrackedKind, number>();
  private readonly objects: ObjectTracker;
  /** What the last LIST of objects fell short by, for a timed-out phase's note. */
  private objectsShort = '';
  /** The current phase's figures per kind, and its start (performance.now()). */
  private phaseKinds = new Map<string, PhaseKind>();
  private phaseStartMs = 0;
  /** Each kind's seconds to its target, per phase name. */
  private readonly kindTimes = new Map<string, Record<string, number>>();

  constructor(private readonly o: LoadGeneratorOptions) {
    this.pacer = new PodPacer(o.podRate);
    this.objects = new ObjectTracker(o.client);
  }

  /** Each kind's figures (created, peak, most ready at once, deleted, seconds to each phase's target), for report.json. */
  objectCounts(): Record<string, KindCount> {
    const out = this.objects.counts();
    for (const [kind, c] of Object.entries(out)) {
      const times = this.kindTimes.get(kind);
      if (times !== undefined) c.phaseS = times;
    }
    return out;
  }

  private expect(kind: TrackedKind, delta: number): void {
    this.expectedObjects.set(kind, (this.expectedObjects.get(kind) ?? 0) + delta);
  }

  /** Counts a call of the lab's own on a kind in the current phase. */
  private changed(kind: string): void {
    const k = this.phaseKinds.get(kind) ?? { changed: 0, want: 0 };
    k.changed++;
    this.phaseKinds.set(kind, k);
  }

  /** Records that a kind reached the phase's target now, once per phase. */
  private reached(kind: string, want: number, phase: string): void {
    const k = this.phaseKinds.get(kind) ?? { changed: 0, want };
    k.want = want;
    if (k.readyS === undefined) {
      k.readyS = (performance.now() - this.phaseStartMs) / 1000;
      const times = this.kindTimes.get(kind) ?? {};
      times[phase] = k.readyS;
      this.kindTimes.set(kind, times);
    }
    this.phaseKinds.set(kind, k);
  }

  /** Creates the namespaces (not paced, not a phase). */
  async createNamespaces(names: string[]): Promise<void> {
    this.namespaces = names;
    const f = new InFlight(16);
    for (const n of names)
      await f.add(() =>
        this.call('namespaces POST', () => this.o.client.resource(RESOURCES.namespaces).create(namespace(n)), true),
      );
    await f.drain();
  }

  /** Runs one phase over the planned workloads, then waits until the cluster reaches its target. */
  async run(phase: PhaseSpec, workloads: PlannedWorkload[], timeoutMs: number): Promise<PhaseResult> {
    const start = this.o.elapsed();
    const calls0 = this.calls;
    const errors0 = this.errors;
    const running0 = this.o.tracker.counts.podsRunning;
    const runningTarget0 = this.expectedRunning;
    this.nodes = this.o.tracker.readyNodeNames();
    let requested = 0;
    this.pacer.reset();
    this.phaseKinds = new Map();
    this.phaseStartMs = performance.now();
    const f = new InFlight(this.o.concurrency ?? 64);
    // Like CL2's "scale and update" step: Deployments and StatefulSets are picked at random.
    const pick = (fraction: number): PlannedWorkload[] =>
      workloads
        .filter((w) => SCALABLE[w.kind] !== undefined && w.replicas > 0)
        .filter(() => this.o.random() < fraction);
    switch (phase.type) {
      case 'create':
        for (const w of workloads) requested += await this.createWorkload(w, f);
        break;
      case 'scale':
        for (const w of pick(phase.fraction)) {
          const [lo, hi] = phase.factor;
          const next = Math.max(1, Math.round(w.replicas * (lo + (hi - lo) * this.o.random())));
          requested += await this.scale(w, next, f);
        }
        break;
      case 'rollout':
        // Every DaemonSet is rolled, as CL2 updates its DaemonSet in every "scale and update" step.
        for (const w of [...workloads.filter((x) => x.kind === 'DaemonSet'), ...pick(phase.fraction)])
          requested += await this.rollout(w, f);
        break;
      case 'delete':
        for (const w of workloads) await this.deleteWorkload(w, f);
        break;
      case 'hold':
        await sleep(phase.durationMs, this.o.signal);
        break;
      case 'kill-nodes':
        throw new Error('kill-nodes phases are run by the lab, not the load generator');
    }
    await f.drain();
    const issuedAt = this.o.elapsed();
    this.o.onPhase?.(phase.name, { running: this.expectedRunning, live: this.expectedLive });
    const completed = await this.waitForTarget(timeoutMs - (issuedAt - start) * 1000, phase.name);
    const listed = phase.type === 'hold' ? undefined : await this.countByList();
    const end = this.o.elapsed();
    const ran = this.o.tracker.counts.podsRunning - running0;
    const result: PhaseResult = {
      name: phase.name,
      type: phase.type,
      start,
      end,
      durationS: end - start,
      podsRequested: requested,
      issueRatePerSec: issuedAt > start ? requested / (issuedAt - start) : 0,
      achievedPodsPerSec: end > start ? ran / (end - start) : 0,
      calls: this.calls - calls0,
      errors: this.errors - errors0,
      completed,
    };
    if (phase.type !== 'hold' && this.phaseKinds.size > 0)
      result.objects = Object.fromEntries([...this.phaseKinds].sort(([a], [b]) => a.localeCompare(b)));
    if (!completed) {
      const c = this.o.tracker.counts;
      result.note = `timed out: ${c.podsLive} pods live (want ${this.expectedLive}), ${c.podsRunning - running0} newly Running (want ${this.expectedRunning - runningTarget0})${this.objectsShort === '' ? '' : `; ${this.objectsShort}`}`;
    }
    // A pod count the API disagrees with means the watch (or the phase) lost something: the phase did not complete.
    if (listed !== undefined && completed && listed !== this.o.tracker.counts.podsLive) {
      result.completed = false;
      result.note = `a LIST of every namespace found ${listed} pods, the watch ${this.o.tracker.counts.podsLive}`;
    }
    if (this.errors > errors0)
      result.note = `${result.note ?? ''}${result.note === undefined ? '' : '; '}last error: ${this.lastError}`;
    return result;
  }

  /**
   * Counts the pods by LISTing each lab namespace, as ClusterLoader2 checks
   * a phase's pods: namespace-scoped LISTs, so that SLI is measured too.
   */
  private async countByList(): Promise<number | undefined> {
    if (this.namespaces.length === 0) return undefined;
    let total = 0;
    const f = new InFlight(4);
    for (const ns of this.namespaces) {
      await f.add(() =>
        this.call('pods LIST', async () => {
          // Read the count before adding: `total += await …` would add to a stale total when LISTs overlap.
          const n = (await this.o.client.resource(RESOURCES.pods).list({ namespace: ns })).items.length;
          total += n;
        }),
      );
    }
    await f.drain();
    return total;
  }

  /**
   * Resolves true once live and Running pods reach what the phases asked for, and every kind of object exists and is
   * ready in the number asked for (none after a delete); false on timeout.
   */
  private async waitForTarget(timeoutMs: number, phase: string): Promise<boolean> {
    const deadline = performance.now() + Math.max(0, timeoutMs);
    const c = this.o.tracker.counts;
    let objectsAt = 0;
    let objectsOk = this.expectedObjects.size === 0;
    const expected = [...this.expectedObjects.values()].reduce((a, n) => a + n, 0);
    const slowPollMs = OBJECT_POLL_MS * Math.max(1, Math.ceil(expected / 1000));
    this.objectsShort = '';
    const polls = new TargetPolls([...this.expectedObjects.keys()]);
    while (performance.now() < deadline) {
      const podsOk = c.podsLive === this.expectedLive && c.podsRunning >= this.expectedRunning;
      if (podsOk) this.reached('Pod', this.expectedLive, phase);
      if (!objectsOk && performance.now() >= objectsAt) {
        // The kinds still short; when the last of them gets there, the LIST of every kind follows at once.
        for (let confirm = polls.confirming; !objectsOk; confirm = true) {
          const kinds = polls.next();
          const short = await this.objectsShortOf(phase, kinds);
          if (short === undefined) break;
          objectsOk = polls.record(kinds, short);
          if (confirm || !polls.confirming) break;
        }
        objectsAt = performance.now() + (podsOk ? OBJECT_POLL_MS : slowPollMs);
      }
      if (podsOk && objectsOk) return true;
      await sleep(200, this.o.signal);
    }
    return false;
  }

  /** LISTs `kinds` and returns those not at their target (undefined when a LIST failed). */
  private async objectsShortOf(phase: string, kinds: Iterable<TrackedKind>): Promise<Set<TrackedKind> | undefined> {
    this.calls++;
    try {
      const states = await this.objects.poll(kinds);
      const all = [...states.keys()].map((kind) => ({
        kind,
        want: this.expectedObjects.get(kind) ?? 0,
        s: states.get(kind)!,
      }));
      const reached = ({ kind, want, s }: (typeof all)[number]): boolean =>
        s.present === want && (s.ready === want || PRESENCE_ONLY.has(kind));
      for (const k of all) if (reached(k)) this.reached(k.kind, k.want, phase);
      const short = all.filter((k) => !reached(k));
      this.objectsShort = short
        .map(({ kind, want, s }) => `${kind} ${s.present} present, ${s.ready} ready (want ${want})`)
        .join(', ');
      return new Set(short.map((k) => k.kind));
    } catch (err) {
      this.errors++;
      this.lastError = `objects LIST: ${(err as Error).message}`;
      return undefined;
    }
  }

  private nextNode(): string | undefined {
    if (this.o.mode.binding !== 'direct') return undefined;
    if (this.nodes.length === 0) throw new Error('no Ready node to bind pods to');
    return this.nodes[this.nodeCursor++ % this.nodes.length];
  }

  private async createWorkload(w: PlannedWorkload, f: InFlight): Promise<number> {
    const bundle = companions(w);
    for (const c of bundle) {
      this.expect(c.kind, 1);
      this.changed(c.kind);
    }
    const createCompanions = async (): Promise<void> => {
      // The pods reference their ConfigMap and Secret, so those exist first (awaited in order, as ClusterLoader2
      // creates an object bundle's objects one after another).
      for (const c of bundle)
        await this.call(`${c.res.resource} POST`, () => this.o.client.resource(c.res).create(c.obj));
    };
    this.revision.set(w, 0);
    this.expectedLive += w.replicas;
    this.expectedRunning += w.replicas;
    const made = w.kind === 'Pod' ? undefined : workloadObject(w);
    if (made !== undefined && this.o.mode.workloads === 'controllers') {
      this.expect(w.kind as TrackedKind, 1);
      this.changed(w.kind);
      if (w.claims === true) this.expect('PersistentVolumeClaim', w.replicas);
      // A CronJob's Jobs run no pods: it costs one token, as a call.
      await this.pacer.take(Math.max(1, w.replicas), this.o.signal);
      // The whole bundle is one in-flight action, as in ClusterLoader2's tuning sets: bundles run side by side at the
      // paced rate. Awaiting each bundle's ConfigMap and Secret here instead held the offered rate to one bundle per
      // two call latencies (66 pods/s of the 105 asked at 2,500 nodes).
      await f.add(async () => {
        await createCompanions();
        await this.call(`${made.res.resource} POST`, () => this.o.client.resource(made.res).create(made.obj));
      });
      return w.replicas;
    }
    // In pods mode the lab plays every controller with bare pods (a StatefulSet's claims left out); a CronJob's Jobs
    // run no pods, so it has nothing to stand in for.
    await createCompanions();
    this.podsOf.set(w, []);
    for (let i = 0; i < w.replicas; i++) await this.createPod(w, f);
    return w.replicas;
  }

  private async createPod(w: PlannedWorkload, f: InFlight): Promise<void> {
    await this.pacer.take(1, this.o.signal);
    this.changed('Pod');
    const name = w.kind === 'Pod' ? w.name : `${w.name}-${(this.podSeq++).toString(36)}`;
    this.podsOf.get(w)!.push(name);
    const obj = pod(w.namespace, name, w.name, this.revision.get(w) ?? 0, this.nextNode());
    await f.add(() => {
      this.o.tracker.noteCreateSent(w.namespace, name, Date.now());
      return this.call('pods POST', () => this.o.client.resource(RESOURCES.pods).create(obj));
    });
  }

  private async deletePod(w: PlannedWorkload, name: string, f: InFlight): Promise<void> {
    await this.pacer.take(1, this.o.signal);
    this.changed('Pod');
    await f.add(() =>
      this.call(
        'pods DELETE',
        () => this.o.client.resource(RESOURCES.pods).delete(name, { namespace: w.namespace }),
        false,
        true,
      ),
    );
  }

  private async scale(w: PlannedWorkload, replicas: number, f: InFlight): Promise<number> {
    const delta = replicas - w.replicas;
    this.expectedLive += delta;
    if (delta > 0) this.expectedRunning += delta;
    w.replicas = replicas;
    const res = SCALABLE[w.kind]!;
    if (this.o.mode.workloads === 'controllers') {
      // A StatefulSet's claims follow its ordinals (whenScaled: Delete).
      if (w.claims === true) this.expect('PersistentVolumeClaim', delta);
      this.changed(w.kind);
      // A pod deleted costs about what one created does (an update, the kubelet's status, the final delete), so
      // scaling down is paced too: unpaced, a scale phase released thousands of deletions at once.
      await this.pacer.take(Math.abs(delta), this.o.signal);
      await f.add(() =>
        this.call(`${res.resource} PATCH`, () =>
          this.o.client.resource(res).patch(w.name, 'merge', { spec: { replicas } }, { namespace: w.namespace }),
        ),
      );
      return Math.max(0, delta);
    }
    const names = this.podsOf.get(w)!;
    for (let i = 0; i < delta; i++) await this.createPod(w, f);
    for (let i = 0; i < -delta; i++) await this.deletePod(w, names.pop()!, f);
    return Math.max(0, delta);
  }

  private async rollout(w: PlannedWorkload, f: InFlight): Promise<number> {
    const rev = (this.revision.get(w) ?? 0) + 1;
    this.revision.set(w, rev);
    this.expectedRunning += w.replicas;
    const made = workloadObject(w);
    if (this.o.mode.workloads === 'controllers' && made !== undefined) {
      this.changed(w.kind);
      // Every pod is replaced: one created and one deleted, each a token, as in `pods` mode below.
      await this.pacer.take(2 * w.replicas, this.o.signal);
      const patch = { spec: { template: { metadata: { annotations: { 'kscale.io/revision': String(rev) } } } } };
      await f.add(() =>
        this.call(`${made.res.resource} PATCH`, () =>
          this.o.client.resource(made.res).patch(w.name, 'strategic', patch, { namespace: w.namespace }),
        ),
      );
      return w.replicas;
    }
    // Like a rolling update with maxSurge 1: each new pod, then one old pod gone.
    const old = [...this.podsOf.get(w)!];
    this.podsOf.set(w, []);
    for (const name of old) {
      await this.createPod(w, f);
      await this.deletePod(w, name, f);
    }
    return old.length;
  }

  private async deleteWorkload(w: PlannedWorkload, f: InFlight): Promise<void> {
    this.expectedLive -= w.replicas;
    for (const c of companions(w)) {
      this.expect(c.kind, -1);
      this.changed(c.kind);
      await f.add(() =>
        this.call(
          `${c.res.resource} DELETE`,
          () => this.o.client.resource(c.res).delete(w.name, { namespace: w.namespace }),
          false,
          true,
        ),
      );
    }
    const made = w.kind === 'Pod' ? undefined : workloadObject(w);
    if (made !== undefined && this.o.mode.workloads === 'controllers') {
      this.expect(w.kind as TrackedKind, -1);
      this.changed(w.kind);
      if (w.claims === true) this.expect('PersistentVolumeClaim', -w.replicas);
      // Deletion is paced like creation: ClusterLoader2 deletes at the same rate.
      await this.pacer.take(Math.max(1, w.replicas), this.o.signal);
      await f.add(() =>
        this.call(
          `${made.res.resource} DELETE`,
          () =>
            this.o.client
              .resource(made.res)
              .delete(w.name, { namespace: w.namespace, propagationPolicy: 'Background' }),
          false,
          true,
        ),
      );
      return;
    }
    for (const name of this.podsOf.get(w) ?? []) await this.deletePod(w, name, f);
    this.podsOf.set(w, []);
  }

  /** One timed API call; failures are counted (AlreadyExists/NotFound are fine when asked). */
  private async call(key: string, fn: () => Promise<unknown>, okIfExists = false, okIfMissing = false): Promise<void> {
    const t0 = performance.now();
    this.calls++;
    try {
      await fn();
    } catch (err) {
      if ((okIfExists && isAlreadyExistsError(err)) || (okIfMissing && isNotFoundError(err))) return;
      if (this.o.signal.aborted) return;
      this.errors++;
      this.lastError = `${key}: ${(err as Error).message}`;
      return;
    } finally {
      let l = this.latencies.get(key);
      if (l === undefined) this.latencies.set(key, (l = []));
      l.push(performance.now() - t0);
    }
  }
}
