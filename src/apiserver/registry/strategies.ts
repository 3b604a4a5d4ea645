/**
 * The strategy of every served resource: upstream's defaulting and validation
 * from src/api, plus each resource's own rules (pod graceful deletion,
 * namespace finalization, job selectors, service IP and port allocation,
 * event TTL), like pkg/registry/<group>/<resource>/strategy.go.
 */
import { applyDefaults, generateJobSelector, prepareNamespaceForCreate } from '../../api/defaults.js';
import type { ResourceInfo } from '../../api/registry.js';
import { validateCreate, validateStatusUpdate, validateUpdate } from '../../api/validation/index.js';
import type { KubeObject } from '../../api/types.js';
import type { Obj } from '../object.js';
import type { IPAllocator, PortAllocator } from './ipallocator.js';
import type { Strategy } from './strategy.js';

/** Kinds whose spec (and status) are Go structs upstream, so they always serialize, at least as {}. */
const ALWAYS_SPEC = new Set(['namespaces', 'nodes', 'pods', 'services', 'deployments', 'replicasets', 'jobs', 'poddisruptionbudgets', 'leases']);
const ALWAYS_STATUS = new Set(['namespaces', 'nodes', 'pods', 'services', 'deployments', 'replicasets', 'jobs', 'poddisruptionbudgets']);

const TRACKS_GENERATION = new Set(['deployments', 'replicasets', 'jobs', 'poddisruptionbudgets']);
const CREATE_ON_UPDATE = new Set(['leases', 'endpoints', 'events']);

/** What strategies need from the server's configuration. */
export interface StrategyConfig {
  eventTTLSeconds: number;
  serviceIPs: IPAllocator;
  nodePorts: PortAllocator;
}

/** Builds the strategy for one resource. */
export function strategyFor(info: ResourceInfo, cfg: StrategyConfig): Strategy {
  const r = info.resource;
  const k = (o: Obj): KubeObject => o;
  const s: Strategy = {
    hasStatusSubresource: info.subresources.some((x) => x.name === 'status'),
    tracksGeneration: TRACKS_GENERATION.has(r),
    allowCreateOnUpdate: CREATE_ON_UPDATE.has(r),
    applyDefaults: (o) => {
      if (ALWAYS_SPEC.has(r) && (o.spec === undefined || o.spec === null)) o.spec = {};
      if (ALWAYS_STATUS.has(r) && (o.status === undefined || o.status === null)) o.status = {};
      applyDefaults(info, k(o));
    },
    validate: (o) => validateCreate(info, k(o)),
    validateUpdate: (o, old) => validateUpdate(info, k(o), k(old)),
    validateStatusUpdate: (o, old) => validateStatusUpdate(info, k(o), k(old)),
  };
  switch (r) {
    case 'pods':
      return { ...s, ...podStrategy };
    case 'namespaces':
      return {
        ...s,
        prepareForCreate: (o) => prepareNamespaceForCreate(k(o)),
        pendingFinalizers: (o) => ((o.spec as Obj | undefined)?.finalizers as string[] | undefined) ?? [],
        markDeleting: (o) => void (o.status = { ...(o.status as Obj | undefined), phase: 'Terminating' }),
        prepareForUpdate: (o, old) => {
          // spec.finalizers change only through /finalize; status.phase only through the lifecycle.
          o.spec = { ...(o.spec as Obj | undefined), finalizers: (old.spec as Obj | undefined)?.finalizers ?? [] };
          if (old.status !== undefined) o.status = old.status;
        },
      };
    case 'jobs':
      return { ...s, prepareForCreate: (o) => generateJobSelector(k(o)) };
    case 'events':
      return { ...s, ttlSeconds: () => cfg.eventTTLSeconds };
    case 'services':
      return { ...s, ...serviceStrategy(cfg) };
    default:
      return s;
  }
}

const podStrategy: Partial<Strategy> = {
  prepareForCreate(o) {
    const spec = (o.spec ?? {}) as Obj;
    o.status = { phase: 'Pending', qosClass: qosClass(spec) };
  },
  prepareForUpdate(o, old) {
    // Node assignment happens only through pods/binding.
    const oldNode = (old.spec as Obj | undefined)?.nodeName;
    if (oldNode !== undefined) (o.spec as Obj).nodeName = oldNode;
  },
  /** Upstream's CheckGracefulDelete: unscheduled and terminal pods go at once; others wait their grace period. */
  gracePeriod(o, requested) {
    const spec = (o.spec ?? {}) as Obj;
    const phase = (o.status as Obj | undefined)?.phase;
    if (spec.nodeName === undefined || spec.nodeName === '' || phase === 'Succeeded' || phase === 'Failed') return 0;
    if (requested !== undefined) return requested;
    return (spec.terminationGracePeriodSeconds as number | undefined) ?? 30;
  },
};

