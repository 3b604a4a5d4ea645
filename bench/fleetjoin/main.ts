/**
 * Join time and connection memory of a hollow fleet that joins the way kubeadm nodes do: a secure
 * `kscale server` (--enable-bootstrap-token-auth) and a `kscale controller-manager` running
 * csrapproving and csrsigning, then an in-process Fleet of --nodes hollow nodes with a bootstrap
 * token (--bootstrap-concurrency at once), each sending its CSR, waiting for its certificate and
 * registering over its own TLS connection. Prints the join time (start to every node registered,
 * and nodes/s), then the same fleet size under the shared credential, and the extra memory per
 * node connection (RSS and heap after GC, csr minus shared, over --nodes; RSS is noise at a few nodes).
 *
 *   node --expose-gc dist/bench/fleetjoin/main.js [--nodes=100] [--concurrency=32] [--quick]
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { RESTClient, loadKubeconfig, silentLogger, type RestConfig } from '../../src/client/index.js';
import { RealClock } from '../../src/clock/index.js';
import { DEFAULT_SETTINGS, Fleet, type FleetJoinOptions } from '../../src/kubelet/index.js';
import { writeBootstrapKubeconfig } from '../../src/lab/node_join.js';
import { Cleanup, KSCALE, startKscale, tempDir } from '../apiserver/processes.js';

const args = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k!, v ?? 'true'] as const;
  }),
);
const quick = args.has('quick');
const NODES = Number(args.get('nodes') ?? (quick ? 10 : 100));
const CONCURRENCY = Number(args.get('concurrency') ?? 32);

/** RSS and heap after a full GC (when --expose-gc), in bytes. */
function memory(): { rss: number; heap: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed };
}

/** Starts `kscale controller-manager` with the CSR controllers signing with the server's client CA. */
async function startSigner(cleanup: Cleanup, kubeconfig: string, tls: string): Promise<void> {
  const p = spawn(
    process.execPath,
    [
      KSCALE,
      'controller-manager',
      '--kubeconfig',
      kubeconfig,
      '--controllers',
      'csrapproving,csrsigning',
      '--cluster-signing-cert-file',
      join(tls, 'client-ca.crt'),
      '--cluster-signing-key-file',
      join(tls, 'client-ca.key'),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  cleanup.add(
    () => void p.kill('SIGKILL'),
    () => void p.kill('SIGKILL'),
  );
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: p.stdout! }).on('line', (l) => l.includes('controller-manager started') && resolve());
    p.once('exit', (code) => reject(new Error(`controller-manager exited with ${code}`)));
  });
}

/** Runs a fleet of NODES to registration; returns seconds taken and the memory it holds. */
async function runFleet(
  config: RestConfig,
  prefix: string,
  join?: FleetJoinOptions,
): Promise<{ seconds: number; registered: number; rssPerNode: number; heapPerNode: number; fleet: Fleet }> {
  const before = memory();
  const fleet = new Fleet({
    config,
    count: NODES,
    namePrefix: prefix,
    joinRate: 0,
    settings: { ...DEFAULT_SETTINGS, images: 5 },
    podWatch: 'per-node',
    qps: 50,
    burst: 100,
    maxConnections: 64,
    clock: new RealClock(),
    logger: silentLogger,
    ...(join !== undefined ? { join } : {}),
  });
  const t0 = performance.now();
  await fleet.start();
  const seconds = (performance.now() - t0) / 1000;
  await new Promise((r) => setTimeout(r, 1_000)); // let the pod watches open
  const after = memory();
  return {
    seconds,
    registered: fleet.stats().registered,
    rssPerNode: (after.rss - before.rss) / NODES,
    heapPerNode: (after.heap - before.heap) / NODES,
    fleet,
  };
}

async function main(): Promise<void> {
  const cleanup = new Cleanup();
  try {
    const dir = tempDir(cleanup, 'fleetjoin');
    const kubeconfig = join(dir, 'kubeconfig');
    await startKscale(
      cleanup,
      join(dir, 'data'),
      ['--secure-port', '0', '--enable-bootstrap-token-auth', '--write-kubeconfig', kubeconfig],
      [],
    );
    await startSigner(cleanup, kubeconfig, join(dir, 'data', 'tls'));
    const admin = loadKubeconfig({ path: kubeconfig });
    const rest = new RESTClient({ ...admin, qps: 0 });
    cleanup.add(() => rest.close());
    const bootstrapFile = join(dir, 'bootstrap.kubeconfig');
    await writeBootstrapKubeconfig(rest, kubeconfig, bootstrapFile);
    const bootstrap = loadKubeconfig({ path: bootstrapFile });
    const { bearerToken: _t, ...server } = bootstrap;
    await new Promise((r) => setTimeout(r, 500)); // the token Secret reaches the authenticator's informer
    // The shared fleet first: RSS rarely shrinks, so the second run's growth is the fairer one to charge.
    const shared = await runFleet(admin, 'shared-');
    await shared.fleet.stop();
    const csr = await runFleet(server, 'join-', { bootstrap, concurrency: CONCURRENCY });
    await csr.fleet.stop();
    const kib = (b: number): string => (b / 1024).toFixed(1);
    process.stdout.write(
      `fleetjoin: ${csr.registered}/${NODES} nodes joined through CSRs in ${csr.seconds.toFixed(2)} s ` +
        `(${(NODES / csr.seconds).toFixed(1)} nodes/s, concurrency ${CONCURRENCY}); shared credential: ${shared.seconds.toFixed(2)} s\n` +
        `fleetjoin: memory per node, own certificate and connection: rss ${kib(csr.rssPerNode)} KiB, heap ${kib(csr.heapPerNode)} KiB; ` +
        `shared: rss ${kib(shared.rssPerNode)} KiB, heap ${kib(shared.heapPerNode)} KiB; ` +
        `extra per connection: rss ${kib(csr.rssPerNode - shared.rssPerNode)} KiB, heap ${kib(csr.heapPerNode - shared.heapPerNode)} KiB\n`,
    );
    process.stdout.write(
      `${JSON.stringify({ nodes: NODES, concurrency: CONCURRENCY, joinSeconds: csr.seconds, sharedSeconds: shared.seconds, joined: csr.registered, extraRssBytesPerNode: csr.rssPerNode - shared.rssPerNode, extraHeapBytesPerNode: csr.heapPerNode - shared.heapPerNode })}\n`,
    );
    if (csr.registered !== NODES) process.exitCode = 1;
  } finally {
    await cleanup.run();
  }
}

await main();
