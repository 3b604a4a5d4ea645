/**
 * The lab's components as processes, in start-up order: the API server, the
 * controller-manager, the scheduler, then the hollow-node fleet(s). Each one
 * is a `kscale` subcommand with upstream's flags; this file only turns a
 * LabConfig into their command lines, and finds out which ones this build has.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LabConfig } from './config.js';
import type { ComponentSpec } from './supervisor.js';
import { nodeRuntimeFlags, type ProcessRole } from './node_flags.js';

/** The compiled kscale command. */
export const KSCALE = fileURLToPath(new URL('../cmd/kscale.js', import.meta.url));

/** Which components this kscale build has (other parts of kscale land separately). */
export interface Capabilities {
  scheduler: boolean;
  /** The controller-manager runs the workload controllers (replicaset, deployment, job, garbage collector). */
  workloadControllers: boolean;
  hollowProxy: boolean;
}

function helpOf(sub: string): string | undefined {
  const r = spawnSync(process.execPath, [KSCALE, sub, '--help'], { encoding: 'utf8', timeout: 30_000 });
  // Commander answers --help of an unknown subcommand with the top-level help: check it is the subcommand's own.
  return r.status === 0 && r.stdout.includes(`Usage: kscale ${sub}`) ? r.stdout : undefined;
}

/** Asks each subcommand's --help what it supports. */
export function detectCapabilities(): Capabilities {
  const cm = helpOf('controller-manager') ?? '';
  const nodes = helpOf('nodes') ?? '';
  return {
    scheduler: helpOf('scheduler') !== undefined,
    // Deployments need the ReplicaSet controller, Jobs the Job controller, and deletion (propagationPolicy Background) the garbage collector.
    workloadControllers: [
      '--concurrent-deployment-syncs',
      '--concurrent-replicaset-syncs',
      '--concurrent-job-syncs',
      '--concurrent-gc-syncs',
    ].every((f) => cm.includes(f)),
    hollowProxy: ['--hollow-proxy', '--proxy-mode'].every((f) => nodes.includes(f)),
  };
}

/** Paths of one run's files. */
export interface RunPaths {
  dataDir: string;
  kubeconfig: string;
  /** The server's --token-auth-file; with it the server also serves its secure port. */
  tokenAuthFile?: string;
  /** The fleet's own kubeconfig (fleet.identity node-group); the admin's otherwise. */
  fleetKubeconfig?: string;
}

/** The bootstrap kubeconfig the fleets join with under --node-join csr. */
export function bootstrapKubeconfigPath(paths: RunPaths): string {
  return join(paths.dataDir, 'bootstrap.kubeconfig');
}

/** A kscale subcommand under this Node, with the runtime flags for its role (node_flags.ts). */
const node = (args: string[], role: ProcessRole = 'component'): { command: string; args: string[] } => ({
  command: process.execPath,
  args: [...nodeRuntimeFlags(role), KSCALE, ...args],
});

/** The API server. `onUrl` receives its URL once it listens. */
export function serverSpec(c: LabConfig, paths: RunPaths, onUrl: (url: string) => void): ComponentSpec {
  const s = c.server;
  return {
    name: 'server',
    ...node(
      [
        'server',
        '--port',
        '0',
        '--bind-address',
        '127.0.0.1',
        '--data-dir',
        join(paths.dataDir, 'data'),
        '--write-kubeconfig',
        paths.kubeconfig,
        '--storage-sync',
        s.storageSync,
        '--watch-cache',
        String(s.watchCache),
        '--max-requests-inflight',
        String(s.maxRequestsInflight),
        '--max-mutating-requests-inflight',
        String(s.maxMutatingRequestsInflight),
        ...(c.fleet.nodeJoin === 'csr'
          ? [...(paths.tokenAuthFile === undefined ? ['--secure-port', '0'] : []), '--enable-bootstrap-token-auth']
          : []),
        ...(s.etcdServers !== undefined ? ['--etcd-servers', s.etcdServers] : []),
        ...(s.etcdServersOverrides !== undefined ? ['--etcd-servers-overrides', s.etcdServersOverrides] : []),
        // One token stands for a whole fleet's nodes, so the per-user watch cap would count them all as one client.
        ...(paths.tokenAuthFile !== undefined
          ? ['--secure-port', '0', '--token-auth-file', paths.tokenAuthFile, '--max-watches-per-user', '0']
          : []),
        ...s.extraArgs,
      ],
      'server',
    ),
    ready: /listening on (http:\/\/\S+)/,
    readyTimeoutMs: 60_000,
    onReady: (m) => onUrl(m[1]!),
  };
}

