/**
 * Feeds the graph from the server's pod informer, as upstream's graph_populator: a pod enters once it
 * is bound to a node, and a later write of it changes the graph only when its uid or node changed (what a
 * bound pod references is immutable). The stream of status writes is skipped before it is decoded: a
 * write in the lifetime (create revision) of a pod already in the graph changes nothing, and bytes with no
 * `"nodeName":"` are an unbound pod, which reaches no node.
 */
import type { KeyValue } from '../../../storage/index.js';
import { meta, type Obj } from '../../object.js';
import type { Graph } from './graph.js';
import { podRefs } from './pod_refs.js';

const podKey = (m: Obj): string => `${String(m.namespace)}/${String(m.name)}`;

/** The handler a StoreInformer of one of the graph's kinds calls. */
export interface GraphPopulator {
  replace(objs: Obj[]): void;
  put(obj: Obj, kv?: KeyValue): void;
  delete(obj: Obj, kv?: KeyValue): void;
  mayMatter?(type: 'put' | 'delete', kv: KeyValue): boolean;
}

/** The pods' populator, which can tell from a write's bytes that it changes nothing. */
export interface PodGraphPopulator extends GraphPopulator {
  mayMatter(type: 'put' | 'delete', kv: KeyValue): boolean;
}

/** Stored pods are JSON.stringify output, so a bound pod's bytes hold this exact text. */
const NODE_NAME = Buffer.from('"nodeName":"');
const QUOTE = 0x22;

/** Whether the bytes hold a non-empty "nodeName" anywhere (a false positive only costs a decode). */
function namesNode(value: Buffer): boolean {
  for (let i = value.indexOf(NODE_NAME); i !== -1; i = value.indexOf(NODE_NAME, i + 1)) {
    if (value[i + NODE_NAME.length] !== QUOTE) return true;
  }
  return false;
}

/** A populator that keeps `graph` in step with the pods it is handed. */
export function podGraphPopulator(graph: Graph): PodGraphPopulator {
  // namespace/name to `uid/node` of each pod in the graph.
  const bound = new Map<string, string>();
  // Storage key to the create revision of the pod in the graph under it, from watched writes.
  const lifetimes = new Map<string, number>();
  const put = (pod: Obj, kv?: KeyValue): void => {
    const m = meta(pod);
    const key = podKey(m);
    const nodeName = (pod.spec as { nodeName?: unknown } | undefined)?.nodeName;
    if (typeof nodeName !== 'string' || nodeName === '') {
      // Unbound (a pod recreated under the same name, seen in a relist) reaches no node.
      if (kv !== undefined) lifetimes.delete(kv.key);
      if (bound.delete(key)) graph.deletePod(String(m.namespace), String(m.name));
      return;
    }
    const state = `${String(m.uid)}/${nodeName}`;
    if (bound.get(key) === state) {
      if (kv !== undefined) lifetimes.set(kv.key, kv.createRevision);
      return;
    }
    const refs = podRefs(pod);
    if (refs === undefined) return;
    bound.set(key, state);
    if (kv !== undefined) lifetimes.set(kv.key, kv.createRevision);
    graph.setPod(refs);
  };
  return {
    // A relist: pods gone meanwhile leave the graph, the rest are put again; other kinds' vertices stay.
    replace(objs) {
      lifetimes.clear();
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
    mayMatter(type, kv) {
      if (type === 'delete') return true;
      const created = lifetimes.get(kv.key);
      if (created !== undefined) return created !== kv.createRevision;
      return namesNode(kv.value);
    },
    delete(pod, kv) {
      if (kv !== undefined) lifetimes.delete(kv.key);
      const m = meta(pod);
      if (!bound.delete(podKey(m))) return;
      graph.deletePod(String(m.namespace), String(m.name));
    },
  };
}
