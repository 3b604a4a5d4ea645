/**
 * The contract every proxy mode implements, like upstream's proxy.Provider
 * behind syncProxyRules: given the full service and endpoint state plus the
 * service ports that changed since the last successful sync, program the
 * kernel (all of it on a full sync, only the changes on a partial one).
 */
import type { EndpointsMap, NodeInfo, ServicePortMap } from './types.js';

/** The proxy modes, with upstream's --proxy-mode names. */
export type ProxyMode = 'iptables' | 'ipvs' | 'nftables';

/** What one sync is asked to do. */
export interface SyncInput {
  readonly services: ServicePortMap;
  readonly endpoints: EndpointsMap;
  readonly node: NodeInfo;
  /** ServicePortNames changed since the last successful sync. */
  readonly changed: ReadonlySet<string>;
  /** Rewrite everything (first sync, after a failure, or periodically). */
  readonly full: boolean;
}

/** What one sync did. */
export interface SyncResult {
  /** Whether a full rewrite was done (a mode may upgrade a partial request). */
  readonly full: boolean;
  /** Bytes handed to the kernel tools. */
  readonly bytes: number;
  /** Rules (or objects) the proxy owns after the sync, by table. */
  readonly rules: Readonly<Record<string, number>>;
  /** Milliseconds spent computing the rules (not applying them). */
  readonly renderMs: number;
}

/** One proxy mode. */
export interface Proxier {
  readonly mode: ProxyMode;
  /** A human description, e.g. "iptables (legacy backend)". */
  describe(): string;
  /** Programs the kernel for the given state; throws when the kernel refused the rules. */
  sync(input: SyncInput): Promise<SyncResult>;
  /** Removes everything this mode installs (--cleanup). */
  cleanup(): Promise<void>;
  /** Releases what the mode keeps between syncs (a long-lived tool process); the kernel's rules stay. */
  close?(): Promise<void>;
}
