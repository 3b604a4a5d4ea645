/**
 * Class counts of a V8 heap snapshot (.heapsnapshot), like the "Summary"
 * view of Chrome DevTools: objects grouped by constructor (or node type),
 * with their count and self size. The snapshot of a component holding
 * 30,000 pods runs to hundreds of MiB, so the `nodes` array is scanned as
 * bytes rather than parsed as one JSON value; only the meta and the string
 * table are parsed.
 */
import { readFileSync } from 'node:fs';

/** One group of heap objects. */
export interface HeapClass {
  count: number;
  selfBytes: number;
}

interface SnapshotMeta {
  node_fields: string[];
  node_types: [string[], ...unknown[]];
}

/** Counts and self sizes per class in the snapshot file at `path`. */
export function heapClasses(path: string): Map<string, HeapClass> {
  return heapClassesOf(readFileSync(path));
}

/** Counts and self sizes per class of a snapshot's bytes. */
export function heapClassesOf(buf: Buffer): Map<string, HeapClass> {
  const nodesAt = buf.indexOf('"nodes":[');
  if (nodesAt < 0) throw new Error('heap snapshot: no "nodes" array');
  const head = buf.subarray(0, nodesAt).toString('utf8').replace(/,\s*$/, '') + '}';
  const meta = (JSON.parse(head) as { snapshot: { meta: SnapshotMeta } }).snapshot.meta;
  const stringsAt = buf.lastIndexOf('"strings":[');
  if (stringsAt < 0) throw new Error('heap snapshot: no "strings" array');
  const tail = buf.subarray(stringsAt + '"strings":'.length).toString('utf8');
  const strings = JSON.parse(tail.slice(0, tail.lastIndexOf(']') + 1)) as string[];
  const stride = meta.node_fields.length;
  const typeField = meta.node_fields.indexOf('type');
  const nameField = meta.node_fields.indexOf('name');
  const sizeField = meta.node_fields.indexOf('self_size');
  const types = meta.node_types[0];
  const out = new Map<string, HeapClass>();
  const row: number[] = new Array<number>(stride).fill(0);
  let field = 0;
  let num = 0;
  let inNum = false;
  for (let i = nodesAt + '"nodes":['.length; i < buf.length; i++) {
    const c = buf[i]!;
    if (c >= 48 && c <= 57) {
      num = num * 10 + (c - 48);
      inNum = true;
      continue;
    }
    if (inNum) {
      row[field++] = num;
      num = 0;
      inNum = false;
      if (field === stride) {
        field = 0;
        const key = classKey(types[row[typeField]!] ?? '?', strings[row[nameField]!] ?? '');
        const g = out.get(key);
        if (g === undefined) out.set(key, { count: 1, selfBytes: row[sizeField]! });
        else {
          g.count++;
          g.selfBytes += row[sizeField]!;
        }
      }
    }
    if (c === 93) break; // ']' ends the nodes array
  }
  return out;
}

/** The group of a node: the constructor for objects, the type (and V8's name) otherwise. */
function classKey(type: string, name: string): string {
  switch (type) {
    case 'object':
      return name;
    case 'closure':
      return '(closure)';
    case 'string':
    case 'concatenated string':
    case 'sliced string':
      return '(string)';
    case 'array':
    case 'hidden':
    case 'native':
      return `(${type}) ${name.length > 40 ? name.slice(0, 40) : name}`;
    default:
      return `(${type})`;
  }
}

/** The classes that grew most from `before` to `after`, by self size. */
export function grownClasses(
  before: ReadonlyMap<string, HeapClass>,
  after: ReadonlyMap<string, HeapClass>,
  top: number,
): { name: string; count: number; selfBytes: number }[] {
  const rows: { name: string; count: number; selfBytes: number }[] = [];
  for (const [name, a] of after) {
    const b = before.get(name) ?? { count: 0, selfBytes: 0 };
    rows.push({ name, count: a.count - b.count, selfBytes: a.selfBytes - b.selfBytes });
  }
  return rows.sort((x, y) => y.selfBytes - x.selfBytes).slice(0, top);
}
