/**
 * The lab's highly available control plane (`kscale up --etcd-members 3 --apiservers N --schedulers M`): an etcd
 * cluster on loopback, N API servers over it, each on its own 127.0.0.x address and one shared PKI, and HAProxy in
 * `mode tcp` in front of them, health-checking every server's /readyz over TLS. Every client goes through HAProxy.
 */
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LabConfig } from './config.js';
import { createClusterPKI, type ClusterPKIFiles } from '../apiserver/pki/cluster_pki.js';
import {
  controllerManagerSpec,
  etcdSpec,
  freePort,
  schedulerSpec,
  serverSpec,
  type EtcdMemberTLS,
  type RunPaths,
} from './components.js';
import type { ComponentSpec } from './supervisor.js';

/** The shape of the HA control plane; one of everything is the plain lab. */
export interface HaTopology {
  etcdMembers: number;
  apiservers: number;
  schedulers: number;
  controllerManagers: number;
}

/** Whether the topology asks for more than the plain lab's one server. */
export function isHa(t: HaTopology): boolean {
  return t.etcdMembers > 1 || t.apiservers > 1 || t.schedulers > 1 || t.controllerManagers > 1;
}

/** The loopback address API server `i` binds and advertises (the lease reconciler keys servers by IP). */
export function apiserverAddress(i: number): string {
  return `127.0.0.${i + 2}`;
}

/** The name of etcd member `i` in the HA lab. */
export const etcdMemberName = (i: number): string => `etcd-${i}`;

/**
 * One etcd cluster's member specs; start them together, since a member alone never becomes ready. With `pki`
 * (from createClusterPKI, a certificate per member) the members speak TLS to clients and to each other.
 */
export async function etcdClusterSpecs(
  members: number,
  dataDir: string,
  pki?: ClusterPKIFiles,
): Promise<{ specs: ComponentSpec[]; urls: string }> {
  const names = Array.from({ length: members }, (_, i) => etcdMemberName(i));
  const tls = (name: string): EtcdMemberTLS | undefined => {
    if (pki === undefined) return undefined;
    const m = pki.etcdMembers.find((x) => x.name === name);
    if (m === undefined) throw new Error(`the PKI has no certificate for etcd member ${name}`);
    return { cert: m.cert, key: m.key, ca: pki.etcdCA };
  };
  const scheme = pki === undefined ? 'http' : 'https';
  const peers = await Promise.all(names.map(async () => `${scheme}://127.0.0.1:${await freePort()}`));
  const cluster = names.map((n, i) => `${n}=${peers[i]!}`).join(',');
  const made = await Promise.all(
    names.map((n, i) => etcdSpec(n, dataDir, { peerUrl: peers[i]!, initialCluster: cluster }, tls(n))),
  );
  return { specs: made.map((m) => m.spec), urls: made.map((m) => m.url).join(',') };
}

/**
 * The HA lab's one PKI, made before anything starts, as `kscale certs` makes it: in the first server's cert dir
 * (`data/tls`, which it then adopts and the others copy), with etcd's CA, a serving-and-peer certificate per
 * member for 127.0.0.1, and the API servers' etcd client certificate.
 */
export function haClusterPKI(paths: RunPaths, etcdMembers: number): Promise<ClusterPKIFiles> {
  return createClusterPKI({
    dir: join(haServerDataDir(paths, 0), 'tls'),
    sans: [],
    etcdMembers: Array.from({ length: etcdMembers }, (_, i) => ({ name: etcdMemberName(i), addresses: ['127.0.0.1'] })),
  });
}

/** kube-apiserver's flags for etcd over TLS with the PKI's client certificate. */
export function etcdClientFlags(pki: ClusterPKIFiles): string[] {
  return ['--etcd-cafile', pki.etcdCA, '--etcd-certfile', pki.etcdClientCert, '--etcd-keyfile', pki.etcdClientKey];
}

/**
 * The HA servers' --shutdown-delay-duration: above the two failed 1 s /readyz checks that take a server out of
 * HAProxy's rotation, so a server stopping gracefully is out of it before it stops accepting connections.
 */
export const SHUTDOWN_DELAY = '3s';

/**
 * API server `i`'s data dir. The first keeps the plain lab's (`data`), where the controller-manager finds the
 * client CA it signs the nodes' CSRs with and Prometheus its client certificate.
 */
