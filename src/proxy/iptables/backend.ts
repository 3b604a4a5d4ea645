/**
 * Which iptables backend to program, legacy (x_tables) or nft, detected as
 * upstream's iptables-wrapper does: the backend where a kubelet or
 * kube-proxy hint chain exists wins, else the one holding more rules, else
 * nft (Debian's default). The choice is reported, never silent.
 */
import type { Executor } from '../exec.js';

/** An iptables backend. */
export type IptablesBackend = 'legacy' | 'nft';

/** The commands of one backend. */
export interface IptablesTools {
  readonly backend: IptablesBackend;
  readonly iptables: string;
  readonly restore: string;
  readonly save: string;
}

/** The tool names for a backend. */
export function toolsFor(backend: IptablesBackend): IptablesTools {
  return {
    backend,
    iptables: `iptables-${backend}`,
    restore: `iptables-${backend}-restore`,
    save: `iptables-${backend}-save`,
  };
}

/** The chain upstream kube-proxy creates so wrappers can tell which backend is in use. */
export const HINT_CHAIN = 'KUBE-IPTABLES-HINT';

/** A detection and why it went that way. */
export interface BackendDetection {
  readonly backend: IptablesBackend;
  readonly reason: string;
}

/** Looks at both backends' rules and picks one. */
export async function detectBackend(exec: Executor): Promise<BackendDetection> {
  const dump = async (b: IptablesBackend): Promise<string> => {
    const r = await exec.run([toolsFor(b).save]);
    if (r.code !== 0) throw new Error(`${toolsFor(b).save} failed (${r.code}): ${r.stderr.trim()}`);
    return r.stdout;
  };
  const [legacy, nft] = await Promise.all([dump('legacy'), dump('nft')]);
  const hint = (s: string): boolean => s.includes(`:${HINT_CHAIN} `) || s.includes(':KUBE-KUBELET-CANARY ');
  if (hint(legacy) && !hint(nft)) return { backend: 'legacy', reason: 'hint chain found in iptables-legacy' };
  if (hint(nft) && !hint(legacy)) return { backend: 'nft', reason: 'hint chain found in iptables-nft' };
  const rules = (s: string): number => s.split('\n').filter((l) => l.startsWith('-A ')).length;
  const nl = rules(legacy);
  const nn = rules(nft);
  if (nl > nn) return { backend: 'legacy', reason: `more rules in iptables-legacy (${nl} vs ${nn})` };
  return {
    backend: 'nft',
    reason:
      nl === nn
        ? `no rules in either backend (${nn}); nft is the default`
        : `more rules in iptables-nft (${nn} vs ${nl})`,
  };
}
