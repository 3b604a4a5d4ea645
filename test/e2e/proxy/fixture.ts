/**
 * Shared pieces of the proxy's end-to-end tests: Service and EndpointSlice
 * objects written through the real API server (there is no EndpointSlice
 * controller here; the tests are it), and waiting for a proxy to settle.
 */
import { RESOURCES, type KubeObject, type RESTClient } from '../../../src/client/index.js';
import type { ProxyServer } from '../../../src/proxy/index.js';

/** What a test service looks like. */
export interface TestService {
  name: string;
  type?: 'ClusterIP' | 'NodePort';
  protocol?: 'TCP' | 'UDP';
  affinity?: boolean;
  port?: number;
  targetPort?: number;
}

/** Creates a Service (the server allocates its ClusterIP and NodePort) and returns it. */
export async function createService(
  client: RESTClient,
  s: TestService,
): Promise<KubeObject & { spec: { clusterIP: string; ports: { nodePort?: number }[] } }> {
  return (await client.resource(RESOURCES.services).create({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: s.name, namespace: 'default' },
    spec: {
      type: s.type ?? 'ClusterIP',
      sessionAffinity: s.affinity === true ? 'ClientIP' : 'None',
      ports: [{ name: 'p', port: s.port ?? 80, protocol: s.protocol ?? 'TCP', targetPort: s.targetPort ?? 8080 }],
    },
  })) as KubeObject & { spec: { clusterIP: string; ports: { nodePort?: number }[] } };
}

/** A slice body for a service's endpoints, stamped with last-change-trigger-time. */
export function sliceFor(
  service: string,
  ips: readonly string[],
  protocol: 'TCP' | 'UDP' = 'TCP',
  port = 8080,
  triggerTime = new Date(),
): KubeObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: `${service}-slice`,
      namespace: 'default',
      labels: { 'kubernetes.io/service-name': service },
      annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': triggerTime.toISOString() },
    },
    addressType: 'IPv4',
    ports: [{ name: 'p', port, protocol }],
    endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true }, nodeName: 'other-node' })),
  };
}

/** Creates or replaces the slice of a service. */
export async function putSlice(
  client: RESTClient,
  service: string,
  ips: readonly string[],
  protocol: 'TCP' | 'UDP' = 'TCP',
): Promise<void> {
  const r = client.resource(RESOURCES.endpointslices);
  const body = sliceFor(service, ips, protocol);
  try {
    const old = await r.get(`${service}-slice`, { namespace: 'default' });
    await r.update({ ...body, metadata: { ...body.metadata, resourceVersion: old.metadata?.resourceVersion } });
  } catch {
    await r.create(body);
  }
}

/** Waits until the proxy's maps satisfy `ready` and the sync that applied them has finished. */
export async function settle(
  server: ProxyServer,
  ready: (p: NonNullable<ProxyServer['proxy']>) => boolean,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const p = server.proxy;
    if (
      p !== undefined &&
      p.last !== undefined &&
      p.serviceChanges.pending() === 0 &&
      p.endpointsChanges.pending() === 0 &&
      ready(p)
    ) {
      await p.runner.idle();
      return;
    }
    if (Date.now() > deadline) throw new Error('proxy did not settle');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Counts replies by what answered. */
export function tally(samples: readonly { reply: string }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples) out[s.reply] = (out[s.reply] ?? 0) + 1;
  return out;
}
