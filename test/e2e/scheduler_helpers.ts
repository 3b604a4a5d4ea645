/**
 * Helpers for the scheduler's end-to-end tests: a real `kscale scheduler`
 * process, and nodes and pods created through the real API server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { RESOURCES, RESTClient, loadKubeconfig, type KubeObject, type ResourceClient } from '../../src/client/index.js';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { KSCALE, startServer } from './harness.js';
import { secureGet } from './fixtures/secure_get.js';

/** A running scheduler process. */
export interface SchedulerProcess {
  p: ChildProcess;
  /** Everything written to stdout and stderr. */
  out: string[];
  /** The secure port's URL (HTTPS, a self-signed certificate): /healthz, /livez, /readyz and /metrics. */
  url: string;
  /** A GET on the secure port as the kubeconfig's user (its client certificate), the certificate not verified. */
  get(path: string): Promise<{ status: number; text: string }>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `kscale scheduler`; resolves once it prints "kscale scheduler started" (unless `waitStarted` is false). */
export async function startScheduler(
  kubeconfig: string,
  args: string[] = [],
  waitStarted = true,
): Promise<SchedulerProcess> {
  const clientCA = join(dirname(kubeconfig), 'data', 'tls', 'client-ca.crt');
  const p = spawn(
    process.execPath,
    [
      KSCALE,
      'scheduler',
      '--kubeconfig',
      kubeconfig,
      '--secure-port',
      '0',
      // The server's client CA (beside the harness's kubeconfig), so the admin's client certificate authenticates.
      ...(existsSync(clientCA) ? ['--client-ca-file', clientCA] : []),
      '--kube-api-qps',
      '1000',
      '--kube-api-burst',
      '1000',
      ...args,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const out: string[] = [];
  p.stderr!.on('data', (d: Buffer) => out.push(d.toString()));
  let url = '';
  const started = new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`scheduler did not start in 30 s: ${out.join('')}`)), 30_000);
    createInterface({ input: p.stdout! }).on('line', (line) => {
      out.push(line);
      const m = /serving \/metrics and \/healthz on (https:\/\/\S+)/.exec(line);
      if (m !== null) url = m[1];
      if (line.startsWith('kscale scheduler started') && waitStarted) {
        clearTimeout(t);
        resolve();
      }
      if (!waitStarted && url !== '') {
        clearTimeout(t);
        resolve();
      }
    });
    p.once('exit', (code) => reject(new Error(`scheduler exited with ${code}: ${out.join('\n')}`)));
  });
  await started;
  // The listening line follows the started line; give it a moment when needed.
  for (let i = 0; i < 50 && url === ''; i++) await new Promise((r) => setTimeout(r, 20));
  const k = loadKubeconfig({ path: kubeconfig });
  return {
    p,
    out,
    url,
    get: (path) => httpsGet(`${url}${path}`, k.cert, k.key),
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (p.exitCode !== null || p.signalCode !== null) return p.exitCode;
      const exited = new Promise<number | null>((r) => p.once('exit', (code) => r(code)));
      p.kill(signal);
      const t = setTimeout(() => p.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(t);
      return code;
    },
  };
}

/** A GET over HTTPS with an optional client certificate, the server's (self-signed) certificate not verified. */
export function httpsGet(url: string, cert?: Buffer, key?: Buffer): Promise<{ status: number; text: string }> {
  return secureGet(url, cert !== undefined ? { cert, key } : {});
}

/** A node's shape for tests. */
export interface NodeSpec {
  cpu?: string;
  memory?: string;
  pods?: number;
  gpu?: number;
  labels?: Record<string, string>;
  taints?: { key: string; value?: string; effect: string }[];
  unschedulable?: boolean;
}

/** Creates a Ready node object (no kubelet), with status written through nodes/status. */
export async function createNode(rest: RESTClient, name: string, s: NodeSpec = {}): Promise<void> {
  const nodes = rest.resource(RESOURCES.nodes);
  const alloc: Record<string, string> = { cpu: s.cpu ?? '4', memory: s.memory ?? '16Gi', pods: String(s.pods ?? 110) };
  if (s.gpu !== undefined) alloc['nvidia.com/gpu'] = String(s.gpu);
  const node: KubeObject = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...s.labels } },
    spec: { ...(s.taints ? { taints: s.taints } : {}), ...(s.unschedulable ? { unschedulable: true } : {}) },
    status: { capacity: alloc, allocatable: alloc, conditions: [{ type: 'Ready', status: 'True' }] },
  };
  const created = await nodes.create(node);
  await nodes.updateStatus({ ...created, status: node.status });
}

