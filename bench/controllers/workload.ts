/**
 * The controllers benchmark's workload: Deployments and their Services in
 * one namespace, created at a paced pod rate; a pod watch that timestamps
 * every creation; and waiting for Deployments to be available or rolled out.
 */
import type { KubeObject, RESTClient } from '../../src/client/index.js';
import type { Deployment } from '../../src/api/index.js';
import { RESOURCES } from '../../src/client/index.js';

/** The benchmark's namespace. */
export const NS = 'bench';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A Deployment of `replicas` pause pods labelled app=<name>. */
export function deployment(name: string, replicas: number): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            { name: 'c', image: 'registry.k8s.io/pause:3.10', ports: [{ name: 'http', containerPort: 8080 }] },
          ],
        },
      },
    },
  };
}

/** A Service selecting app=<name>. */
export function service(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: NS },
    spec: { selector: { app: name }, ports: [{ port: 80, targetPort: 'http' }] },
  };
}

/**
 * Creates `count` Deployments (and a Service each) named <prefix>-<i>, paced so their pods are asked for at
 * `podsPerSecond`; creates are not awaited one by one, so a slow API server does not slow the pace.
 */
export async function createPaced(
  rest: RESTClient,
  prefix: string,
  count: number,
  replicas: number,
  podsPerSecond: number,
): Promise<void> {
  const t0 = Date.now();
  const everyMs = (replicas / podsPerSecond) * 1000;
  const inFlight: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const wait = t0 + i * everyMs - Date.now();
    if (wait > 0) await sleep(wait);
    inFlight.push(
      rest.resource(RESOURCES.services).create(service(`${prefix}-${i}`)),
      rest.resource(RESOURCES.deployments).create(deployment(`${prefix}-${i}`, replicas)),
    );
  }
  await Promise.all(inFlight);
}

/** Counts pod creations in the namespace as a watch sees them. */
export class PodCreations {
  readonly times: number[] = [];
  private readonly abort = new AbortController();
  private running: Promise<void> | undefined;

  async start(rest: RESTClient): Promise<void> {
    const pods = rest.resource(RESOURCES.pods);
    const list = await pods.list({ namespace: NS, limit: 1 });
    const w = await pods.watch({
      namespace: NS,
      resourceVersion: list.metadata?.resourceVersion,
      signal: this.abort.signal,
    });
    this.running = (async () => {
      try {
        for await (const ev of w) if (ev.type === 'ADDED') this.times.push(Date.now());
      } catch {
        // stopped
      }
    })();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }
}

/** Polls until every Deployment with the prefix has all replicas available and updated (at its latest generation); resolves with the time. */
export async function waitAvailable(
  rest: RESTClient,
  names: ReadonlySet<string>,
  timeoutMs: number,
  progress: (msg: string) => void,
): Promise<number> {
  const end = Date.now() + timeoutMs;
  let lastLog = 0;
  for (;;) {
    const list = (await rest.resource<Deployment>(RESOURCES.deployments).list({ namespace: NS })).items.filter((d) =>
      names.has(d.metadata!.name!),
    );
    const done = list.filter((d) => {
      const want = d.spec?.replicas ?? 1;
      const s = d.status ?? {};
      return (
        s.observedGeneration === d.metadata?.generation &&
        s.availableReplicas === want &&
        s.updatedReplicas === want &&
        s.replicas === want
      );
    }).length;
    if (done === names.size) return Date.now();
    if (Date.now() > end)
      throw new Error(`only ${done}/${names.size} Deployments available after ${timeoutMs / 1000} s`);
    if (Date.now() - lastLog > 10_000) {
      lastLog = Date.now();
      const avail = list.reduce((n, d) => n + (d.status?.availableReplicas ?? 0), 0);
      progress(`${done}/${names.size} Deployments done, ${avail} pods available`);
    }
    await sleep(1_000);
  }
}
