/**
 * The lab's components as processes, in start-up order: the API server, the
 * controller-manager, the scheduler, then the hollow-node fleet(s). Each one
 * is a `kscale` subcommand with upstream's flags; this file only turns a
 * LabConfig into their command lines.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeKubeconfig } from '../apiserver/index.js';
import type { LabConfig } from './config.js';
import type { ComponentSpec } from './supervisor.js';
import { defaultFleetProcesses, fleetSlices } from '../kubelet/index.js';
import { nodeRuntimeFlags, type ProcessRole } from './node_flags.js';
import { nodeJoinOf } from './node_join.js';

/** The compiled kscale command. */
export const KSCALE = fileURLToPath(new URL('../cmd/kscale.js', import.meta.url));

/** Which components the build that ran a report had (recorded in report.json). */
export interface Capabilities {
  scheduler: boolean;
  /** The controller-manager runs the workload controllers (replicaset, deployment, job, garbage collector). */
  workloadControllers: boolean;
  hollowProxy: boolean;
}

/**
 * What this build has: every component is in it now, so nothing is probed (the lab used to run each
 * subcommand's --help to find out). The record stays in report.json so older reports still compare.
 */
export function detectCapabilities(): Capabilities {
  return { scheduler: true, workloadControllers: true, hollowProxy: true };
}

/** Paths of one run's files. */
export interface RunPaths {
  dataDir: string;
  /** The admin's kubeconfig (kubeadm:cluster-admins; on --insecure, the plain port's). */
  kubeconfig: string;
  /** The server's --token-auth-file; with it the server also serves its secure port. */
  tokenAuthFile?: string;
  /** The fleet's own kubeconfig (fleet.identity node-group); the admin's otherwise. */
  fleetKubeconfig?: string;
  /** The break-glass kubeconfig (system:masters): the lab's /metrics scrapes, exempt from flow control. */
  superAdminKubeconfig: string;
  /** controller-manager.conf, scheduler.conf and proxy.conf, written by the server. */
  componentsDir: string;
}

/** The paths of a run with its report under `reportDir` and its data under `dataDir`. */
export function runPaths(reportDir: string, dataDir: string): RunPaths {
  return {
    dataDir,
    kubeconfig: join(reportDir, 'kubeconfig'),
    superAdminKubeconfig: join(dataDir, 'super-admin.conf'),
    componentsDir: join(dataDir, 'components'),
  };
}

/** The kubeconfig a component runs with: its own identity, or on --insecure the plain port's. */
export function componentKubeconfig(
  c: LabConfig,
  paths: RunPaths,
  component: 'controller-manager' | 'scheduler',
): string {
  return c.server.insecure ? paths.kubeconfig : join(paths.componentsDir, `${component}.conf`);
}

/**
 * The kubeconfig the hollow-node fleets get with --kubeconfig: under --node-join shared, the one identity every node
 * uses (the node-group token's, else the admin's); under csr (the default) each node talks with its own certificate
 * and the fleet only publishes its endpoint beside this file.
 */
export function fleetKubeconfig(_c: LabConfig, paths: RunPaths): string {
  return paths.fleetKubeconfig ?? paths.kubeconfig;
}

/**
 * The folder of the server's PKI: `data/tls` under the run's data dir. In an HA run the first server keeps that
 * data dir (ha.ts's haServerDataDir) and the others share its PKI.
 */
export function serverPkiDir(paths: RunPaths): string {
  return join(paths.dataDir, 'data', 'tls');
}

/** The server's client CA, which the components' secure ports trust for client certificates. */
export function clientCAFile(paths: RunPaths): string {
  return join(serverPkiDir(paths), 'client-ca.crt');
}

/** The kubeconfig the lab scrapes the server's /metrics with. */
export function metricsKubeconfig(c: LabConfig, paths: RunPaths): string {
  return c.server.insecure ? paths.kubeconfig : paths.superAdminKubeconfig;
}

/** The bootstrap kubeconfig the fleets join with under --node-join csr. */
export function bootstrapKubeconfigPath(paths: RunPaths): string {
  return join(paths.dataDir, 'bootstrap.kubeconfig');
}

/**
 * A kscale subcommand under this Node, with the runtime flags for its role (node_flags.ts); under nice(1) when
 * `nice` is above 0, so every thread of the process (V8's and libuv's too, which a later setpriority would miss)
 * runs at that nice value.
 */
const node = (args: string[], role: ProcessRole = 'component', nice = 0): { command: string; args: string[] } => {
  const argv = [...nodeRuntimeFlags(role), KSCALE, ...args];
  return nice > 0
    ? { command: 'nice', args: ['-n', String(nice), process.execPath, ...argv] }
    : { command: process.execPath, args: argv };
};