/** Test pod options. */
export interface PodOptions {
  cpu?: string;
  memory?: string;
  gpu?: number;
  labels?: Record<string, string>;
  spec?: Record<string, unknown>;
}

/** A pod manifest with one container. */
export function podManifest(name: string, o: PodOptions = {}, namespace = 'default'): KubeObject {
  const requests: Record<string, string> = {};
  if (o.cpu !== undefined) requests.cpu = o.cpu;
  if (o.memory !== undefined) requests.memory = o.memory;
  const limits: Record<string, string> = {};
  if (o.gpu !== undefined) requests['nvidia.com/gpu'] = limits['nvidia.com/gpu'] = String(o.gpu);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: o.labels ?? {} },
    spec: {
      containers: [
        { name: 'c', image: 'busybox', resources: { requests, ...(o.gpu !== undefined ? { limits } : {}) } },
      ],
      ...o.spec,
    },
  };
}

/** A REST client for a test cluster's kubeconfig (no client-side limit). */
export function clientFor(kubeconfig: string): RESTClient {
  // A request timeout, so a wedged process fails a test instead of hanging it.
  return new RESTClient({ ...loadKubeconfig({ path: kubeconfig }), qps: 0, timeoutMs: 30_000 });
}

/** The pods client. */
export const podsOf = (
  rest: RESTClient,
): ResourceClient<KubeObject & { spec?: { nodeName?: string }; status?: Record<string, unknown> }> =>
  rest.resource(RESOURCES.pods);

/** node name by pod name, for pods in `namespace` (unbound pods map to ""). */
export async function placements(rest: RESTClient, namespace = 'default'): Promise<Map<string, string>> {
  const list = await podsOf(rest).list({ namespace });
  return new Map(list.items.map((p) => [p.metadata!.name!, p.spec?.nodeName ?? '']));
}

/** Polls until `fn` is truthy; throws after `ms`. */
export async function until<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A server and a scheduler for one test. */
export interface Cluster {
  rest: RESTClient;
  kubeconfig: string;
  dir: string;
  scheduler: SchedulerProcess;
  stop(): Promise<void>;
}

/** Starts a server, creates `nodes`, writes `config` (if any) and starts a scheduler. */
export async function startCluster(
  nodes: Record<string, NodeSpec>,
  opts: { config?: string; args?: string[] } = {},
): Promise<Cluster> {
  const srv = await startServer();
  const rest = clientFor(srv.kubeconfig);
  try {
    for (const [name, spec] of Object.entries(nodes)) await createNode(rest, name, spec);
    const args = ['--leader-elect=false', ...(opts.args ?? [])];
    if (opts.config !== undefined) {
      const file = join(srv.dir, 'scheduler.yaml');
      writeFileSync(file, opts.config);
      args.push('--config', file);
    }
    const scheduler = await startScheduler(srv.kubeconfig, args);
    return {
      rest,
      kubeconfig: srv.kubeconfig,
      dir: srv.dir,
      scheduler,
      async stop() {
        await scheduler.stop();
        rest.close();
        await srv.stop();
      },
    };
  } catch (err) {
    rest.close();
    await srv.stop();
    throw err;
  }
}

/** Waits until every named pod is bound; returns name -> node. */
export async function waitBound(
  rest: RESTClient,
  names: string[],
  ms = 20_000,
  namespace = 'default',
): Promise<Map<string, string>> {
  return until(
    `pods ${names.join(',')} bound`,
    async () => {
      const m = await placements(rest, namespace);
      return names.every((n) => (m.get(n) ?? '') !== '') ? m : undefined;
    },
    ms,
  );
}

/** Events in `namespace` as "reason involvedObject.name message". */
export async function eventsOf(
  rest: RESTClient,
  namespace = 'default',
): Promise<{ reason: string; name: string; message: string; source: string }[]> {
  const list = await rest
    .resource<
      KubeObject & {
        reason?: string;
        message?: string;
        involvedObject?: { name?: string };
        source?: { component?: string };
      }
    >(RESOURCES.events)
    .list({ namespace });
  return list.items.map((e) => ({
    reason: e.reason ?? '',
    name: e.involvedObject?.name ?? '',
    message: e.message ?? '',
    source: e.source?.component ?? '',
  }));
}
