/**
 * The lab's highly available control plane (`kscale up --etcd-members 3 --apiservers N --schedulers M`): an etcd
 * cluster on loopback, N API servers over it, each on its own 127.0.0.x address and one shared PKI, and HAProxy in
 * `mode tcp` in front of them, health-checking every server's /readyz over TLS. Every client goes through HAProxy.
 */
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LabConfig } from './config.js';
import { etcdSpec, freePort, schedulerSpec, serverSpec, type RunPaths } from './components.js';
import type { ComponentSpec } from './supervisor.js';

/** The shape of the HA control plane; one of everything is the plain lab. */
export interface HaTopology {
  etcdMembers: number;
  apiservers: number;
  schedulers: number;
}

/** Whether the topology asks for more than the plain lab's one server. */
export function isHa(t: HaTopology): boolean {
  return t.etcdMembers > 1 || t.apiservers > 1 || t.schedulers > 1;
}

/** The loopback address API server `i` binds and advertises (the lease reconciler keys servers by IP). */
export function apiserverAddress(i: number): string {
  return `127.0.0.${i + 2}`;
}

/** One etcd cluster's member specs; start them together, since a member alone never becomes ready. */
export async function etcdClusterSpecs(
  members: number,
  dataDir: string,
): Promise<{ specs: ComponentSpec[]; urls: string }> {
  const names = Array.from({ length: members }, (_, i) => `etcd-${i}`);
  const peers = await Promise.all(names.map(async () => `http://127.0.0.1:${await freePort()}`));
  const cluster = names.map((n, i) => `${n}=${peers[i]!}`).join(',');
  const made = await Promise.all(
    names.map((n, i) => etcdSpec(n, dataDir, { peerUrl: peers[i]!, initialCluster: cluster })),
  );
  return { specs: made.map((m) => m.spec), urls: made.map((m) => m.url).join(',') };
}

/**
 * The HA servers' --shutdown-delay-duration: above the two failed 1 s /readyz checks that take a server out of
 * HAProxy's rotation, so a server stopping gracefully is out of it before it stops accepting connections.
 */
export const SHUTDOWN_DELAY = '3s';

/** API server `i` of the HA lab: its own data dir and address, the shared secure port, etcd for storage. */
export function haServerSpec(
  c: LabConfig,
  paths: RunPaths,
  i: number,
  port: number,
  etcdServers: string,
): ComponentSpec {
  const addr = apiserverAddress(i);
  const dataDir = join(paths.dataDir, `data-${i}`);
  // Servers after the first take its CAs and ServiceAccount key (one PKI); each issues its own serving certificate.
  if (i > 0) sharePki(join(paths.dataDir, 'data-0'), dataDir);
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
  if (etcdServers === undefined) {
    const etcd = await etcdClusterSpecs(t.etcdMembers, paths.dataDir);
    await Promise.all(etcd.specs.map((s) => start(s)));
    etcdServers = etcd.urls;
    log(`etcd ready: ${t.etcdMembers} members (${etcd.urls})`);
  }
  const port = await freePort();
  const backends: string[] = [];
  for (let i = 0; i < t.apiservers; i++) {
    await start(haServerSpec(c, paths, i, port, etcdServers));
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
