/**
 * Feeds the graph from the server's PersistentVolume informer, as upstream's graph_populator does with
 * AddPV/DeletePV: a volume bound to a claim gets the edge pv -> pvc (and its CSI and other secret
 * references secret -> pv), so a node that runs a pod using the claim may read the claim's volume.
 */
import { meta, type Obj } from '../../object.js';
import type { Graph, PVRefs } from './graph.js';
import type { GraphPopulator } from './graph_populator.js';

/** A PV's claim and the Secrets its source names (upstream's VisitPVSecretNames, for the sources kscale sees). */
export function pvRefs(pv: Obj): PVRefs {
  const spec = (pv.spec ?? {}) as Record<string, Record<string, unknown> | undefined>;
  const ref = spec.claimRef as { namespace?: string; name?: string } | undefined;
  const secrets: { namespace: string; name: string }[] = [];
  const csi = spec.csi;
  for (const k of [
    'controllerPublishSecretRef',
    'nodeStageSecretRef',
    'nodePublishSecretRef',
    'controllerExpandSecretRef',
    'nodeExpandSecretRef',
  ]) {
    const s = csi?.[k] as { namespace?: string; name?: string } | undefined;
    if (s?.name) secrets.push({ namespace: s.namespace ?? '', name: s.name });
  }
  return {
    name: String(meta(pv).name),
    ...(ref?.name ? { claim: { namespace: ref.namespace ?? '', name: ref.name } } : {}),
    secrets,
  };
}

/** A populator that keeps `graph`'s PersistentVolume vertices in step with the volumes it is handed. */
export function pvGraphPopulator(graph: Graph): GraphPopulator {
  const known = new Set<string>();
  const put = (pv: Obj): void => {
    const refs = pvRefs(pv);
    known.add(refs.name);
    graph.setPV(refs);
  };
  return {
    replace(objs) {
      const listed = new Set(objs.map((o) => String(meta(o).name)));
      for (const name of [...known]) {
        if (listed.has(name)) continue;
        known.delete(name);
        graph.deletePV(name);
      }
      for (const o of objs) put(o);
    },
    put,
    delete(pv) {
      const name = String(meta(pv).name);
      known.delete(name);
      graph.deletePV(name);
    },
  };
}
