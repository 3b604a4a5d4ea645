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
  // All at once: releases into one bitmap ride on one compare-and-swap, and the two bitmaps are written side by side,
  // so a delete waits for one swap rather than one per address and port.
  const release = async (o: Obj): Promise<void> => {
    const { ips, ports: nodePorts } = serviceAllocations(o);
    await Promise.all([
      ...ips.map((ip) => cfg.serviceIPs.release(ip)),
      ...nodePorts.map((p) => cfg.nodePorts.release(p)),
    ]);
  };
  // The objects whose allocations this strategy made, so a failed create gives back only its own.
  const reserved = new WeakSet<Obj>();
  return genericStrategy(info, {
    alwaysHasSpec: true,
    alwaysHasStatus: true,
    /** Allocates the ClusterIP and NodePorts; a dry run shows them without keeping them. */
    async prepareForCreate(o, ctx) {
      const spec = (o.spec ?? (o.spec = {})) as Obj;
      const type = spec.type ?? 'ClusterIP';
      const taken: (() => Promise<void>)[] = [];
      try {
        if (type !== 'ExternalName' && spec.clusterIP !== 'None') {
          const want = (spec.clusterIP as string | undefined) ?? ((spec.clusterIPs as string[] | undefined) ?? [])[0];
          let ip: string;
          if (want !== undefined && want !== '') {
            await cfg.serviceIPs.allocate(want);
            ip = want;
          } else {
            ip = await cfg.serviceIPs.allocateNext();
          }
          taken.push(() => cfg.serviceIPs.release(ip));
          spec.clusterIP = ip;
          spec.clusterIPs = [ip];
        } else if (spec.clusterIP === 'None') {
          spec.clusterIPs = ['None'];
        }
        if (wantsNodePorts(o)) {
          for (const [i, p] of ports(o).entries()) {
            if (typeof p.nodePort === 'number' && p.nodePort !== 0)
              await cfg.nodePorts.allocate(p.nodePort, `spec.ports[${i}].nodePort`);
            else p.nodePort = await cfg.nodePorts.allocateNext();
            const port = p.nodePort as number;
            taken.push(() => cfg.nodePorts.release(port));
          }
        }
      } catch (err) {
        for (const undo of taken) await undo();
        throw err;
      }
      if (ctx.dryRun) for (const undo of taken) await undo();
      else reserved.add(o);
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
    abortCreate: async (o) => {
      if (reserved.delete(o)) await release(o);
    },
    afterDelete: release,
  });
}

/** The ClusterIPs and NodePorts a stored Service holds. */
export function serviceAllocations(svc: Obj): { ips: string[]; ports: number[] } {
  const spec = (svc.spec ?? {}) as Obj;
  const ips = ((spec.clusterIPs as string[] | undefined) ?? [spec.clusterIP as string]).filter(
    (ip) => typeof ip === 'string' && ip !== 'None' && ip !== '',
  );
  const ports = ((spec.ports as Obj[] | undefined) ?? [])
    .map((p) => p.nodePort)
    .filter((p): p is number => typeof p === 'number');
  return { ips, ports };
}