export function haServerDataDir(paths: RunPaths, i: number): string {
  return join(paths.dataDir, i === 0 ? 'data' : `data-${i}`);
}

/** API server `i` of the HA lab: its own data dir and address, the shared secure port, etcd for storage. */
export function haServerSpec(
  c: LabConfig,
  paths: RunPaths,
  i: number,
  port: number,
  etcdServers: string,
  etcdFlags: readonly string[] = [],
): ComponentSpec {
  const addr = apiserverAddress(i);
  const dataDir = haServerDataDir(paths, i);
  // Servers after the first take its CAs and ServiceAccount key (one PKI); each issues its own serving certificate.
  if (i > 0) sharePki(haServerDataDir(paths, 0), dataDir);
  const spec = serverSpec(
    {
      ...c,
      server: {
        ...c.server,
        etcdServers,
        extraArgs: [
          ...c.server.extraArgs,
          '--data-dir',
          dataDir,
          '--bind-address',
          addr,
          '--advertise-address',
          addr,
          '--secure-port',
          String(port),
          '--shutdown-delay-duration',
          SHUTDOWN_DELAY,
          ...etcdFlags,
        ],
      },
    },
    paths,
    () => undefined,
  );
  return { ...spec, name: `server-${i}` };
}

function sharePki(from: string, to: string): void {
  cpSync(join(from, 'tls'), join(to, 'tls'), {
    recursive: true,
    filter: (src) => !src.includes('serving-kube-apiserver'),
  });
  const saKey = join(from, 'service-account.key');
  if (existsSync(saKey)) cpSync(saKey, join(to, 'service-account.key'));
}

/**
 * HAProxy's configuration, as kubeadm's HA guide has it: `mode tcp` (client certificates pass through to the
 * servers), round robin, and an HTTPS health check of each server's /readyz (anonymous, as upstream allows it)
 * every second, so a server whose readiness goes false leaves the rotation within two checks. `tls` false checks
 * over plain HTTP (servers' --insecure-port, as the e2e tests run them).
 */
export function haproxyConfig(frontendPort: number, backends: readonly string[], tls = true): string {
  return [
    'global',
    '  log stderr format raw local0 info',
    'defaults',
    '  mode tcp',
    '  log global',
    '  option log-health-checks',
    '  timeout connect 5s',
    // Watches are long-lived: the servers end them (--min-request-timeout), not HAProxy.
    '  timeout client 2h',
    '  timeout server 2h',
    'frontend kube-apiserver',
    `  bind 127.0.0.1:${frontendPort}`,
    '  default_backend kube-apiservers',
    'backend kube-apiservers',
    '  option httpchk GET /readyz',
    '  http-check expect status 200',
    '  balance roundrobin',
    // A connection refused by a dead server is tried on another one instead of failing the client.
    '  option redispatch',
    '  retries 3',
    '  default-server inter 1s fall 2 rise 2',
    ...backends.map((b, i) => `  server apiserver-${i} ${b} check${tls ? ' check-ssl verify none' : ''}`),
    '',
  ].join('\n');
}

/** HAProxy in the foreground (-db) on `config`; ready once it prints its polling mechanism (-V). */
export function haproxySpec(config: string): ComponentSpec {
  return {
    name: 'haproxy',
    command: 'haproxy',
    args: ['-db', '-V', '-f', config],
    ready: /Using \S+ as the polling mechanism/,
    readyTimeoutMs: 10_000,
  };
}

/** Points every kubeconfig the servers wrote (admin, super-admin, the components') at the load balancer. */
export function pointKubeconfigsAt(paths: RunPaths, url: string): void {
  const files = [paths.kubeconfig, paths.superAdminKubeconfig];
  if (existsSync(paths.componentsDir))
    files.push(...readdirSync(paths.componentsDir).map((f) => join(paths.componentsDir, f)));
  for (const f of files) {
    if (!existsSync(f)) continue;
    writeFileSync(f, readFileSync(f, 'utf8').replace(/server: https?:\/\/\S+/g, `server: ${url}`), { mode: 0o600 });
  }
}

/** Scheduler `i` of `count`: leader-elected on the kube-scheduler Lease; a standby is ready once it campaigns. */
export function haSchedulerSpec(c: LabConfig, paths: RunPaths, i: number): ComponentSpec {
  const spec = schedulerSpec(
    { ...c, scheduler: { ...c.scheduler, extraArgs: [...c.scheduler.extraArgs, '--leader-elect=true'] } },
    paths,
  );
  return { ...spec, name: `scheduler-${i}`, ready: /kscale scheduler serving \/metrics and \/healthz on/ };
}

