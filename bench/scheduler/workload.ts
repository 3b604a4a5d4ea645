/**
 * One benchmark case, scheduler_perf's way: nodes exist as API objects, the
 * scheduler (or the reference binder) runs, pods are created while it runs,
 * and a watch observes each binding. Throughput is the mean of 1-second
 * samples of pods bound; latency is from the create request to the bound
 * event.
 */
import { RESOURCES, type KubeObject, type RESTClient } from '../../src/client/index.js';

/** The kinds of pods a case creates. */
export type PodKind = 'plain' | 'anti-affinity' | 'gang8';

/** What a case measured. */
export interface CaseResult {
  pods: number;
  bound: number;
  /** Mean of 1 s samples of pods bound. */
  throughput: number;
  samples: number[];
  latencyP50Ms: number;
  latencyP99Ms: number;
  wallMs: number;
}

/** Creates `n` Ready nodes as API objects (32 cores, 128Gi, 110 pods, 8 GPUs; one of 10 zones), 64 in flight. */
export async function createNodes(rest: RESTClient, n: number): Promise<void> {
  const nodes = rest.resource(RESOURCES.nodes);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < n; i = next++) {
      const name = `node-${i}`;
      const alloc = { cpu: '32', memory: '128Gi', pods: '110', 'nvidia.com/gpu': '8' };
      const status = { capacity: alloc, allocatable: alloc, conditions: [{ type: 'Ready', status: 'True' }] };
      const labels = { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': `zone-${i % 10}` };
      const created = await nodes.create({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name, labels },
        spec: {},
        status,
      });
      await nodes.updateStatus({ ...created, status });
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
}

/** The pod manifest of case `kind`, number i. */
export function benchPod(kind: PodKind, i: number, namespace: string): KubeObject {
  const spec: Record<string, unknown> = {
    containers: [
      { name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '100m', memory: '500Mi' } } },
    ],
  };
  const labels: Record<string, string> = { app: 'bench' };
  if (kind === 'anti-affinity') {
    labels.color = 'green';
    spec.affinity = {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { labelSelector: { matchLabels: { color: 'green' } }, topologyKey: 'kubernetes.io/hostname' },
        ],
      },
    };
  }
  if (kind === 'gang8') labels['scheduling.x-k8s.io/pod-group'] = `gang-${Math.floor(i / 8)}`;
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: `pod-${i}`, namespace, labels }, spec };
}

/** Creates the PodGroups of a gang case (minMember 8). */
export async function createPodGroups(rest: RESTClient, pods: number, namespace: string): Promise<void> {
  const pgs = rest.resource({
    group: 'scheduling.x-k8s.io',
    version: 'v1alpha1',
    resource: 'podgroups',
    namespaced: true,
  });
  let next = 0;
  const groups = Math.ceil(pods / 8);
  const worker = async (): Promise<void> => {
    for (let g = next++; g < groups; g = next++) {
      await pgs.create({
        apiVersion: 'scheduling.x-k8s.io/v1alpha1',
        kind: 'PodGroup',
        metadata: { name: `gang-${g}`, namespace },
        spec: { minMember: 8, scheduleTimeoutSeconds: 60 },
      });
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

const pct = (sorted: number[], p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

/** Creates the pods (`creators` requests in flight) and waits until all are bound or `timeoutMs` passes. */
export async function runPods(
  rest: RESTClient,
  kind: PodKind,
  total: number,
  namespace: string,
  timeoutMs: number,
  creators = 32,
): Promise<CaseResult> {
  const pods = rest.resource<KubeObject & { spec?: { nodeName?: string } }>(RESOURCES.pods);
  const createdAt = new Map<string, number>();
  const latencies: number[] = [];
  let bound = 0;
  const start = performance.now();
  const list = await pods.list({ namespace, limit: 1 });
  const abort = new AbortController();
  const w = await pods.watch({ namespace, resourceVersion: list.metadata.resourceVersion, signal: abort.signal });
  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));
  const seen = new Set<string>();
  const watching = (async () => {
    try {
      for await (const ev of w) {
        const name = (ev.object as KubeObject).metadata?.name ?? '';
        if (
          (ev.type === 'MODIFIED' || ev.type === 'ADDED') &&
          ((ev.object as { spec?: { nodeName?: string } }).spec?.nodeName ?? '') !== '' &&
          !seen.has(name)
        ) {
          seen.add(name);
          bound++;
          const t0 = createdAt.get(name);
          if (t0 !== undefined) latencies.push(performance.now() - t0);
          if (bound >= total) resolveDone();
        }
      }
    } catch {
      // aborted
    }
  })();
  const samples: number[] = [];
  let last = 0;
  const sampler = setInterval(() => {
    samples.push(bound - last);
    last = bound;
  }, 1000);
  let next = 0;
  const creator = async (): Promise<void> => {
    for (let i = next++; i < total; i = next++) {
      const p = benchPod(kind, i, namespace);
      createdAt.set(p.metadata!.name!, performance.now());
      await pods.create(p, { namespace });
    }
  };
  const creating = Promise.all(Array.from({ length: creators }, creator));
  const timeout = new Promise<void>((r) => setTimeout(r, timeoutMs).unref());
  await Promise.race([Promise.all([creating, done]), timeout]);
  clearInterval(sampler);
  const wallMs = performance.now() - start;
  abort.abort();
  await watching;
  // Like scheduler_perf, the samples while pods were being bound; drop a trailing partial second of zeros.
  while (samples.length > 1 && samples[samples.length - 1] === 0) samples.pop();
  const sorted = latencies.sort((a, b) => a - b);
  return {
    pods: total,
    bound,
    // Runs shorter than a few samples fall back to bound / wall time.
    throughput: samples.length < 3 ? (bound * 1000) / wallMs : samples.reduce((a, b) => a + b, 0) / samples.length,
    samples,
    latencyP50Ms: pct(sorted, 50),
    latencyP99Ms: pct(sorted, 99),
    wallMs,
  };
}