/**
 * The API server, secure (a free --secure-port, the admin, super-admin and component kubeconfigs), or with
 * --insecure also a plain-HTTP port with AlwaysAllow whose kubeconfig the lab writes. `onUrl` receives the URL
 * the components use once it listens.
 */
export function serverSpec(c: LabConfig, paths: RunPaths, onUrl: (url: string) => void): ComponentSpec {
  const s = c.server;
  return {
    name: 'server',
    ...node(
      [
        'server',
        '--secure-port',
        '0',
        ...(s.insecure ? ['--insecure-port', '0', '--authorization-mode', 'AlwaysAllow'] : []),
        '--bind-address',
        '127.0.0.1',
        '--data-dir',
        join(paths.dataDir, 'data'),
        ...(s.insecure ? [] : ['--write-kubeconfig', paths.kubeconfig]),
        '--write-super-admin-kubeconfig',
        paths.superAdminKubeconfig,
        '--write-component-kubeconfigs',
        paths.componentsDir,
        '--storage-sync',
        s.storageSync,
        '--watch-cache',
        String(s.watchCache),
        '--max-requests-inflight',
        String(s.maxRequestsInflight),
        '--max-mutating-requests-inflight',
        String(s.maxMutatingRequestsInflight),
        ...(nodeJoinOf(c) === 'csr'
          ? [...(paths.tokenAuthFile === undefined ? ['--secure-port', '0'] : []), '--enable-bootstrap-token-auth']
          : []),
        ...(s.etcdServers !== undefined ? ['--etcd-servers', s.etcdServers] : []),
        ...(s.etcdServersOverrides !== undefined ? ['--etcd-servers-overrides', s.etcdServersOverrides] : []),
        // One token stands for a whole fleet's nodes, so the per-user watch cap would count them all as one client.
        ...(paths.tokenAuthFile !== undefined
          ? ['--token-auth-file', paths.tokenAuthFile, '--max-watches-per-user', '0']
          : []),
        ...s.extraArgs,
      ],
      'server',
    ),
    ready: s.insecure ? /listening on (http:\/\/\S+)/ : /serving securely on (https:\/\/\S+)/,
    readyTimeoutMs: 60_000,
    onReady: (m) => {
      if (s.insecure) writeKubeconfig(paths.kubeconfig, m[1]!);
      onUrl(m[1]!);
    },
  };
}

/** The controller-manager (node lifecycle, and the workload controllers when built in). */
export function controllerManagerSpec(c: LabConfig, paths: RunPaths): ComponentSpec {
  const cm = c.controllerManager;
  return {
    name: 'controller-manager',
    ...node(
      [
        'controller-manager',
        '--kubeconfig',
        componentKubeconfig(c, paths, 'controller-manager'),
        // As kubeadm runs it: each controller under its own ServiceAccount and system:controller:<name> role.
        ...(c.server.insecure ? [] : ['--use-service-account-credentials']),
        '--kube-api-qps',
        String(cm.qps),
        '--kube-api-burst',
        String(cm.burst),
        '--concurrent-deployment-syncs',
        String(cm.workloadSyncs),
        '--concurrent-replicaset-syncs',
        String(cm.workloadSyncs),
        '--node-monitor-period',
        cm.nodeMonitorPeriod,
        '--node-monitor-grace-period',
        cm.nodeMonitorGracePeriod,
        // The nodes' CSRs are signed with the server's client CA; only the controller-manager reads its key.
        ...(nodeJoinOf(c) === 'csr'
          ? [
              '--cluster-signing-cert-file',
              clientCAFile(paths),
              '--cluster-signing-key-file',
              join(serverPkiDir(paths), 'client-ca.key'),
            ]
          : []),
        ...cm.extraArgs,
      ],
      'informers',
    ),
    ready: /kscale controller-manager started/,
    readyTimeoutMs: 60_000,
  };
}

/** The scheduler. */
export function schedulerSpec(c: LabConfig, paths: RunPaths): ComponentSpec {
  return {
    name: 'scheduler',
    // --secure-port 0: its endpoints must not collide with another scheduler on the machine. Its secure port
    // authenticates client certificates of the server's client CA (the lab's metrics identity, for Prometheus).
    ...node(
      [
        'scheduler',
        '--secure-port',
        '0',
        ...(c.server.insecure ? [] : ['--client-ca-file', clientCAFile(paths)]),
        '--kubeconfig',
        componentKubeconfig(c, paths, 'scheduler'),
        '--kube-api-qps',
        String(c.scheduler.qps),
        '--kube-api-burst',
        String(c.scheduler.burst),
        '--leader-elect=false',
        ...c.scheduler.extraArgs,
      ],
      'informers',
    ),
    ready: /kscale scheduler started/,
    readyTimeoutMs: 60_000,
  };
}

