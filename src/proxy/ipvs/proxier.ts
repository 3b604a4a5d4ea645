/**
 * IpvsProxier: programs virtual servers with `ipvsadm -R`, the kube-ipvs0
 * addresses with `ip -batch`, the ipsets with `ipset restore` and the nat
 * glue with iptables-restore. It refuses to start, with an explicit message,
 * when the kernel has no IPVS (this machine kind: CONFIG_IP_VS is not set),
 * rather than pretending to work.
 */
import type { Executor } from '../exec.js';
import { detectBackend, toolsFor, type IptablesBackend, type IptablesTools } from '../iptables/backend.js';
import type { Proxier, SyncInput, SyncResult } from '../proxier.js';
import {
  IPSETS,
  IpvsRenderCache,
  IpvsState,
  ipvsIptablesGlue,
  parseIpvsadmSave,
  renderIpvs,
  type IpvsConfig,
} from './rules.js';
import { DUMMY_INTERFACE } from './virtual_servers.js';

/** The kernel cannot do IPVS: ip_vs is neither built in nor loadable. */
export class IpvsUnavailableError extends Error {
  constructor(readonly detail: string) {
    super(
      `IPVS is not available in this kernel (ip_vs missing: CONFIG_IP_VS not set or module not loadable): ${detail}`,
    );
    this.name = 'IpvsUnavailableError';
  }
}

/** Whether the kernel (in the executor's namespace) answers IPVS requests; throws IpvsUnavailableError when not. */
export async function checkIpvs(exec: Executor): Promise<void> {
  const r = await exec.run(['ipvsadm', '-Ln']);
  if (r.code !== 0) throw new IpvsUnavailableError(r.stderr.trim().split('\n')[0] ?? `ipvsadm exited ${r.code}`);
}

/** The IPVS proxy mode. */
export class IpvsProxier implements Proxier {
  readonly mode = 'ipvs' as const;
  private state = new IpvsState();
  /** Each port's desired servers, reused while its inputs are unchanged. */
  private readonly renderCache = new IpvsRenderCache();
  private nodeIPs: string[] = [];

  private constructor(
    private readonly exec: Executor,
    private readonly cfg: IpvsConfig,
    private readonly tools: IptablesTools,
  ) {}

  /** Checks the kernel, then builds the proxier (the iptables glue uses the detected backend). */
  static async create(
    exec: Executor,
    cfg: IpvsConfig & { iptablesBackend: IptablesBackend | 'auto' },
  ): Promise<IpvsProxier> {
    await checkIpvs(exec);
    const backend = cfg.iptablesBackend === 'auto' ? (await detectBackend(exec)).backend : cfg.iptablesBackend;
    return new IpvsProxier(exec, cfg, toolsFor(backend));
  }

  describe(): string {
    return `ipvs (scheduler ${this.cfg.scheduler}, iptables glue on the ${this.tools.backend} backend)`;
  }

  async sync(input: SyncInput): Promise<SyncResult> {
    if (input.full) {
      const link = await this.exec.run(['ip', 'link', 'add', DUMMY_INTERFACE, 'type', 'dummy']);
      if (link.code !== 0 && !link.stderr.includes('exists'))
        throw new Error(`creating ${DUMMY_INTERFACE}: ${link.stderr.trim()}`);
      const ips = await this.localAddresses();
      // The same addresses keep the same array, so the render cache's entries stay valid.
      if (ips.length !== this.nodeIPs.length || ips.some((a, i) => a !== this.nodeIPs[i])) this.nodeIPs = ips;
      this.state.servers = parseIpvsadmSave(await this.exec.check(['ipvsadm', '-S', '-n']));
    }
    const t0 = performance.now();
    const r = renderIpvs(input, this.cfg, this.nodeIPs, this.state, this.renderCache);
    const renderMs = performance.now() - t0;
    if (r.ipset !== '') await this.exec.check(['ipset', 'restore'], r.ipset);
    if (r.addrs !== '') await this.exec.check(['ip', '-force', '-batch', '-'], r.addrs);
    if (r.ipvsadmBytes.length > 0) await this.exec.check(['ipvsadm', '-R'], r.ipvsadmBytes);
    let bytes = r.ipset.length + r.addrs.length + r.ipvsadmBytes.length;
    if (input.full) {
      const glue = ipvsIptablesGlue(this.cfg);
      await this.exec.check([this.tools.restore, '-w', '--noflush'], glue);
      bytes += glue.length;
      for (const [from, to] of [
        ['PREROUTING', 'KUBE-SERVICES'],
        ['OUTPUT', 'KUBE-SERVICES'],
        ['POSTROUTING', 'KUBE-POSTROUTING'],
      ] as const) {
        const args = ['-t', 'nat', from, '-m', 'comment', '--comment', 'kubernetes service portals', '-j', to];
        if ((await this.exec.run([this.tools.iptables, '-w', '-C', ...args])).code !== 0)
          await this.exec.check([this.tools.iptables, '-w', '-I', ...args]);
      }
    }
    this.state = r.state;
    let reals = 0;
    for (const vs of this.state.servers.values()) reals += vs.reals.length;
    return {
      full: input.full,
      bytes,
      rules: { virtualServers: this.state.servers.size, realServers: reals },
      renderMs,
    };
  }

  /** The node's IPv4 addresses outside kube-ipvs0 and loopback: NodePorts are bound on each, as upstream does. */
  private async localAddresses(): Promise<string[]> {
    const out = await this.exec.check(['ip', '-4', '-o', 'addr', 'show']);
    const ips: string[] = [];
    for (const line of out.split('\n')) {
      const m = /^\d+:\s+(\S+)\s+inet\s+([\d.]+)\//.exec(line);
      if (m !== null && m[1] !== DUMMY_INTERFACE && m[1] !== 'lo') ips.push(m[2]!);
    }
    return ips;
  }

  /** Clears virtual servers, deletes kube-ipvs0, the ipsets and the glue chains. */
  async cleanup(): Promise<void> {
    await this.exec.run(['ipvsadm', '-C']);
    await this.exec.run(['ip', 'link', 'del', DUMMY_INTERFACE]);
    for (const [from, to] of [
      ['PREROUTING', 'KUBE-SERVICES'],
      ['OUTPUT', 'KUBE-SERVICES'],
      ['POSTROUTING', 'KUBE-POSTROUTING'],
    ] as const) {
      await this.exec.run([
        this.tools.iptables,
        '-w',
        '-t',
        'nat',
        '-D',
        from,
        '-m',
        'comment',
        '--comment',
        'kubernetes service portals',
        '-j',
        to,
      ]);
    }
    const chains = ['KUBE-SERVICES', 'KUBE-POSTROUTING', 'KUBE-NODE-PORT', 'KUBE-MARK-MASQ'];
    await this.exec.run(
      [this.tools.restore, '-w', '--noflush'],
      `*nat\n${chains.map((c) => `:${c} - [0:0]`).join('\n')}\n${chains.map((c) => `-X ${c}`).join('\n')}\nCOMMIT\n`,
    );
    for (const [name] of IPSETS) await this.exec.run(['ipset', 'destroy', name]);
    this.state = new IpvsState();
  }
}
