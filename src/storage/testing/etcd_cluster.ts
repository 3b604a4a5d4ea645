/**
 * Starts a real multi-member etcd cluster for tests (Debian's etcd-server on
 * loopback, free ports, throw-away data dirs), as the HA tests need: three
 * members by default, each of which can be killed, restarted, and asked
 * whether it leads.
 */
import { performance } from 'node:perf_hooks';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, healthy, kill, requireEtcdBinary } from './etcd_process.js';

/** One member of a test cluster. */
export interface EtcdMember {
  readonly name: string;
  readonly clientUrl: string;
  readonly peerUrl: string;
  readonly dataDir: string;
  /** Whether the member's process runs. */
  running(): boolean;
  /** Sends a signal (SIGKILL for a crash) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /**
   * Starts the member again on its data dir (it rejoins and catches up) and waits for it to report
   * healthy, unless `wait` is false (a member alone has no quorum: restart them all, then wait).
   */
  restart(wait?: boolean): Promise<void>;
}

/** A running cluster; `stop()` kills every member and removes the data dirs. */
export interface EtcdCluster {
  readonly members: EtcdMember[];
  /** Every member's client URL, comma-separated (kscale's --etcd-servers). */
  readonly clientUrls: string;
  /** The member that leads now, asked of the running members. */
  leader(): Promise<EtcdMember>;
  stop(): Promise<void>;
}

/** What etcd's /v3/maintenance/status answers, as far as leadership goes. */
export interface StatusResponse {
  header?: { member_id?: string };
  leader?: string;
}

/** A client certificate and the CA to verify a member with, as PEM files (a member over TLS with --client-cert-auth). */
export interface MemberStatusTLS {
  caFile: string;
  certFile: string;
  keyFile: string;
}

/** One member's status over its HTTP gateway (HTTPS with `tls`), or null when it does not answer within 1 s. */
export async function memberStatus(url: string, tls?: MemberStatusTLS): Promise<StatusResponse | null> {
  if (tls !== undefined) return memberStatusTLS(url, tls);
  try {
    const res = await fetch(`${url}/v3/maintenance/status`, {
      method: 'POST',
      body: '{}',
      signal: AbortSignal.timeout(1000),
    });
    return (await res.json()) as StatusResponse;
  } catch {
    return null;
  }
}

function memberStatusTLS(url: string, tls: MemberStatusTLS): Promise<StatusResponse | null> {
  return new Promise((resolve) => {
    const req = request(
      `${url}/v3/maintenance/status`,
      {
        method: 'POST',
        ca: readFileSync(tls.caFile),
        cert: readFileSync(tls.certFile),
        key: readFileSync(tls.keyFile),
        timeout: 1000,
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString('utf8')));
        res.on('end', () => {
          try {
            resolve(JSON.parse(body) as StatusResponse);
          } catch {
            resolve(null);
          }
        });
      },
    );
    req.on('error', () => resolve(null));
    req.on('timeout', () => req.destroy());
    req.end('{}');
  });
}

/** Starts `size` members and resolves once every one reports healthy. */
export async function startEtcdCluster(size = 3, startTimeoutMs = 30_000): Promise<EtcdCluster> {
  requireEtcdBinary();
  const specs: { name: string; clientUrl: string; peerUrl: string; dataDir: string }[] = [];
  for (let i = 0; i < size; i++) {
    const clientUrl = `http://127.0.0.1:${await freePort()}`;
    const peerUrl = `http://127.0.0.1:${await freePort()}`;
    specs.push({ name: `m${i}`, clientUrl, peerUrl, dataDir: mkdtempSync(join(tmpdir(), 'kscale-etcd-m-')) });
  }
  const initialCluster = specs.map((s) => `${s.name}=${s.peerUrl}`).join(',');
  const members: EtcdMember[] = specs.map((s) => {
    let child: ChildProcess | undefined;
    const launch = (): void => {
      const c = spawn(
        'etcd',
        [
          `--name=${s.name}`,
          `--data-dir=${s.dataDir}`,
          `--listen-client-urls=${s.clientUrl}`,
          `--advertise-client-urls=${s.clientUrl}`,
          `--listen-peer-urls=${s.peerUrl}`,
          `--initial-advertise-peer-urls=${s.peerUrl}`,
          `--initial-cluster=${initialCluster}`,
          '--initial-cluster-state=new',
          '--initial-cluster-token=kscale-test',
          '--logger=zap',
          '--log-level=error',
        ],
        { stdio: 'ignore' },
      );
      child = c;
    };
    launch();
    return {
      ...s,
      running: () => child !== undefined && child.exitCode === null && child.signalCode === null,
      async kill(signal: NodeJS.Signals = 'SIGKILL') {
        const c = child;
        if (c === undefined || c.exitCode !== null || c.signalCode !== null) return;
        if (signal === 'SIGTERM') return kill(c);
        const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
        c.kill(signal);
        await exited;
      },
      async restart(wait = true) {
        launch();
        if (!wait) return;
        const deadline = performance.now() + startTimeoutMs;
        while (!(await healthy(s.clientUrl))) {
          if (performance.now() > deadline) throw new Error(`etcd member ${s.name} did not become healthy again`);
          await new Promise((r) => setTimeout(r, 50));
        }
      },
    };
  });
  const stop = async (): Promise<void> => {
    for (const m of members) await m.kill('SIGTERM');
    for (const s of specs) rmSync(s.dataDir, { recursive: true, force: true });
  };
  const deadline = performance.now() + startTimeoutMs;
  for (const s of specs) {
    while (!(await healthy(s.clientUrl))) {
      if (performance.now() > deadline) {
        await stop();
        throw new Error(`etcd cluster member ${s.name} did not become healthy on ${s.clientUrl}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    members,
    clientUrls: specs.map((s) => s.clientUrl).join(','),
    async leader() {
      for (let attempt = 0; attempt < 100; attempt++) {
        for (const m of members) {
          if (!m.running()) continue;
          const st = await memberStatus(m.clientUrl);
          if (st?.leader !== undefined && st.leader === st.header?.member_id) return m;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('no etcd member leads');
    },
    stop,
  };
}
