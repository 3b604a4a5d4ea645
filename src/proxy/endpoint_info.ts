/**
 * EndpointSlices → endpoints per service port, like upstream's
 * EndpointSliceCache: every slice of a service is merged, an endpoint listed
 * by two slices counts once, and a condition left unset reads as upstream
 * reads it (ready: true, serving: ready, terminating: false).
 */
import type { EndpointPort, EndpointSlice, KubeObject } from '../api/index.js';
import { SERVICE_NAME_LABEL, servicePortName, type Endpoint, type EndpointsMap } from './types.js';

/** The "ns/name" of the service a slice belongs to, or undefined when it is unlabelled. */
export function sliceServiceKey(slice: KubeObject): string | undefined {
  const svc = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
  if (svc === undefined || svc === '') return undefined;
  return `${slice.metadata?.namespace ?? ''}/${svc}`;
}

/** Merges all slices of one service into endpoints per service port; `nodeName` marks local endpoints. */
export function endpointsFromSlices(slices: Iterable<KubeObject>, nodeName: string): EndpointsMap {
  const byPort = new Map<string, Map<string, Endpoint>>();
  for (const slice of slices) {
    if (slice.addressType !== undefined && slice.addressType !== 'IPv4') continue;
    const svc = slice.metadata?.labels?.[SERVICE_NAME_LABEL] ?? '';
    const ns = slice.metadata?.namespace ?? '';
    for (const p of (slice.ports as EndpointPort[] | null | undefined) ?? []) {
      if (typeof p.port !== 'number') continue;
      const spn = servicePortName(ns, svc, p.name ?? '');
      let eps = byPort.get(spn);
      if (eps === undefined) byPort.set(spn, (eps = new Map()));
      for (const e of (slice.endpoints as EndpointSlice['endpoints'] | undefined) ?? []) {
        const ip = e.addresses?.[0];
        if (ip === undefined) continue;
        const key = `${ip}:${p.port}`;
        const ready = e.conditions?.ready ?? true;
        const prev = eps.get(key);
        // Two slices may list one endpoint during a move; keep the ready copy.
        if (prev !== undefined && (prev.ready || !ready)) continue;
        const hints = e.hints?.forZones;
        eps.set(key, {
          ip,
          port: p.port,
          ready,
          serving: e.conditions?.serving ?? ready,
          terminating: e.conditions?.terminating ?? false,
          isLocal: nodeName !== '' && e.nodeName === nodeName,
          zone: e.zone ?? '',
          zoneHints: hints === undefined ? undefined : hints.map((h) => h.name ?? ''),
          names: {},
        });
      }
    }
  }
  const out: EndpointsMap = new Map();
  // Sorted, so renderings (and chain order) are stable whatever order slices arrive in.
  for (const [spn, eps] of byPort) out.set(spn, [...eps.values()].sort(compareEndpoints));
  return out;
}

function compareEndpoints(a: Endpoint, b: Endpoint): number {
  return a.ip === b.ip ? a.port - b.port : a.ip < b.ip ? -1 : 1;
}

/** Whether two endpoint lists render the same rules. */
export function sameEndpoints(a: readonly Endpoint[] | undefined, b: readonly Endpoint[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (
      x.ip !== y.ip ||
      x.port !== y.port ||
      x.ready !== y.ready ||
      x.serving !== y.serving ||
      x.terminating !== y.terminating ||
      x.isLocal !== y.isLocal
    )
      return false;
    if (
      (x.zoneHints ?? []).join(',') !== (y.zoneHints ?? []).join(',') ||
      (x.zoneHints === undefined) !== (y.zoneHints === undefined)
    )
      return false;
  }
  return true;
}
