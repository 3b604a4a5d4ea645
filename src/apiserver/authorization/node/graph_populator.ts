/**
 * Feeds the graph from the server's pod informer, as upstream's graph_populator: a pod enters once it
 * is bound to a node, and a later write of it changes the graph only when its uid or node changed (what a
 * bound pod references is immutable), so the stream of status writes costs a map lookup each.
 */
import { meta, type Obj } from '../../object.js';
import type { Graph } from './graph.js';
import { podRefs } from './pod_refs.js';

const podKey = (m: Obj): string => `${String(m.namespace)}/${String(m.name)}`;

/** The handler a StoreInformer of pods calls. */
export interface PodGraphPopulator {
  replace(objs: Obj[]): void;
  put(obj: Obj): void;
  delete(obj: Obj): void;
}

/** A populator that keeps `graph` in step with the pods it is handed. */
export function podGraphPopulator(graph: Graph): PodGraphPopulator {
  // namespace/name to `uid/node` of each pod in the graph.
  const bound = new Map<string, string>();
  const put = (pod: Obj): void => {
    const m = meta(pod);
    const key = podKey(m);
    const nodeName = (pod.spec as { nodeName?: unknown } | undefined)?.nodeName;
    if (typeof nodeName !== 'string' || nodeName === '') {
      // Unbound (a pod recreated under the same name, seen in a relist) reaches no node.
      if (bound.delete(key)) graph.deletePod(String(m.namespace), String(m.name));
      return;
    }
    const state = `${String(m.uid)}/${nodeName}`;
    if (bound.get(key) === state) return;
    const refs = podRefs(pod);
    if (refs === undefined) return;
    bound.set(key, state);
    graph.setPod(refs);
  };
  return {
    // A relist: pods gone meanwhile leave the graph, the rest are put again; other kinds' vertices stay.
    replace(objs) {
      const listed = new Set(objs.map((o) => podKey(meta(o))));
      for (const key of [...bound.keys()]) {
        if (listed.has(key)) continue;
        bound.delete(key);
        const i = key.indexOf('/');
        graph.deletePod(key.slice(0, i), key.slice(i + 1));
      }
      for (const o of objs) put(o);
    },
    put,
    delete(pod) {
      const m = meta(pod);
      if (!bound.delete(podKey(m))) return;
      graph.deletePod(String(m.namespace), String(m.name));
    },
  };
}
