/**
 * The HA suites' cluster: n API servers over a 3-member etcd on 127.0.0.2, .3, ..., with HAProxy in front
 * (haproxyConfig over the servers' plain ports), as the HA lab runs them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcdCluster } from '../../src/storage/testing/etcd_cluster.js';
import { freePort } from '../../src/storage/testing/etcd_process.js';
import { haproxyConfig } from '../../src/lab/ha.js';
import { etcdServerArgs, startServer, type TestServer } from './harness.js';

/** A running HA cluster; `servers[i]` may be replaced by a restart, `stop` takes it all down. */
export interface HACluster {
  etcd: Awaited<ReturnType<typeof startEtcdCluster>>;
  servers: TestServer[];
  /** The command-line flags of server i, to start it again. */
  serverArgs: string[][];
  /** The load balancer's URL. */
  base: string;
  stop(): Promise<void>;
}

/** n API servers (with `extraArgs`) over a 3-member etcd, HAProxy in front; resolves once HAProxy serves /readyz. */
export async function haCluster(n: number, extraArgs: string[] = []): Promise<HACluster> {
  const etcd = await startEtcdCluster(3);
  const dir = mkdtempSync(join(tmpdir(), 'kscale-ha-lb-'));
  const servers: TestServer[] = [];
  const [securePort, plainPort, lbPort] = [await freePort(), await freePort(), await freePort()];
  const addrs = Array.from({ length: n }, (_, i) => `127.0.0.${i + 2}`);
  const serverArgs = addrs.map((ip) => [...etcdServerArgs(etcd.clientUrls, ip, securePort, plainPort), ...extraArgs]);
  let lb: ChildProcess | undefined;
  const stop = async (): Promise<void> => {
    lb?.kill('SIGKILL');
    for (const s of servers) await s.stop();
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const args of serverArgs) servers.push(await startServer(args));
    writeFileSync(
      join(dir, 'haproxy.cfg'),
      haproxyConfig(
        lbPort,
        addrs.map((a) => `${a}:${plainPort}`),
        false,
      ),
    );
    lb = spawn('haproxy', ['-db', '-f', join(dir, 'haproxy.cfg')], { stdio: 'ignore' });
    const base = `http://127.0.0.1:${lbPort}`;
    for (let i = 0; ; i++) {
      const ok = await fetch(`${base}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (i > 100) throw new Error('HAProxy does not serve /readyz');
      await new Promise((r) => setTimeout(r, 100));
    }
    return { etcd, servers, serverArgs, base, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
