/**
 * IptablesProxier: renders kube-proxy's layout (rules.ts) and hands it to
 * `iptables-restore --noflush`, so chains not named in the input stay as they
 * are. Partial syncs name only the changed services' chains, like
 * upstream's minimized restores; a full sync (the first, after a failure)
 * also sweeps stale per-service chains left by earlier runs and ensures the
 * jumps from the built-in chains.
 */
import type { Executor } from '../exec.js';
import type { Proxier, SyncInput, SyncResult } from '../proxier.js';
import { JUMP_RULES, SERVICE_CHAIN_PREFIXES, type JumpRule } from './chains.js';
import {
  detectBackend,
  HINT_CHAIN,
  toolsFor,
  type BackendDetection,
  type IptablesBackend,
  type IptablesTools,
} from './backend.js';
import { IptablesRenderCache, renderIptables, type IptablesConfig } from './rules.js';

/** Our chains in an iptables-save dump of one table. */
function ownChains(save: string, table: 'nat' | 'filter', all: boolean): string[] {
  const out: string[] = [];
  let current = '';
  for (const line of save.split('\n')) {
    if (line.startsWith('*')) current = line.slice(1);
    else if (current === table && line.startsWith(':KUBE-')) {
      const name = line.slice(1, line.indexOf(' '));
      if (all || SERVICE_CHAIN_PREFIXES.some((p) => name.startsWith(p))) out.push(name);
    }
  }
  return out;
}

function jumpArgs(j: JumpRule): string[] {
  return [...j.extra, '-m', 'comment', '--comment', j.comment, '-j', j.to];
}

/** The iptables proxy mode. */
export class IptablesProxier implements Proxier {
  readonly mode = 'iptables' as const;
  private readonly tools: IptablesTools;
  /** Each service port's chains and rule count, as last written. */
  private chains = new Map<string, { chains: string[]; rules: number }>();
  private serviceRules = 0;
  /** Each port's rendered lines, reused while its inputs are unchanged. */
  private readonly renderCache = new IptablesRenderCache();

  constructor(
    private readonly exec: Executor,
    private readonly cfg: IptablesConfig,
    readonly detection: BackendDetection,
  ) {
    this.tools = toolsFor(detection.backend);
  }

  /** Builds a proxier, detecting the backend when `backend` is "auto". */
  static async create(
    exec: Executor,
    cfg: IptablesConfig,
    backend: IptablesBackend | 'auto' = 'auto',
  ): Promise<IptablesProxier> {
    const detection = backend === 'auto' ? await detectBackend(exec) : { backend, reason: 'chosen by flag' };
    return new IptablesProxier(exec, cfg, detection);
  }

  describe(): string {
    return `iptables (${this.detection.backend} backend: ${this.detection.reason})`;
  }

  async sync(input: SyncInput): Promise<SyncResult> {
    const previous = new Map<string, string[]>();
    for (const [k, v] of this.chains) previous.set(k, v.chains);
    let orphans = new Set<string>();
    if (input.full) {
      // After a restart the kernel may hold chains of an earlier run that this process never wrote.
      const known = new Set<string>();
      for (const v of this.chains.values()) for (const c of v.chains) known.add(c);
      orphans = new Set(
        ownChains(await this.exec.check([this.tools.save, '-t', 'nat']), 'nat', false).filter((c) => !known.has(c)),
      );
    }
    const t0 = performance.now();
    const r = renderIptables(input, this.cfg, previous, orphans, this.renderCache);
    const renderMs = performance.now() - t0;
    try {
      await this.exec.check([this.tools.restore, '-w', '--noflush', '--counters'], r.parts);
    } finally {
      // iptables-restore has read the bytes (or failed): later renderings may write into its buffers.
      this.renderCache.release(r);
    }
    if (input.full) await this.ensureJumps();
    if (input.full) {
      this.chains = r.written;
      this.serviceRules = 0;
      for (const w of r.written.values()) this.serviceRules += w.rules;
    } else {
      for (const name of input.changed) {
        this.serviceRules -= this.chains.get(name)?.rules ?? 0;
        const w = r.written.get(name);
        if (w === undefined) this.chains.delete(name);
        else {
          this.chains.set(name, w);
          this.serviceRules += w.rules;
        }
      }
    }
    const rules = { nat: r.topRules.nat + this.serviceRules, filter: r.topRules.filter };
    return { full: input.full, bytes: r.bytes, rules, renderMs };
  }

  /** Inserts the jumps from built-in chains unless present, and the hint chain wrappers look for. */
  private async ensureJumps(): Promise<void> {
    for (const j of JUMP_RULES) {
      const args = jumpArgs(j);
      const present = await this.exec.run([this.tools.iptables, '-w', '-t', j.table, '-C', j.from, ...args]);
      if (present.code !== 0) await this.exec.check([this.tools.iptables, '-w', '-t', j.table, '-I', j.from, ...args]);
    }
    const hint = await this.exec.run([this.tools.iptables, '-w', '-t', 'mangle', '-N', HINT_CHAIN]);
    if (hint.code !== 0 && !hint.stderr.includes('exists'))
      throw new Error(`creating ${HINT_CHAIN}: ${hint.stderr.trim()}`);
  }

  /** Removes the jumps, then flushes and deletes every KUBE-* chain in nat and filter, and the hint chain. */
  async cleanup(): Promise<void> {
    for (const j of JUMP_RULES) {
      // A jump may have been inserted more than once by earlier runs.
      for (let i = 0; i < 10; i++) {
        const r = await this.exec.run([this.tools.iptables, '-w', '-t', j.table, '-D', j.from, ...jumpArgs(j)]);
        if (r.code !== 0) break;
      }
    }
    const save = await this.exec.check([this.tools.save]);
    const lines: string[] = [];
    for (const table of ['filter', 'nat'] as const) {
      const chains = ownChains(save, table, true);
      if (chains.length === 0) continue;
      lines.push(`*${table}`, ...chains.map((c) => `:${c} - [0:0]`), ...chains.map((c) => `-X ${c}`), 'COMMIT');
    }
    if (lines.length > 0) await this.exec.check([this.tools.restore, '-w', '--noflush'], `${lines.join('\n')}\n`);
    await this.exec.run([this.tools.iptables, '-w', '-t', 'mangle', '-X', HINT_CHAIN]);
    this.chains.clear();
    this.serviceRules = 0;
  }
}
