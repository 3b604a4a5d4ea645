/**
 * ServiceChangeTracker, like upstream's pkg/proxy/servicechangetracker.go: it
 * keeps, per Service, the ports before the first unsynced change and after
 * the latest one, and forgets services whose changes cancel out. A sync takes
 * the changes and applies them to the ServicePortMap, so work is O(changes).
 */
import type { KubeObject } from '../client/index.js';
import { sameServicePort, servicePorts } from './service_info.js';
import type { ServicePortInfo, ServicePortMap } from './types.js';

/** One Service's ports before and after the unsynced changes. */
export interface ServiceChange {
  readonly key: string;
  readonly previous: ServicePortMap;
  readonly current: ServicePortMap;
}

/** What applying service changes did to the map. */
export interface ServiceUpdateResult {
  /** ServicePortNames added, removed or changed. */
  readonly changed: Set<string>;
  /** Cluster IPs of UDP ports that went away: their conntrack entries are stale. */
  readonly deletedUDPClusterIPs: Set<string>;
}

function samePorts(a: ServicePortMap, b: ServicePortMap): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const w = b.get(k);
    if (w === undefined || !sameServicePort(v, w)) return false;
  }
  return true;
}

/** Accumulates Service changes between syncs. */
export class ServiceChangeTracker {
  private readonly items = new Map<string, { previous: ServicePortMap; current: ServicePortMap }>();

  /** Records a change (add: previous undefined; delete: current undefined); true when changes are pending. */
  update(previous: KubeObject | undefined, current: KubeObject | undefined): boolean {
    const obj = current ?? previous;
    if (obj === undefined) return this.items.size > 0;
    const key = `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
    let change = this.items.get(key);
    if (change === undefined) {
      change = { previous: servicePorts(previous), current: new Map() };
      this.items.set(key, change);
    }
    change.current = servicePorts(current);
    if (samePorts(change.previous, change.current)) this.items.delete(key);
    return this.items.size > 0;
  }

  /** Services with unsynced changes. */
  pending(): number {
    return this.items.size;
  }

  /** Takes the pending changes, leaving none. */
  checkout(): ServiceChange[] {
    const out = [...this.items].map(([key, c]) => ({ key, previous: c.previous, current: c.current }));
    this.items.clear();
    return out;
  }
}

/** Applies changes to the map in place, like upstream's ServicePortMap.Update. */
export function applyServiceChanges(map: ServicePortMap, changes: readonly ServiceChange[]): ServiceUpdateResult {
  const changed = new Set<string>();
  const deletedUDPClusterIPs = new Set<string>();
  for (const c of changes) {
    for (const [name, old] of c.previous) {
      const now = c.current.get(name);
      if (now === undefined || !sameServicePort(old, now)) changed.add(name);
      if (old.protocol === 'UDP' && (now === undefined || now.clusterIP !== old.clusterIP))
        deletedUDPClusterIPs.add(old.clusterIP);
      map.delete(name);
    }
    for (const [name, info] of c.current) {
      if (!c.previous.has(name)) changed.add(name);
      map.set(name, keepNames(c.previous.get(name), info));
    }
  }
  return { changed, deletedUDPClusterIPs };
}

/** Keeps cached chain names across an update that does not rename the port. */
function keepNames(old: ServicePortInfo | undefined, info: ServicePortInfo): ServicePortInfo {
  if (old !== undefined && old.protocol === info.protocol) Object.assign(info.names, old.names);
  return info;
}
