/**
 * The service strategy, like upstream's pkg/registry/core/service: a create
 * allocates the ClusterIP and NodePorts (released again if the create fails,
 * and on delete), and an update keeps the allocated values it leaves out.
 */
import type { ResourceInfo } from '../../../api/index.js';
import type { Obj } from '../../object.js';
import { genericStrategy, type Strategy, type StrategyConfig } from '../strategy.js';

/** Builds the service strategy over the server's allocators. */
export function serviceStrategy(info: ResourceInfo, cfg: StrategyConfig): Strategy {
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
  return genericStrategy(info, {
    alwaysHasSpec: true,
    alwaysHasStatus: true,
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
            if (typeof p.nodePort === 'number' && p.nodePort !== 0)
              cfg.nodePorts.allocate(p.nodePort, `spec.ports[${i}].nodePort`);
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
      if ((spec.clusterIP === undefined || spec.clusterIP === '') && oldSpec.clusterIP !== undefined)
        spec.clusterIP = oldSpec.clusterIP;
      if (
        (spec.clusterIPs === undefined || (spec.clusterIPs as unknown[]).length === 0) &&
        oldSpec.clusterIPs !== undefined
      )
        spec.clusterIPs = oldSpec.clusterIPs;
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
  });
}

/** Restores allocator state from a stored Service at start-up. */
export function restoreServiceAllocations(svc: Obj, cfg: StrategyConfig): void {
  const spec = (svc.spec ?? {}) as Obj;
  for (const ip of (spec.clusterIPs as string[] | undefined) ?? [spec.clusterIP as string])
    if (typeof ip === 'string' && ip !== 'None') cfg.serviceIPs.restore(ip);
  for (const p of (spec.ports as Obj[] | undefined) ?? [])
    if (typeof p.nodePort === 'number') cfg.nodePorts.restore(p.nodePort);
}
