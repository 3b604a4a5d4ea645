// A set of field paths, stored as a trie keyed by FieldsV1 path elements, like structured-merge-diff's
// fieldpath.Set. Path elements are kept in their FieldsV1 spelling: `f:name`, `k:{"name":"c"}`,
// `v:"x"` and `i:0`, which makes (de)serialization direct.
export { canonicalJSON } from './json.js';

/** One path element in FieldsV1 spelling (`f:…`, `k:…`, `v:…` or `i:…`). */
export type PathElement = string;
/** A path from the object root. */
export type FieldPath = readonly PathElement[];

// Field names seen so far, by name: the `f:` path element as one shared (internalized) string, so
// walks neither build nor hash a new string per field. Bounded, as map keys are field names too.
const FIELD_ELEMENTS = new Map<string, PathElement>();
const MAX_FIELD_ELEMENTS = 8192;

/** The `f:name` path element of a field. */
export function fieldPathElement(name: string): PathElement {
  let pe = FIELD_ELEMENTS.get(name);
  if (pe === undefined) {
    pe = `f:${name}`;
    if (FIELD_ELEMENTS.size < MAX_FIELD_ELEMENTS) FIELD_ELEMENTS.set(name, pe);
  }
  return pe;
}

const RANK: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

/** Sorts path elements in place like comparePathElements; plain string order when all are `f:` or all `k:`. */
export function sortPathElements(pes: PathElement[]): PathElement[] {
  const c = pes.length > 0 ? pes[0].charCodeAt(0) : 0;
  // 'f' and 'k' rank in their string order, and within one kind string order is the rank order.
  if ((c === 102 || c === 107) && pes.every((pe) => pe.charCodeAt(0) === c && pe.charCodeAt(1) === 58))
    return pes.sort();
  return pes.sort(comparePathElements);
}

/** Orders path elements like SMD: field names, then keys, then values, then indexes. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  const ra = RANK[a[0]] ?? 4;
  const rb = RANK[b[0]] ?? 4;
  if (ra !== rb) return ra - rb;
  if (a[0] === 'i') return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Renders a path the way upstream prints it in conflicts: `.spec.containers[name="c"].image`. */
export function pathToString(path: FieldPath): string {
  return path
    .map((pe) => {
      const body = pe.slice(2);
      switch (pe[0]) {
        case 'f':
          return `.${body}`;
        case 'k': {
          const key = JSON.parse(body) as Record<string, unknown>;
          return `[${Object.keys(key)
            .sort()
            .map((k) => `${k}=${JSON.stringify(key[k])}`)
            .join(',')}]`;
        }
        case 'v':
          return `[=${body}]`;
        default:
          return `[${body}]`;
      }
    })
    .join('');
}

/** A set of field paths (SMD's fieldpath.Set): members end here, children continue deeper. */
export class FieldSet {
  readonly members = new Set<PathElement>();
  readonly children = new Map<PathElement, FieldSet>();

  /** Adds a path; the empty path (the root) is not representable and is ignored, like upstream. */
  insert(path: FieldPath): void {
    if (path.length === 0) return;
    let node: FieldSet | undefined;
    for (let i = 0; i < path.length - 1; i++) node = (node ?? this).child(path[i]);
    (node ?? this).members.add(path[path.length - 1]);
  }

  /** True if the exact path is a member. */
  has(path: FieldPath): boolean {
    if (path.length === 0) return false;
    if (path.length === 1) return this.members.has(path[0]);
    return this.children.get(path[0])?.has(path.slice(1)) ?? false;
  }

  /** The subset under one path element (the child node), if any. */
  withPrefix(pe: PathElement): FieldSet | undefined {
    return this.children.get(pe);
  }

  /** True when no path is a member. */
  empty(): boolean {
    if (this.members.size > 0) return false;
    for (const c of this.children.values()) if (!c.empty()) return false;
    return true;
  }

  /** Every member path, depth first. */
  paths(prefix: PathElement[] = []): PathElement[][] {
    const out: PathElement[][] = [];
    const keys = [...new Set([...this.members, ...this.children.keys()])].sort(comparePathElements);
    for (const pe of keys) {
      if (this.members.has(pe)) out.push([...prefix, pe]);
      const c = this.children.get(pe);
      if (c) out.push(...c.paths([...prefix, pe]));
    }
    return out;
  }

  /** Paths in this set or in `other`. */
  union(other: FieldSet): FieldSet {
    const out = this.clone();
    out.addAll(other);
    return out;
  }

  /** Paths in this set but not in `other`. */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!other.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      const o = other.children.get(pe);
      const d = o ? c.difference(o) : c.clone();
      if (!d.empty()) out.children.set(pe, d);
    }
    return out;
  }

  /** Paths in both sets. */
  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (other.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      const o = other.children.get(pe);
      if (!o) continue;
      const i = c.intersection(o);
      if (!i.empty()) out.children.set(pe, i);
    }
    return out;
  }

  /** Also makes every `f:` path element that leads to a member a member itself (SMD's EnsureNamedFieldsAreMembers). */
  withNamedFieldsAsMembers(): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) out.members.add(m);
    for (const [pe, c] of this.children) {
      const e = c.withNamedFieldsAsMembers();
      if (!e.empty()) {
        out.children.set(pe, e);
        if (pe.startsWith('f:')) out.members.add(pe);
      }
    }
    return out;
  }

  /** Deep copy. */
  clone(): FieldSet {
    const out = new FieldSet();
    out.addAll(this);
    return out;
  }

  /** Serializes to upstream's FieldsV1 JSON object (`"."` marks a member that also has children). */
  toFieldsV1(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const keys =
      this.children.size === 0 ? [...this.members] : [...new Set([...this.members, ...this.children.keys()])];
    sortPathElements(keys);
    for (const pe of keys) {
      const c = this.children.get(pe);
      if (c && !c.empty()) {
        const inner: Record<string, unknown> = this.members.has(pe) ? { '.': {} } : {};
        out[pe] = Object.assign(inner, c.toFieldsV1());
      } else if (this.members.has(pe)) {
        out[pe] = {};
      }
    }
    return out;
  }

  /** Parses upstream's FieldsV1 JSON object. */
  static fromFieldsV1(fields: unknown): FieldSet {
    const out = new FieldSet();
    if (fields === null || typeof fields !== 'object') return out;
    for (const [pe, sub] of Object.entries(fields as Record<string, unknown>)) {
      if (pe === '.') continue;
      const subObj = (sub ?? {}) as Record<string, unknown>;
      const keys = Object.keys(subObj);
      if (keys.length === 0 || '.' in subObj) out.members.add(pe);
      if (keys.some((k) => k !== '.')) out.children.set(pe, FieldSet.fromFieldsV1(subObj));
    }
    return out;
  }

  private child(pe: PathElement): FieldSet {
    let c = this.children.get(pe);
    if (!c) {
      c = new FieldSet();
      this.children.set(pe, c);
    }
    return c;
  }

  private addAll(other: FieldSet): void {
    for (const m of other.members) this.members.add(m);
    for (const [pe, c] of other.children) this.child(pe).addAll(c);
  }
}
