/**
 * EndpointsChangeTracker, like upstream's endpointschangetracker.go over an
 * EndpointSliceCache: it keeps every slice by service, remembers each
 * changed service's endpoints as of the last sync, and on checkout hands over
 * only services whose endpoints really changed, with the
 * last-change-trigger-time of each change for the network programming
 * latency metric.
 */
import type { KubeObject } from '../client/index.js';
import { endpointsFromSlices, sameEndpoints, sliceServiceKey } from './endpoint_info.js';
import { LAST_CHANGE_TRIGGER_TIME, endpointString, type Endpoint, type EndpointsMap } from './types.js';

/** One Service's endpoints (per port) before and after the unsynced changes. */
export interface EndpointsChange {
  readonly key: string;
  readonly previous: EndpointsMap;
  readonly current: EndpointsMap;
}

/** The result of a checkout. */
export interface EndpointsCheckout {
  readonly changes: EndpointsChange[];
  /** Trigger times (ms since epoch) of the changes handed over, for network programming latency. */
  readonly triggerTimes: number[];
}

/** What applying endpoint changes did to the map. */
export interface EndpointsUpdateResult {
  /** ServicePortNames whose endpoints changed. */
  readonly changed: Set<string>;
  /** Ready endpoints that went away, per ServicePortName (their UDP conntrack entries are stale). */
  readonly deleted: { spn: string; endpoint: Endpoint }[];
  /** ServicePortNames that had no ready endpoints and now have some. */
  readonly newlyActive: Set<string>;
}

/** Accumulates EndpointSlice changes between syncs. */
export class EndpointsChangeTracker {
  private readonly slices = new Map<string, Map<string, KubeObject>>();
  private readonly pendingPrev = new Map<string, EndpointsMap>();
  private readonly triggers = new Map<string, number[]>();

  /** @param nodeName endpoints on this node are local (for traffic policies). */
  constructor(private readonly nodeName: string) {}

  /** Records a slice added or updated (removed false) or deleted (removed true); true when changes are pending. */
  sliceUpdate(slice: KubeObject, removed: boolean): boolean {
    const key = sliceServiceKey(slice);
    if (key === undefined) return this.pendingPrev.size > 0;
    let cache = this.slices.get(key);
    if (!this.pendingPrev.has(key))
      this.pendingPrev.set(key, endpointsFromSlices(cache?.values() ?? [], this.nodeName));
    const name = slice.metadata?.name ?? '';
    if (removed) {
      cache?.delete(name);
      if (cache?.size === 0) this.slices.delete(key);
    } else {
      if (cache === undefined) this.slices.set(key, (cache = new Map()));
      cache.set(name, slice);
      const t = Date.parse(slice.metadata?.annotations?.[LAST_CHANGE_TRIGGER_TIME] ?? '');
      if (Number.isFinite(t)) {
        const list = this.triggers.get(key) ?? [];
        list.push(t);
        this.triggers.set(key, list);
      }
    }
    return true;
  }

  /** Services with unsynced changes (some may turn out to be no-ops). */
  pending(): number {
    return this.pendingPrev.size;
  }

  /** Takes the pending changes; services whose endpoints ended as they began are dropped with their trigger times. */
  checkout(): EndpointsCheckout {
    const changes: EndpointsChange[] = [];
    const triggerTimes: number[] = [];
    for (const [key, previous] of this.pendingPrev) {
      const current = endpointsFromSlices(this.slices.get(key)?.values() ?? [], this.nodeName);
      if (sameMaps(previous, current)) continue;
      changes.push({ key, previous, current });
      triggerTimes.push(...(this.triggers.get(key) ?? []));
    }
    this.pendingPrev.clear();
    this.triggers.clear();
    return { changes, triggerTimes };
  }
}

function sameMaps(a: EndpointsMap, b: EndpointsMap): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (!sameEndpoints(v, b.get(k))) return false;
  return true;
}

/** Applies changes to the map in place, like upstream's EndpointsMap.Update. */
export function applyEndpointsChanges(map: EndpointsMap, changes: readonly EndpointsChange[]): EndpointsUpdateResult {
  const changed = new Set<string>();
  const deleted: { spn: string; endpoint: Endpoint }[] = [];
  const newlyActive = new Set<string>();
  for (const c of changes) {
    for (const [spn, old] of c.previous) {
      const now = c.current.get(spn);
      if (!sameEndpoints(old, now)) changed.add(spn);
      const still = new Set((now ?? []).filter((e) => e.ready).map(endpointString));
      for (const e of old) if (e.ready && !still.has(endpointString(e))) deleted.push({ spn, endpoint: e });
      map.delete(spn);
    }
    for (const [spn, eps] of c.current) {
      const old = c.previous.get(spn);
      if (old === undefined) changed.add(spn);
      if (eps.some((e) => e.ready) && !(old ?? []).some((e) => e.ready)) newlyActive.add(spn);
      map.set(spn, keepNames(old, eps));
    }
  }
  return { changed, deleted, newlyActive };
}

/** Carries cached chain names over to endpoints that stay. */
function keepNames(old: readonly Endpoint[] | undefined, eps: readonly Endpoint[]): readonly Endpoint[] {
  if (old === undefined) return eps;
  const byKey = new Map(old.map((e) => [endpointString(e), e]));
  for (const e of eps) {
    const o = byKey.get(endpointString(e));
    if (o !== undefined) Object.assign(e.names, o.names);
  }
  return eps;
}