/**
 * The fleet processes: contiguous slices of one node range under one name prefix (kscale nodes --first-index),
 * so the cluster looks the same whatever the process count; 0 processes: one per 1,250 nodes. Process i serves
 * its endpoints on securePorts[i] (a free port when absent).
 */
export function fleetSpecs(c: LabConfig, paths: RunPaths, securePorts: readonly number[] = []): ComponentSpec[] {
  const f = c.fleet;
  const slices = fleetSlices(c.nodes, fleetProcessCount(c));
  const n = slices.length;
  const specs: ComponentSpec[] = [];
  for (const [i, { firstIndex, count }] of slices.entries()) {
    specs.push({
      name: n === 1 ? 'nodes' : `nodes-${i}`,
      ...node(
        [
          'nodes',
          '--count',
          String(count),
          '--kubeconfig',
          fleetKubeconfig(c, paths),
          '--name-prefix',
          'hollow-node-',
          '--first-index',
          String(firstIndex),
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
          ...(nodeJoinOf(c) === 'csr' ? ['--bootstrap-kubeconfig', bootstrapKubeconfigPath(paths)] : []),
          // The fleet's /metrics and health: a port the scrape config names (--prometheus), else a free one, so fleets
          // never collide; the server's client CA authenticates the lab's metrics identity.
          '--secure-port',
          String(securePorts[i] ?? 0),
          ...(c.server.insecure ? [] : ['--client-ca-file', clientCAFile(paths)]),
          '--pod-startup-latency',
          `${f.podStartupMs},${f.podStartupMs}`,
          '--join-rate',
          String(f.joinRate / n),
          '--kubelet-max-connections',
          String(f.maxConnections),
          ...(f.proxyMode !== 'off'
            ? ['--hollow-proxy', '--proxy-mode', f.proxyMode, '--hollow-proxy-watch', f.proxyWatch]
            : []),
          ...f.extraArgs,
        ],
        'informers',
        f.nice,
      ),
      ready: /hollow nodes joining/,
      readyTimeoutMs: 60_000,
    });
  }
  return specs;
}

/** The fleet processes of a run: --fleet-processes, or one per 1,250 nodes when it is 0 (auto). */
export function fleetProcessCount(c: LabConfig): number {
  return c.fleet.processes > 0 ? c.fleet.processes : defaultFleetProcesses(c.nodes);
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

/** A member's TLS files (PEM): its certificate serves clients and peers; `ca` verifies both kinds of client. */
export interface EtcdMemberTLS {
  cert: string;
  key: string;
  ca: string;
}

/**
 * An etcd the lab runs itself (the Debian etcd-server package), with its data under dataDir: a single member, or
 * with `cluster` one member of a cluster on loopback (its peer URL and the --initial-cluster list). With `tls`
 * it serves clients and peers over TLS and requires client certificates from both (https:// URLs).
 */
export async function etcdSpec(
  name: string,
  dataDir: string,
  cluster?: { peerUrl: string; initialCluster: string },
  tls?: EtcdMemberTLS,
): Promise<{ spec: ComponentSpec; url: string }> {
  const scheme = tls === undefined ? 'http' : 'https';
  const url = `${scheme}://127.0.0.1:${await freePort()}`;
  const peerUrl = cluster?.peerUrl ?? `${scheme}://127.0.0.1:${await freePort()}`;
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
        peerUrl,
        '--initial-advertise-peer-urls',
        peerUrl,
        '--initial-cluster',
        cluster?.initialCluster ?? `${name}=${peerUrl}`,
        // The same quota the API server enforces on the embedded store.
        '--quota-backend-bytes',
        String(2 * 1024 ** 3),
        ...(tls === undefined
          ? []
          : [
              '--cert-file',
              tls.cert,
              '--key-file',
              tls.key,
              '--trusted-ca-file',
              tls.ca,
              '--client-cert-auth',
              '--peer-cert-file',
              tls.cert,
              '--peer-key-file',
              tls.key,
              '--peer-trusted-ca-file',
              tls.ca,
              '--peer-client-cert-auth',
            ]),
      ],
      ready: /ready to serve client requests/,
      readyStream: 'stderr',
      readyTimeoutMs: 30_000,
    },
  };
}
