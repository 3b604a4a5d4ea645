/**
 * Node selector matching, like upstream's nodeaffinity.NodeSelector: terms
 * are ORed, requirements within a term ANDed; In, NotIn, Exists,
 * DoesNotExist, Gt and Lt on labels, and matchFields on metadata.name.
 * Compiled once per pod, run once per node. The scheduler matches its
 * NodeInfo, the DaemonSet controller a node's labels and name.
 */
import type { NodeSelectorRequirement, NodeSelectorTerm } from './types/index.js';

/** What a node selector reads of a node: its labels and its name. */
export interface SelectableNode {
  readonly labels: Readonly<Record<string, string>>;
  readonly name: string;
}

/** A compiled requirement. */
type Req = (labels: Readonly<Record<string, string>>, name: string) => boolean;

function compileReq(r: NodeSelectorRequirement, field: boolean): Req {
  const key = r.key;
  const values = r.values ?? [];
  const get = field
    ? (_l: Readonly<Record<string, string>>, name: string) => (key === 'metadata.name' ? name : undefined)
    : (l: Readonly<Record<string, string>>) => l[key];
  switch (r.operator) {
    case 'In': {
      const set = new Set(values);
      return (l, n) => {
        const v = get(l, n);
        return v !== undefined && set.has(v);
      };
    }
    case 'NotIn': {
      const set = new Set(values);
      return (l, n) => {
        const v = get(l, n);
        return v === undefined || !set.has(v);
      };
    }
    case 'Exists':
      return (l, n) => get(l, n) !== undefined;
    case 'DoesNotExist':
      return (l, n) => get(l, n) === undefined;
    case 'Gt':
    case 'Lt': {
      const bound = Number(values[0]);
      const gt = r.operator === 'Gt';
      return (l, n) => {
        const v = get(l, n);
        if (v === undefined || !/^-?\d+$/.test(v) || !Number.isFinite(bound)) return false;
        return gt ? Number(v) > bound : Number(v) < bound;
      };
    }
    default:
      return () => false;
  }
}

/** A compiled NodeSelectorTerm; an empty term matches nothing, like upstream. */
export function compileTerm(t: NodeSelectorTerm): (node: SelectableNode) => boolean {
  const reqs = [
    ...(t.matchExpressions ?? []).map((r) => compileReq(r, false)),
    ...(t.matchFields ?? []).map((r) => compileReq(r, true)),
  ];
  if (reqs.length === 0) return () => false;
  return (node) => {
    for (let i = 0; i < reqs.length; i++) if (!reqs[i](node.labels, node.name)) return false;
    return true;
  };
}

/** A compiled list of terms, ORed. */
export function compileTerms(terms: readonly NodeSelectorTerm[]): (node: SelectableNode) => boolean {
  const fns = terms.map(compileTerm);
  return (node) => {
    for (let i = 0; i < fns.length; i++) if (fns[i](node)) return true;
    return false;
  };
}