/** The pod's QoS class from its containers' requests and limits, like upstream's qos.GetPodQOS (simplified to cpu and memory). */
function qosClass(spec: Obj): string {
  const containers = [...((spec.containers as Obj[] | undefined) ?? []), ...((spec.initContainers as Obj[] | undefined) ?? [])];
  let anySet = false;
  let guaranteed = true;
  for (const c of containers) {
    const res = (c.resources ?? {}) as Obj;
    const req = (res.requests ?? {}) as Record<string, string>;
    const lim = (res.limits ?? {}) as Record<string, string>;
    for (const r of ['cpu', 'memory']) {
      if (req[r] !== undefined || lim[r] !== undefined) anySet = true;
      if (lim[r] === undefined || (req[r] !== undefined && req[r] !== lim[r])) guaranteed = false;
    }
  }
  if (!anySet) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function serviceStrategy(cfg: StrategyConfig): Partial<Strategy> {
  const ports = (o: Obj): Obj[] => ((o.spec as Obj | undefined)?.ports as Obj[] | undefined) ?? [];
  const wantsNodePorts = (o: Obj): boolean => {
    const t = (o.spec as Obj | undefined)?.type;
    return t === 'NodePort' || t === 'LoadBalancer';
  };
  const release = (o: Obj): void => {
    const spec = (o.spec ?? {}) as Obj;
    for (const ip of (spec.clusterIPs as string[] | undefined) ?? []) if (ip !== 'None') cfg.serviceIPs.release(ip);
    for (const p of ports(o)) if (typeof p.nodePort === 'number') cfg.nodePorts.release(p.nodePort);
  };
  return {
    /** Allocates the ClusterIP and NodePorts; a dry run shows them without keeping them. */
    prepareForCreate(o, ctx) {
      const spec = (o.spec ?? (o.spec = {})) as Obj;
      const type = spec.type ?? 'ClusterIP';
      const taken: (() => void)[] = [];
      try {
        if (type !== 'ExternalName' && spec.clusterIP !== 'None') {
          const want = (spec.clusterIP as string | undefined) ?? ((spec.clusterIPs as string[] | undefined) ?? [])[0];
          let ip: string;
          if (want !== undefined && want !== '') {
            cfg.serviceIPs.allocate(want);
            ip = want;
          } else {
            ip = cfg.serviceIPs.allocateNext();
          }
          taken.push(() => cfg.serviceIPs.release(ip));
          spec.clusterIP = ip;
          spec.clusterIPs = [ip];
        } else if (spec.clusterIP === 'None') {
          spec.clusterIPs = ['None'];
        }
        if (wantsNodePorts(o)) {
          ports(o).forEach((p, i) => {
            if (typeof p.nodePort === 'number' && p.nodePort !== 0) cfg.nodePorts.allocate(p.nodePort, `spec.ports[${i}].nodePort`);
            else p.nodePort = cfg.nodePorts.allocateNext();
            const port = p.nodePort as number;
            taken.push(() => cfg.nodePorts.release(port));
          });
        }
      } catch (err) {
        for (const undo of taken) undo();
        throw err;
      }
      if (ctx.dryRun) for (const undo of taken) undo();
    },
    /** Keeps allocated values an update leaves out, like upstream's patchAllocatedValues. */
    prepareForUpdate(o, old) {
      const spec = (o.spec ?? (o.spec = {})) as Obj;
      const oldSpec = (old.spec ?? {}) as Obj;
      if ((spec.clusterIP === undefined || spec.clusterIP === '') && oldSpec.clusterIP !== undefined) spec.clusterIP = oldSpec.clusterIP;
      if ((spec.clusterIPs === undefined || (spec.clusterIPs as unknown[]).length === 0) && oldSpec.clusterIPs !== undefined) spec.clusterIPs = oldSpec.clusterIPs;
      if (wantsNodePorts(o)) {
        const oldPorts = ports(old);
        for (const p of ports(o)) {
          if (typeof p.nodePort === 'number' && p.nodePort !== 0) continue;
          const prev = oldPorts.find((q) => q.port === p.port && (q.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
          if (typeof prev?.nodePort === 'number') p.nodePort = prev.nodePort;
        }
      }
    },
    abortCreate: release,
    afterDelete: async (o) => release(o),
  };
}

/** Restores allocator state from a stored Service at start-up. */
export function restoreServiceAllocations(svc: Obj, cfg: StrategyConfig): void {
  const spec = (svc.spec ?? {}) as Obj;
  for (const ip of (spec.clusterIPs as string[] | undefined) ?? [spec.clusterIP as string]) if (typeof ip === 'string' && ip !== 'None') cfg.serviceIPs.restore(ip);
  for (const p of (spec.ports as Obj[] | undefined) ?? []) if (typeof p.nodePort === 'number') cfg.nodePorts.restore(p.nodePort);
}