/**
 * Controller-manager `i` of the HA lab, leader-elected on the kube-controller-manager Lease. The first keeps the
 * plain lab's name and is started alone, so it leads and is ready once its controllers start; standby `i`
 * (`controller-manager-<i>`) is ready once it campaigns, its metrics port left to the default (skipped when
 * in use), as the standby schedulers'.
 */
export function haControllerManagerSpec(c: LabConfig, paths: RunPaths, i: number): ComponentSpec {
  const cm = { ...c.controllerManager, extraArgs: [...c.controllerManager.extraArgs, '--leader-elect=true'] };
  const spec = controllerManagerSpec({ ...c, controllerManager: cm }, paths);
  return i === 0
    ? spec
    : { ...spec, name: `controller-manager-${i}`, ready: /kscale controller-manager: campaigning for/ };
}

/** The line each leader-elected component prints once it leads and starts acting (its controllers, or scheduling). */
const ACTING: { lease: string; prefix: string; line: RegExp }[] = [
  { lease: 'kube-controller-manager', prefix: 'controller-manager', line: /^kscale controller-manager started:/m },
  { lease: 'kube-scheduler', prefix: 'scheduler', line: /^kscale scheduler started /m },
];

/**
 * Which of the lab's leader-elected candidates acted, read from their logs (`<logDir>/<name>.log`): a note per
 * Lease with more than one candidate, saying which started acting. A component leads only after it takes the
 * Lease and exits when it loses it, so one that started is the only actor unless a takeover happened; the note
 * says when more than one started.
 */
export function leaderElectionNotes(logDir: string, components: readonly string[]): string[] {
  const notes: string[] = [];
  for (const a of ACTING) {
    const candidates = [...new Set(components)].filter((n) => n === a.prefix || n.startsWith(`${a.prefix}-`));
    if (candidates.length < 2) continue;
    const acted = candidates.filter((n) => {
      const f = join(logDir, `${n}.log`);
      return existsSync(f) && a.line.test(readFileSync(f, 'utf8'));
    });
    const who = acted.length === 0 ? 'none' : acted.join(', ');
    notes.push(
      `leader election (${a.lease} Lease): ${acted.length} of ${candidates.length} candidates acted (${who})` +
        (acted.length > 1 ? '; more than one: a takeover, or two leaders' : ''),
    );
  }
  return notes;
}

/**
 * Brings up the HA control plane with `start` (the supervisor's): the etcd members together, the servers one by
 * one (the first makes the PKI), then HAProxy; resolves with the load balancer's URL, which every client uses.
 */
export async function startHaControlPlane(
  c: LabConfig,
  paths: RunPaths,
  t: HaTopology,
  start: (spec: ComponentSpec) => Promise<unknown>,
  log: (line: string) => void,
): Promise<string> {
  if (c.server.insecure) throw new Error('--apiservers/--etcd-members: the HA lab runs secure only (no --insecure)');
  let etcdServers = c.server.etcdServers;
  let etcdFlags: string[] = [];
  if (etcdServers === undefined) {
    // Our own etcd speaks TLS to clients and peers from the one PKI; --etcd-servers names someone else's.
    const pki = await haClusterPKI(paths, t.etcdMembers);
    const etcd = await etcdClusterSpecs(t.etcdMembers, paths.dataDir, pki);
    await Promise.all(etcd.specs.map((s) => start(s)));
    etcdServers = etcd.urls;
    etcdFlags = etcdClientFlags(pki);
    log(`etcd ready: ${t.etcdMembers} members over TLS (${etcd.urls})`);
  }
  const port = await freePort();
  const backends: string[] = [];
  for (let i = 0; i < t.apiservers; i++) {
    await start(haServerSpec(c, paths, i, port, etcdServers, etcdFlags));
    backends.push(`${apiserverAddress(i)}:${port}`);
  }
  const lbPort = await freePort();
  const config = join(paths.dataDir, 'haproxy.cfg');
  writeFileSync(config, haproxyConfig(lbPort, backends));
  await start(haproxySpec(config));
  const url = `https://127.0.0.1:${lbPort}`;
  pointKubeconfigsAt(paths, url);
  log(`${t.apiservers} API servers (${backends.join(', ')}) behind HAProxy at ${url}`);
  return url;
}
