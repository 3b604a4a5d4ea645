/**
 * A 3-member etcd cluster in network namespaces the test creates, so that one member can be partitioned
 * from its peers for real (SIGSTOP is not a partition: it freezes the member for its clients too). Each
 * member has its own namespace, and so does the client (kscale's side); a router namespace joins them
 * over veth pairs and forwards between them. `partition(i)` drops, in the router, every packet between
 * member i and the other members, while the client still reaches all three: the case where a member may
 * serve stale data. Names are unique per run; `destroy` (also run on process exit) deletes the namespaces,
 * which takes their links, rules and processes' sockets with them. The host's own namespace is never touched.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireEtcdBinary } from '../../src/storage/testing/etcd_process.js';

/** Member i's address; the client's is memberIP(CLIENT). */
export const memberIP = (i: number): string => `10.251.${i + 1}.2`;
const routerIP = (i: number): string => `10.251.${i + 1}.1`;
/** The client namespace's subnet index (its address is memberIP(CLIENT)). */
export const CLIENT = 9;
const CLIENT_PORT = 2379;
const PEER_PORT = 2380;

const live = new Set<string>();
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of children) c.kill('SIGKILL');
  for (const ns of live) execFileSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
});

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

function requireTool(tool: string, args: string[]): void {
  try {
    execFileSync(tool, args, { stdio: 'ignore' });
  } catch {
    throw new Error(`the etcd partition test needs ${tool} (Debian: iproute2, iptables, etcd-client)`);
  }
}

/** The namespaces and the members running in them. */
export class EtcdNetnsCluster {
  readonly router: string;
  readonly client: string;
  readonly members: string[];
  private readonly dataDirs: string[] = [];
  private readonly procs: (ChildProcess | undefined)[] = [];

  private constructor(id: string, size: number) {
    this.router = `${id}-r`;
    this.client = `${id}-c`;
    this.members = Array.from({ length: size }, (_, i) => `${id}-m${i}`);
  }

  /** Every member's client URL, as kscale's --etcd-servers (reachable from the client namespace). */
  get clientUrls(): string[] {
    return this.members.map((_, i) => `http://${memberIP(i)}:${CLIENT_PORT}`);
  }

  /** Creates the namespaces and starts `size` members; throws (loudly) when not root or a tool is missing. */
  static async create(size = 3): Promise<EtcdNetnsCluster> {
    if (process.getuid?.() !== 0) throw new Error('the etcd partition test needs root (network namespaces)');
    requireEtcdBinary();
    requireTool('ip', ['-V']);
    requireTool('iptables', ['--version']);
    requireTool('etcdctl', ['version']);
    const id = `ket${process.pid}`;
    const lab = new EtcdNetnsCluster(id, size);
    try {
      lab.build();
      lab.startMembers();
      await lab.waitHealthy(30_000);
    } catch (err) {
      lab.destroy();
      throw err;
    }
    return lab;
  }

  private build(): void {
    const link = (ns: string, i: number): void => {
      const [r, n] = [`kr${process.pid % 100000}x${i}`, `kn${process.pid % 100000}x${i}`];
      ip('link', 'add', r, 'netns', this.router, 'type', 'veth', 'peer', 'name', n, 'netns', ns);
      ip('-n', this.router, 'addr', 'add', `${routerIP(i)}/24`, 'dev', r);
      ip('-n', ns, 'addr', 'add', `${memberIP(i)}/24`, 'dev', n);
      ip('-n', this.router, 'link', 'set', r, 'up');
      ip('-n', ns, 'link', 'set', n, 'up');
      ip('-n', ns, 'route', 'add', 'default', 'via', routerIP(i));
    };
    for (const ns of [this.router, this.client, ...this.members]) {
      ip('netns', 'add', ns);
      live.add(ns);
      ip('-n', ns, 'link', 'set', 'lo', 'up');
    }
    execFileSync('ip', ['netns', 'exec', this.router, 'sysctl', '-qw', 'net.ipv4.ip_forward=1']);
    this.members.forEach((ns, i) => link(ns, i));
    link(this.client, CLIENT);
  }

