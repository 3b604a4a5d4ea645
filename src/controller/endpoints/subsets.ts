/**
 * Building an Endpoints object's subsets, like the endpoints controller's
 * addEndpointSubset, endpoints.RepackSubsets and truncateEndpoints: each pod
 * address is ready or not ready per port; addresses sharing the same port set
 * are packed into one subset, sorted; past 1,000 addresses the object is
 * truncated, ready addresses kept first, each subset in proportion to its size.
 */
import { endpointHostname, findPort, isPodReady, podIPv4, shouldPodBeInEndpoints } from '../endpointutil/index.js';
import { MAX_ENDPOINTS_CAPACITY } from './config.js';
import type { EndpointAddress, EndpointSubset, Pod, Service } from '../../api/index.js';

type SubsetPort = NonNullable<EndpointSubset['ports']>[number];

interface AddressEntry {
  address: EndpointAddress;
  ready: boolean;
  ports: Map<string, SubsetPort>;
}

const portKey = (p: SubsetPort): string => JSON.stringify([p.name ?? '', p.port, p.protocol, p.appProtocol ?? '']);

/** The packed, sorted subsets of a Service's pods (before truncation). */
export function computeSubsets(svc: Service, pods: readonly Pod[]): EndpointSubset[] {
  const tolerateUnready = svc.spec?.publishNotReadyAddresses === true;
  const headlessNoPorts = (svc.spec?.ports ?? []).length === 0 && svc.spec?.clusterIP === 'None';
  const entries = new Map<string, AddressEntry>();
  for (const pod of pods) {
    // Terminating pods leave Endpoints at once, unless the Service publishes not-ready addresses.
    if (!shouldPodBeInEndpoints(pod, tolerateUnready)) continue;
    const ip = podIPv4(pod)!;
    const address: EndpointAddress = {
      ip,
      targetRef: {
        kind: 'Pod',
        namespace: pod.metadata?.namespace ?? '',
        name: pod.metadata?.name ?? '',
        uid: pod.metadata?.uid ?? '',
      },
    };
    const nodeName = pod.spec?.nodeName;
    if (nodeName !== undefined && nodeName !== '') address.nodeName = nodeName;
    const hostname = endpointHostname(pod, svc.metadata?.name ?? '');
    if (hostname !== undefined) address.hostname = hostname;
    const ready = tolerateUnready || isPodReady(pod);
    const ports = new Map<string, SubsetPort>();
    for (const sp of svc.spec?.ports ?? []) {
      const port = findPort(pod, sp);
      if (port === undefined) continue;
      const p: SubsetPort = { name: sp.name ?? '', port, protocol: sp.protocol ?? 'TCP' };
      if (sp.appProtocol !== undefined) p.appProtocol = sp.appProtocol;
      ports.set(portKey(p), p);
    }
    if (ports.size === 0 && !headlessNoPorts) continue;
    entries.set(`${ip}/${ready}`, { address, ready, ports });
  }
  return repack([...entries.values()]);
}

function repack(entries: AddressEntry[]): EndpointSubset[] {
  const byPorts = new Map<string, { ports: SubsetPort[]; ready: EndpointAddress[]; notReady: EndpointAddress[] }>();
  for (const e of entries) {
    const ports = [...e.ports.values()].sort((a, b) => portKey(a).localeCompare(portKey(b)));
    const key = JSON.stringify(ports.map(portKey));
    let group = byPorts.get(key);
    if (group === undefined) byPorts.set(key, (group = { ports, ready: [], notReady: [] }));
    (e.ready ? group.ready : group.notReady).push(e.address);
  }
  const byIP = (a: EndpointAddress, b: EndpointAddress): number =>
    compareIP(a.ip, b.ip) || (a.targetRef?.name ?? '').localeCompare(b.targetRef?.name ?? '');
  const subsets = [...byPorts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, g]) => {
      const s: EndpointSubset = {};
      if (g.ready.length > 0) s.addresses = g.ready.sort(byIP);
      if (g.notReady.length > 0) s.notReadyAddresses = g.notReady.sort(byIP);
      if (g.ports.length > 0) s.ports = g.ports;
      return s;
    });
  return subsets;
}

function compareIP(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 4; i++) if (pa[i] !== pb[i]) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

/** Total addresses (ready and not) in `subsets`. */
export function addressCount(subsets: readonly EndpointSubset[]): number {
  return subsets.reduce((n, s) => n + (s.addresses?.length ?? 0) + (s.notReadyAddresses?.length ?? 0), 0);
}

/**
 * truncateEndpoints: cuts `subsets` to `max` addresses in place; returns
 * true when it cut. Ready addresses stay first: when they alone exceed the
 * cap, every not-ready address goes and ready ones are cut; otherwise only
 * not-ready ones are. Each subset keeps a share proportional to its size.
 */
export function truncateSubsets(subsets: EndpointSubset[], max = MAX_ENDPOINTS_CAPACITY): boolean {
  let totalReady = 0;
  let totalNotReady = 0;
  for (const s of subsets) {
    totalReady += s.addresses?.length ?? 0;
    totalNotReady += s.notReadyAddresses?.length ?? 0;
  }
  if (totalReady + totalNotReady <= max) return false;
  const truncateReady = totalReady > max;
  const budget = truncateReady ? max : max - totalReady;
  const total = truncateReady ? totalReady : totalNotReady;
  let left = budget;
  for (const s of subsets) {
    const n = (truncateReady ? s.addresses?.length : s.notReadyAddresses?.length) ?? 0;
    const take = Math.min(left, Math.ceil((n / total) * budget));
    left -= take;
    if (truncateReady) {
      s.addresses = (s.addresses ?? []).slice(0, take);
      delete s.notReadyAddresses;
    } else s.notReadyAddresses = (s.notReadyAddresses ?? []).slice(0, take);
    if (s.addresses?.length === 0) delete s.addresses;
    if (s.notReadyAddresses?.length === 0) delete s.notReadyAddresses;
  }
  return true;
}