/** The controller-manager (node lifecycle, and the workload controllers when built in). */
export function controllerManagerSpec(c: LabConfig, paths: RunPaths): ComponentSpec {
  const cm = c.controllerManager;
  return {
    name: 'controller-manager',
    ...node([
      'controller-manager',
      '--kubeconfig',
      paths.kubeconfig,
      '--kube-api-qps',
      String(cm.qps),
      '--kube-api-burst',
      String(cm.burst),
      '--node-monitor-period',
      cm.nodeMonitorPeriod,
      '--node-monitor-grace-period',
      cm.nodeMonitorGracePeriod,
      // The nodes' CSRs are signed with the server's client CA; only the controller-manager reads its key.
      ...(c.fleet.nodeJoin === 'csr'
        ? [
            '--cluster-signing-cert-file',
            join(paths.dataDir, 'data', 'tls', 'client-ca.crt'),
            '--cluster-signing-key-file',
            join(paths.dataDir, 'data', 'tls', 'client-ca.key'),
          ]
        : []),
      ...cm.extraArgs,
    ]),
    ready: /kscale controller-manager started/,
    readyTimeoutMs: 60_000,
  };
}

/** The scheduler. */
export function schedulerSpec(c: LabConfig, paths: RunPaths): ComponentSpec {
  return {
    name: 'scheduler',
    // --port 0: its metrics port must not collide with another scheduler on the machine.
    ...node([
      'scheduler',
      '--port',
      '0',
      '--kubeconfig',
      paths.kubeconfig,
      '--kube-api-qps',
      String(c.scheduler.qps),
      '--kube-api-burst',
      String(c.scheduler.burst),
      '--leader-elect=false',
      ...c.scheduler.extraArgs,
    ]),
    ready: /kscale scheduler started/,
    readyTimeoutMs: 60_000,
  };
}

/** The fleet processes: nodes split evenly, each with its own name prefix. */
export function fleetSpecs(c: LabConfig, paths: RunPaths): ComponentSpec[] {
  const f = c.fleet;
  const n = Math.max(1, Math.min(f.processes, c.nodes));
  const specs: ComponentSpec[] = [];
  for (let i = 0; i < n; i++) {
    const count = Math.floor(c.nodes / n) + (i < c.nodes % n ? 1 : 0);
    if (count === 0) continue;
    specs.push({
      name: n === 1 ? 'nodes' : `nodes-${i}`,
      ...node([
        'nodes',
        '--count',
        String(count),
        '--kubeconfig',
        paths.fleetKubeconfig ?? paths.kubeconfig,
        '--name-prefix',
        n === 1 ? 'hollow-node-' : `hollow-node-${i}-`,
        '--kube-api-qps',
        String(f.qps),
        '--kube-api-burst',
        String(f.burst),
        '--heartbeat',
        f.heartbeat,
        '--node-status-update-frequency',
        f.nodeStatusUpdateFrequency,
        '--pod-watch',
        f.podWatch,
        ...(f.nodeJoin === 'csr' ? ['--bootstrap-kubeconfig', bootstrapKubeconfigPath(paths)] : []),
        '--pod-startup-latency',
        `${f.podStartupMs},${f.podStartupMs}`,
        '--join-rate',
        String(f.joinRate / n),
        '--max-connections',
        String(f.maxConnections),
        ...(f.proxyMode !== 'off'
          ? ['--hollow-proxy', '--proxy-mode', f.proxyMode, '--hollow-proxy-watch', f.proxyWatch]
          : []),
        ...f.extraArgs,
      ]),
      ready: /hollow nodes joining/,
      readyTimeoutMs: 60_000,
    });
  }
  return specs;
}

/** A free TCP port on 127.0.0.1 (bound, then released). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A single-member etcd the lab runs itself (the Debian etcd-server package), with its data under dataDir. */
export async function etcdSpec(name: string, dataDir: string): Promise<{ spec: ComponentSpec; url: string }> {
  const [client, peer] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${client}`;
  return {
    url,
    spec: {
      name,
      command: 'etcd',
      args: [
        '--name',
        name,
        '--data-dir',
        join(dataDir, name),
        '--listen-client-urls',
        url,
        '--advertise-client-urls',
        url,
        '--listen-peer-urls',
        `http://127.0.0.1:${peer}`,
        '--initial-advertise-peer-urls',
        `http://127.0.0.1:${peer}`,
        '--initial-cluster',
        `${name}=http://127.0.0.1:${peer}`,
        // The same quota the API server enforces on the embedded store.
        '--quota-backend-bytes',
        String(2 * 1024 ** 3),
      ],
      ready: /ready to serve client requests/,
      readyStream: 'stderr',
      readyTimeoutMs: 30_000,
    },
  };
}
