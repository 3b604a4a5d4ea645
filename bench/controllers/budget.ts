/**
 * The client budget of each controller in the controllers benchmark: every
 * controller has its own --kube-api-qps token bucket, so the pod rate it can
 * sustain is at most QPS divided by the requests it spends per pod. Writes
 * are attributed to controllers by resource (only one of the running
 * controllers writes each), Events by their source component, whose `count`
 * sums the creates and the count patches the recorder sent.
 */
import { RESOURCES, type KubeObject, type RESTClient } from '../../src/client/index.js';

/** Which running controller sends a write, by `VERB resource[/sub]`. */
const WRITER: readonly [RegExp, string][] = [
  [/^(POST|DELETE) pods$/, 'replicaset-controller'],
  [/^PUT replicasets\/status$/, 'replicaset-controller'],
  [/^(POST|PUT|PATCH|DELETE) replicasets$/, 'deployment-controller'],
  [/^PUT deployments\/status$/, 'deployment-controller'],
  [/^(POST|PUT|DELETE) endpoints$/, 'endpoint-controller'],
  [/^(POST|PUT|DELETE) endpointslices$/, 'endpointslice-controller'],
];

/** Event source component of each controller (upstream's names). */
const EVENT_SOURCE: Record<string, string> = {
  'replicaset-controller': 'replicaset-controller',
  'deployment-controller': 'deployment-controller',
  'endpoint-controller': 'endpoint-controller',
  'endpointslice-controller': 'endpoint-slice-controller',
};

/** Event writes (creates plus count patches) in `namespace`, by source component. */
export async function eventWritesBySource(rest: RESTClient, namespace: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const list = await rest
    .resource<KubeObject & { count?: number; source?: { component?: string } }>(RESOURCES.events)
    .list({ namespace });
  for (const e of list.items) {
    const c = e.source?.component ?? '';
    out.set(c, (out.get(c) ?? 0) + Math.max(1, e.count ?? 1));
  }
  return out;
}

/** One line per controller: requests per pod from its bucket, and the pod rate that bucket allows at `qps`. */
export function budgetLines(
  writes: ReadonlyMap<string, number>,
  events: ReadonlyMap<string, number>,
  pods: number,
  qps: number,
): string[] {
  const perController = new Map<string, { writes: number; events: number }>();
  for (const name of Object.keys(EVENT_SOURCE))
    perController.set(name, { writes: 0, events: events.get(EVENT_SOURCE[name]!) ?? 0 });
  for (const [k, v] of writes) {
    const who = WRITER.find(([re]) => re.test(k))?.[1];
    if (who !== undefined) perController.get(who)!.writes += v;
  }
  const lines: string[] = [];
  for (const [name, b] of perController) {
    const perPod = (b.writes + b.events) / Math.max(1, pods);
    const ceiling = perPod > 0 ? `${(qps / perPod).toFixed(0)} pods/s` : 'unbounded';
    lines.push(
      `    ${name.padEnd(26)} ${(b.writes / Math.max(1, pods)).toFixed(3)} writes + ${(b.events / Math.max(1, pods)).toFixed(3)} Events per pod -> ceiling ${ceiling} at QPS ${qps}`,
    );
  }
  return lines;
}