  private startMembers(): void {
    const cluster = this.members.map((_, i) => `m${i}=http://${memberIP(i)}:${PEER_PORT}`).join(',');
    this.members.forEach((ns, i) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'kscale-etcd-netns-'));
      this.dataDirs.push(dataDir);
      const c = spawn(
        'ip',
        [
          'netns',
          'exec',
          ns,
          'etcd',
          `--name=m${i}`,
          `--data-dir=${dataDir}`,
          `--listen-client-urls=http://${memberIP(i)}:${CLIENT_PORT}`,
          `--advertise-client-urls=http://${memberIP(i)}:${CLIENT_PORT}`,
          `--listen-peer-urls=http://${memberIP(i)}:${PEER_PORT}`,
          `--initial-advertise-peer-urls=http://${memberIP(i)}:${PEER_PORT}`,
          `--initial-cluster=${cluster}`,
          '--initial-cluster-state=new',
          '--initial-cluster-token=kscale-partition',
          '--logger=zap',
          '--log-level=error',
        ],
        { stdio: 'ignore' },
      );
      children.add(c);
      c.once('exit', () => children.delete(c));
      this.procs[i] = c;
    });
  }

  /** Runs `etcdctl endpoint health` from the client namespace until every member answers, or throws. */
  private async waitHealthy(timeoutMs: number): Promise<void> {
    for (let waited = 0; ; waited += 200) {
      try {
        this.etcdctl(['endpoint', 'health', `--endpoints=${this.clientUrls.join(',')}`]);
        return;
      } catch (err) {
        if (waited > timeoutMs) throw new Error(`etcd members in namespaces did not become healthy: ${String(err)}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** etcdctl (v3) from the client namespace; its output. */
  etcdctl(args: string[]): string {
    return execFileSync('ip', ['netns', 'exec', this.client, 'etcdctl', '--command-timeout=2s', ...args], {
      encoding: 'utf8',
      env: { ...process.env, ETCDCTL_API: '3' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }

  /** The index of the member that leads, asked of each member alone (`etcdctl endpoint status`). */
  leader(): number {
    for (let i = 0; i < this.members.length; i++) {
      const out = this.etcdctl(['endpoint', 'status', '-w', 'json', `--endpoints=${this.clientUrls[i]!}`]);
      const st = JSON.parse(out) as { Status: { header: { member_id: number }; leader: number } }[];
      if (st[0]?.Status.leader === st[0]?.Status.header.member_id) return i;
    }
    throw new Error('no member leads');
  }

  /**
   * Cuts member i off from every other member (both directions, in the router); its clients still reach it. With
   * `clients` the client namespace is cut off from it too: to kscale the member is then as good as dead, except
   * that nothing closes its connections.
   */
  partition(i: number, clients = false): void {
    const others = this.members.map((_, j) => j).filter((j) => j !== i);
    if (clients) others.push(CLIENT);
    for (const j of others) {
      for (const [s, d] of [
        [memberIP(i), memberIP(j)],
        [memberIP(j), memberIP(i)],
      ] as const)
        execFileSync('ip', ['netns', 'exec', this.router, 'iptables', '-I', 'FORWARD', '-s', s, '-d', d, '-j', 'DROP']);
    }
  }

  /** Removes every partition. */
  heal(): void {
    execFileSync('ip', ['netns', 'exec', this.router, 'iptables', '-F', 'FORWARD']);
  }

  /** Kills the members and deletes the namespaces and data dirs. */
  destroy(): void {
    for (const c of this.procs) c?.kill('SIGKILL');
    for (const ns of [this.router, this.client, ...this.members]) {
      if (!live.has(ns)) continue;
      try {
        execFileSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
      } catch {
        // Already gone.
      }
      live.delete(ns);
    }
    for (const d of this.dataDirs) rmSync(d, { recursive: true, force: true });
  }
}
