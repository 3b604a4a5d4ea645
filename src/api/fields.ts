/**
 * Field selectors, parsed like apimachinery's fields.ParseSelector (terms
 * joined by ",", operators "!=", "==", "=", values escaped with "\"), and
 * compiled against one resource's selectable fields (see selectable.ts).
 */
import { selectableFieldGetters, type FieldGetter } from './selectable.js';
import { badRequest } from './status.js';

/** One `field op value` term; "==" is folded into "=". */
export interface FieldRequirement {
  field: string;
  operator: '=' | '!=';
  value: string;
}

/** A parsed (not yet resource-bound) field selector. */
export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  readonly empty: boolean;
  /** Matches a flat map of field values, as produced by selectableFields(). */
  matches(fields: Readonly<Record<string, string>>): boolean;
  /** The value the selector pins `field` to with = or ==, for index lookups (spec.nodeName, metadata.name). */
  requiresExactMatch(field: string): string | undefined;
  toString(): string;
}

/** Escapes "\", "," and "=" in a value, like fields.EscapeValue. */
export const escapeFieldValue = (v: string): string => v.replace(/[\\,=]/g, (c) => `\\${c}`);

/** Undoes escapeFieldValue; an unknown escape or a bare "," or "=" is an error, as upstream. */
export function unescapeFieldValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let slash = false;
  for (const c of s) {
    if (slash) {
      if (c !== '\\' && c !== ',' && c !== '=')
        throw new Error(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      slash = false;
    } else if (c === '\\') slash = true;
    else if (c === ',' || c === '=') throw new Error(`invalid field selector: unescaped character in value: ${c}`);
    else out += c;
  }
  if (slash) throw new Error('invalid field selector: invalid escape sequence: \\');
  return out;
}

// Commas escaped with a backslash are data, not separators; the backslash stays for unescapeFieldValue.
function splitTerms(s: string): string[] {
  if (!s) return [];
  const terms: string[] = [];
  let start = 0;
  let slash = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (slash) slash = false;
    else if (c === '\\') slash = true;
    else if (c === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

// The first operator wins, scanning left to right; "!=" and "==" are tried before "=" at each position.
function splitTerm(term: string): [string, '=' | '!=', string] | undefined {
  for (let i = 0; i < term.length; i++) {
    if (term.startsWith('!=', i)) return [term.slice(0, i), '!=', term.slice(i + 2)];
    if (term.startsWith('==', i)) return [term.slice(0, i), '=', term.slice(i + 2)];
    if (term[i] === '=') return [term.slice(0, i), '=', term.slice(i + 1)];
  }
  return undefined;
}

function build(reqs: FieldRequirement[]): FieldSelector {
  return {
    requirements: reqs,
    empty: reqs.length === 0,
    matches(fields) {
      for (const r of reqs) {
        const v = fields[r.field] ?? '';
        if ((v === r.value) !== (r.operator === '=')) return false;
      }
      return true;
    },
    requiresExactMatch(field) {
      return reqs.find((r) => r.field === field && r.operator === '=')?.value;
    },
    toString: () => reqs.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(','),
  };
}

/** Parses a `fieldSelector` query string; throws a 400 StatusError on bad syntax. */
export function parseFieldSelector(selector: string): FieldSelector {
  const parts = splitTerms(selector).sort();
  const reqs: FieldRequirement[] = [];
  try {
    for (const part of parts) {
      if (!part) continue;
      const t = splitTerm(part);
      if (!t) throw new Error(`invalid selector: '${selector}'; can't understand '${part}'`);
      reqs.push({ field: t[0], operator: t[1], value: unescapeFieldValue(t[2]) });
    }
  } catch (e) {
    throw badRequest((e as Error).message);
  }
  return build(reqs);
}

/** A field selector bound to one resource: each term reads only its own field from the object. */
export interface ObjectFieldMatcher {
  readonly selector: FieldSelector;
  readonly empty: boolean;
  matches(obj: unknown): boolean;
}

/**
 * Checks every field against the resource's selectable fields (400 "field label not supported: x",
 * like the apiserver's field label conversion) and compiles a matcher that reads objects directly.
 */
export function compileFieldSelector(
  resource: string,
  selector: FieldSelector | string,
  namespaced = true,
  extra?: Readonly<Record<string, FieldGetter>>,
): ObjectFieldMatcher {
  const sel = typeof selector === 'string' ? parseFieldSelector(selector) : selector;
  const builtIn = selectableFieldGetters(resource, namespaced);
  const getters = extra === undefined ? builtIn : { ...builtIn, ...extra };
  const checks: { get: FieldGetter; value: string; eq: boolean }[] = [];
  for (const r of sel.requirements) {
    const get = getters[r.field];
    if (!get) throw badRequest(`field label not supported: ${r.field}`);
    checks.push({ get, value: r.value, eq: r.operator === '=' });
  }
  return {
    selector: sel,
    empty: checks.length === 0,
    matches(obj) {
      for (const c of checks) if ((c.get(obj) === c.value) !== c.eq) return false;
      return true;
    },
  };
}
