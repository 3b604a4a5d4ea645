/**
 * A throw-away kernel lab for the proxy's tests and benchmark, as root:
 * a "node" namespace (where the proxy's rules go), a "backend" namespace
 * holding the endpoint addresses, and a "client" namespace for traffic that
 * enters the node from outside (NodePorts), joined to the node by veth pairs.
 * Names are unique per lab; `destroy` (also run on process exit) deletes the
 * namespaces, which takes their rules, links and sockets with them. The
 * host's own namespace is never touched.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { Executor } from '../exec.js';

const PEER = fileURLToPath(new URL('./netns_peer.js', import.meta.url));

/** The node's address toward the backends; endpoint i is 10.244.1.(i+2). */
export const NODE_BACKEND_IP = '10.244.1.1';
/** The node's address toward the client namespace (its NodePort address). */
export const NODE_IP = '192.168.77.1';
/** The client namespace's address. */
export const CLIENT_IP = '192.168.77.2';

/** One connect attempt as the peer reports it: the backend "ip:port" that answered, or an error code. */
export interface ConnectSample {
  reply: string;
  connectMs: number;
}

let seq = 0;
const live = new Set<string>();
const listeners = new Set<ChildProcess>();
// A run cut short (a signal, a crash) must not leave namespaces or listeners behind.
process.once('exit', () => {
  for (const c of listeners) c.kill('SIGKILL');
  for (const ns of live) execFileSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
});

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Endpoint address i (0-based) in the backend namespace. */
export function endpointIP(i: number): string {
  return `10.244.${1 + Math.floor((i + 2) / 256)}.${(i + 2) % 256}`;
}

/** Three namespaces and the links between them. */
export class NetnsLab {
  readonly node: string;
  readonly backend: string;
  readonly client: string;
  private readonly children = new Set<ChildProcess>();

  private constructor(id: string) {
    this.node = `${id}-node`;
    this.backend = `${id}-be`;
    this.client = `${id}-cl`;
  }

  /** Creates the namespaces with `endpoints` backend addresses; throws (loudly) when not root or `ip` is missing. */
  static create(endpoints: number): NetnsLab {
    if (process.getuid?.() !== 0) throw new Error('kernel proxy tests need root (network namespaces, iptables, nft)');
    const id = `kpx${process.pid}x${seq++}`;
    const lab = new NetnsLab(id);
    const vb = `kv${process.pid % 100000}${seq}`;
    try {
      for (const ns of [lab.node, lab.backend, lab.client]) {
        ip('netns', 'add', ns);
        live.add(ns);
        ip('-n', ns, 'link', 'set', 'lo', 'up');
      }
      ip('link', 'add', `${vb}n`, 'netns', lab.node, 'type', 'veth', 'peer', 'name', `${vb}b`, 'netns', lab.backend);
      ip('link', 'add', `${vb}m`, 'netns', lab.node, 'type', 'veth', 'peer', 'name', `${vb}c`, 'netns', lab.client);
      ip('-n', lab.node, 'addr', 'add', `${NODE_BACKEND_IP}/16`, 'dev', `${vb}n`);
      ip('-n', lab.node, 'addr', 'add', `${NODE_IP}/24`, 'dev', `${vb}m`);
      ip('-n', lab.client, 'addr', 'add', `${CLIENT_IP}/24`, 'dev', `${vb}c`);
      for (let i = 0; i < endpoints; i++) ip('-n', lab.backend, 'addr', 'add', `${endpointIP(i)}/16`, 'dev', `${vb}b`);
      for (const [ns, dev] of [
        [lab.node, `${vb}n`],
        [lab.node, `${vb}m`],
        [lab.backend, `${vb}b`],
        [lab.client, `${vb}c`],
      ] as const)
        ip('-n', ns, 'link', 'set', dev, 'up');
      ip('-n', lab.backend, 'route', 'add', 'default', 'via', NODE_BACKEND_IP);
      ip('-n', lab.client, 'route', 'add', 'default', 'via', NODE_IP);
      // Cluster IPs have no interface anywhere: the node routes them toward the backends, as a node's default route would.
      ip('-n', lab.node, 'route', 'add', 'default', 'via', endpointIP(0));
      execFileSync('ip', ['netns', 'exec', lab.node, 'sysctl', '-qw', 'net.ipv4.ip_forward=1']);
    } catch (err) {
      lab.destroySync();
      throw err;
    }
    return lab;
  }

  /** An Executor that runs tools inside the node namespace. */
  nodeExec(): Executor {
    return new Executor(this.node);
  }

  /** Starts listeners (TCP and UDP) on `port` at the given backend addresses; resolves once they listen. */
  async serve(port: number, ips: readonly string[]): Promise<void> {
    const p = spawn('ip', ['netns', 'exec', this.backend, process.execPath, PEER, 'serve', String(port), ...ips], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.children.add(p);
    listeners.add(p);
    p.once('exit', () => listeners.delete(p));
    await new Promise<void>((resolve, reject) => {
      p.once('exit', (code) => reject(new Error(`backend listener exited with ${code}`)));
      createInterface({ input: p.stdout! }).once('line', () => resolve());
    });
  }

  /** Makes `count` fresh connections from namespace `ns` to host:port and returns what answered each; `local` is a TCP source address or a UDP source port. */
  async connect(
    ns: string,
    proto: 'tcp' | 'udp',
    host: string,
    port: number,
    count: number,
    timeoutMs = 2000,
    local = '',
  ): Promise<ConnectSample[]> {
    const p = spawn(
      'ip',
      [
        'netns',
        'exec',
        ns,
        process.execPath,
        PEER,
        'connect',
        proto,
        host,
        String(port),
        String(count),
        String(timeoutMs),
        local,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => p.once('exit', resolve));
    if (code !== 0) throw new Error(`connect peer exited ${code}: ${err}`);
    return JSON.parse(out) as ConnectSample[];
  }

  /** Stops listeners and deletes the namespaces. */
  async destroy(): Promise<void> {
    for (const c of this.children) {
      if (c.exitCode === null) {
        const gone = new Promise((r) => c.once('exit', r));
        c.kill('SIGKILL');
        await gone;
      }
    }
    this.children.clear();
    this.destroySync();
  }

  private destroySync(): void {
    for (const ns of [this.node, this.backend, this.client]) {
      if (!live.has(ns)) continue;
      try {
        execFileSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
      } catch {
        // Already gone.
      }
      live.delete(ns);
    }
  }
}
