/**
 * Starts a real single-member etcd for tests, on loopback with free ports and
 * a throw-away data dir. Tests that need etcd fail loudly when it is missing:
 * a skipped etcd suite would hide a broken backend.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface EtcdProcessOptions {
  /** Extra etcd flags, e.g. ['--quota-backend-bytes=1048576']. */
  extraFlags?: string[];
  /** --experimental-watch-progress-notify-interval in ms (etcd 3.4 default is 10 min; tests want ~1 s). */
  progressNotifyIntervalMs?: number;
  /** How long to wait for /health before giving up. */
  startTimeoutMs?: number;
  /** Start on this data dir (a restored snapshot) instead of a fresh one; it is removed at stop all the same. */
  dataDir?: string;
  /** The peer port (a restored member's must be the one given to `etcdctl snapshot restore`); default a free one. */
  peerPort?: number;
  /** Serve clients and peers over TLS, requiring client certificates signed by `caFile` (files, PEM). */
  tls?: EtcdProcessTLS;
}

/** A member's certificate (serving clients and peers) and the CA it trusts; the client pair checks /health. */
export interface EtcdProcessTLS {
  certFile: string;
  keyFile: string;
  caFile: string;
  clientCertFile: string;
  clientKeyFile: string;
}

/** The member name of every test etcd (a snapshot restore names it again). */
export const ETCD_TEST_MEMBER = 'kscale-test';

/** A running etcd; `stop()` kills it and removes its data dir. */
export interface EtcdProcess {
  /** Client URL, e.g. http://127.0.0.1:40123. */
  readonly clientUrl: string;
  readonly dataDir: string;
  readonly progressNotifyIntervalMs: number;
  stop(): Promise<void>;
}

/** Binds port 0 to let the kernel pick a free port, then releases it for etcd. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Throws a clear error when the etcd binary is not on PATH. */
export function requireEtcdBinary(): void {
  const r = spawnSync('etcd', ['--version'], { encoding: 'utf8' });
  if (r.error !== undefined || r.status !== 0) {
    throw new Error(
      'etcd is not on PATH: install it (Debian: apt-get install -y etcd-server) to run the etcd3 storage tests',
    );
  }
}

/**
 * Starts etcd and resolves once /health reports healthy. A port picked free can be taken by another test before
 * etcd binds it (tests run two at a time): etcd then exits with "address already in use", and the start is tried
 * again on new ports, at most three times.
 */
export async function startEtcd(opts: EtcdProcessOptions = {}): Promise<EtcdProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startEtcdOnce(opts);
    } catch (err) {
      const portTaken = /address already in use/.test(String(err));
      if (!portTaken || attempt >= 3 || opts.peerPort !== undefined) throw err;
    }
  }
}

async function startEtcdOnce(opts: EtcdProcessOptions): Promise<EtcdProcess> {
  requireEtcdBinary();
  const clientPort = await freePort();
  const peerPort = opts.peerPort ?? (await freePort());
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'kscale-etcd-'));
  const tls = opts.tls;
  const scheme = tls === undefined ? 'http' : 'https';
  const clientUrl = `${scheme}://127.0.0.1:${clientPort}`;
  const peerUrl = `${scheme}://127.0.0.1:${peerPort}`;
  const progressMs = opts.progressNotifyIntervalMs ?? 1000;
  const args = [
    `--name=${ETCD_TEST_MEMBER}`,
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${clientUrl}`,
    `--advertise-client-urls=${clientUrl}`,
    `--listen-peer-urls=${peerUrl}`,
    `--initial-advertise-peer-urls=${peerUrl}`,
    `--initial-cluster=${ETCD_TEST_MEMBER}=${peerUrl}`,
    '--logger=zap',
    '--log-level=error',
    `--experimental-watch-progress-notify-interval=${progressMs}ms`,
    ...(tls === undefined
      ? []
      : [
          `--cert-file=${tls.certFile}`,
          `--key-file=${tls.keyFile}`,
          `--trusted-ca-file=${tls.caFile}`,
          '--client-cert-auth',
          `--peer-cert-file=${tls.certFile}`,
          `--peer-key-file=${tls.keyFile}`,
          `--peer-trusted-ca-file=${tls.caFile}`,
          '--peer-client-cert-auth',
        ]),
    ...(opts.extraFlags ?? []),
  ];
  const child = spawn('etcd', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString('utf8')).slice(-4000);
  });
  let exited = false;
  child.once('exit', () => (exited = true));
  const stop = async (): Promise<void> => {
    await kill(child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + (opts.startTimeoutMs ?? 20_000);
  while (!(await (tls === undefined ? healthy(clientUrl) : healthyTLS(clientUrl, tls)))) {
    if (exited || Date.now() > deadline) {
      await stop();
      throw new Error(`etcd did not become healthy on ${clientUrl} (exited=${exited}): ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { clientUrl, dataDir, progressNotifyIntervalMs: progressMs, stop };
}

/** Whether the etcd at `url` answers /health as healthy within a second. */
export async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
    const body = (await res.json()) as { health?: string };
    return body.health === 'true';
  } catch {
    return false;
  }
}

/** `healthy` over TLS, presenting the client certificate etcd requires. */
export function healthyTLS(url: string, tls: EtcdProcessTLS): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(
      `${url}/health`,
      {
        ca: readFileSync(tls.caFile),
        cert: readFileSync(tls.clientCertFile),
        key: readFileSync(tls.clientKeyFile),
        timeout: 1000,
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString('utf8')));
        res.on('end', () => resolve(/"health":\s*"true"/.test(body)));
      },
    );
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** SIGTERM, then SIGKILL if etcd has not exited within 5 s. */
export async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
