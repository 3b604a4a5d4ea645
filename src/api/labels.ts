/**
 * Label selectors, parsed exactly like apimachinery's labels.Parse (same
 * grammar, same error texts) and compiled once into a matcher that is cheap
 * to run against many objects.
 */
import { isQualifiedName, isValidLabelValue } from './meta.js';
import { badRequest } from './status.js';
import type { LabelSelector } from './types.js';

/** A selection operator, as in apimachinery's selection package. */
export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

/** One parsed requirement; values are sorted and deduplicated. */
export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

/** A compiled label selector. */
export interface LabelSelectorMatcher {
  /** The requirements, sorted by key (all must hold). */
  readonly requirements: readonly LabelRequirement[];
  /** True when nothing is restricted (matches everything). */
  readonly empty: boolean;
  /** True when the selector can never match (from a nil metav1.LabelSelector). */
  readonly nothing: boolean;
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** The value a selector pins `key` to with =, == or a one-value in, for index lookups. */
  requiresExactMatch(key: string): string | undefined;
  toString(): string;
}

type Tok = 'error' | 'eos' | ')' | ',' | '!' | '==' | '=' | '>' | 'id' | 'in' | '<' | '!=' | 'notin' | '(';
interface Item {
  tok: Tok;
  lit: string;
}

const TOKENS: Record<string, Tok> = {
  ')': ')',
  ',': ',',
  '!': '!',
  '==': '==',
  '=': '=',
  '>': '>',
  in: 'in',
  '<': '<',
  '!=': '!=',
  notin: 'notin',
  '(': '(',
};
const isWhitespace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string): boolean => '=!(),><'.includes(c);
const BINARY_OPS = 'in, notin, =, ==, !=, gt, lt';

function lex(s: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos])) pos++;
    if (pos >= s.length) {
      items.push({ tok: 'eos', lit: '' });
      return items;
    }
    if (isSpecial(s[pos])) {
      // Longest special-symbol run that is still a known operator, like upstream's scanSpecialSymbol.
      let buf = '';
      let last: Item | undefined;
      while (pos < s.length && isSpecial(s[pos])) {
        buf += s[pos];
        const t = TOKENS[buf];
        if (t) last = { tok: t, lit: buf };
        else if (last) break;
        pos++;
      }
      items.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buf}'` });
      if (!last) return [...items, { tok: 'eos', lit: '' }];
      continue;
    }
    let buf = '';
    while (pos < s.length && !isSpecial(s[pos]) && !isWhitespace(s[pos])) buf += s[pos++];
    const t = TOKENS[buf];
    items.push({ tok: t === 'in' || t === 'notin' ? t : 'id', lit: buf });
  }
}

class Parser {
  private pos = 0;
  constructor(private readonly items: Item[]) {}
  // In value position "in" and "notin" are plain identifiers ("x in (in)").
  private look(values: boolean): Item {
    const it = this.items[Math.min(this.pos, this.items.length - 1)];
    return values && (it.tok === 'in' || it.tok === 'notin') ? { tok: 'id', lit: it.lit } : it;
  }
  private next(values: boolean): Item {
    const it = this.look(values);
    this.pos++;
    return it;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.look(true);
      if (tok === 'eos') return reqs;
      if (tok !== 'id' && tok !== '!') throw new Error(`found '${lit}', expected: !, identifier, or 'end of string'`);
      try {
        reqs.push(this.requirement());
      } catch (e) {
        throw new Error(`unable to parse requirement: ${(e as Error).message}`);
      }
      const t = this.next(true);
      if (t.tok === 'eos') return reqs;
      if (t.tok !== ',') throw new Error(`found '${t.lit}', expected: ',' or 'end of string'`);
      const t2 = this.look(true);
      if (t2.tok !== 'id' && t2.tok !== '!') throw new Error(`found '${t2.lit}', expected: identifier after ','`);
    }
  }

  private requirement(): LabelRequirement {
    let negate = false;
    let t = this.next(true);
    if (t.tok === '!') {
      negate = true;
      t = this.next(true);
    }
    if (t.tok !== 'id') throw new Error(`found '${t.lit}', expected: identifier`);
    const key = t.lit;
    checkKey(key);
    const after = this.look(true).tok;
    if (negate || after === 'eos' || after === ',') {
      // "!key" followed by anything else fails at the caller's ',' check, as upstream.
      return newRequirement(key, negate ? '!' : 'exists', []);
    }
    const opTok = this.next(false);
    const op = (
      { in: 'in', '=': '=', '==': '==', '>': 'gt', '<': 'lt', notin: 'notin', '!=': '!=' } as Record<
        string,
        LabelOperator
      >
    )[opTok.tok];
    if (!op) throw new Error(`found '${opTok.lit}', expected: ${BINARY_OPS}`);
    const values = op === 'in' || op === 'notin' ? this.setValues() : this.exactValue();
    return newRequirement(key, op, [...new Set(values)].sort());
  }

  private setValues(): string[] {
    const open = this.next(true);
    if (open.tok !== '(') throw new Error(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.look(true);
    if (tok === ')') {
      this.pos++;
      return [''];
    }
    if (tok !== 'id' && tok !== ',') throw new Error(`found '${lit}', expected: ',', ')' or identifier`);
    const vals: string[] = [];
    for (;;) {
      const t = this.next(true);
      if (t.tok === 'id') {
        vals.push(t.lit);
        const t2 = this.look(true);
        if (t2.tok === ',') continue;
        if (t2.tok === ')') break;
        throw new Error(`found '${t2.lit}', expected: ',' or ')'`);
      } else if (t.tok === ',') {
        // Empty members: "(,a)", "(a,)" and "(a,,b)" all contain "".
        if (!vals.length) vals.push('');
        const t2 = this.look(true);
        if (t2.tok === ')') {
          vals.push('');
          break;
        }
        if (t2.tok === ',') vals.push('');
      } else {
        throw new Error(`found '${t.lit}', expected: ',', or identifier`);
      }
    }
    this.pos++; // the ')'
    return vals;
  }

  private exactValue(): string[] {
    const t = this.look(true);
    if (t.tok === 'eos' || t.tok === ',') return [''];
    this.pos++;
    if (t.tok === 'id') return [t.lit];
    throw new Error(`found '${t.lit}', expected: identifier`);
  }
}

function checkKey(key: string): void {
  const errs = isQualifiedName(key);
  if (errs.length) throw new Error(`key: Invalid value: ${JSON.stringify(key)}: ${errs.join('; ')}`);
}

function newRequirement(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  checkKey(key);
  if ((operator === 'in' || operator === 'notin') && !values.length)
    throw new Error(`values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty`);
  if ((operator === '=' || operator === '==' || operator === '!=') && values.length !== 1)
    throw new Error('values: Invalid value: exact-match compatibility requires one single value');
  if (operator === 'gt' || operator === 'lt') {
    if (values.length !== 1 || !/^[+-]?\d+$/.test(values[0]))
      throw new Error(
        `values[0]: Invalid value: ${JSON.stringify(values[0] ?? '')}: for 'Gt', 'Lt' operators, the value must be an integer`,
      );
  }
  values.forEach((v, i) => {
    const errs = isValidLabelValue(v);
    if (errs.length) throw new Error(`values[${i}][${key}]: Invalid value: ${JSON.stringify(v)}: ${errs.join('; ')}`);
  });
  return { key, operator, values };
}

function compileRequirement(r: LabelRequirement): (l: Readonly<Record<string, string>>) => boolean {
  const { key, values } = r;
  const has = (l: Readonly<Record<string, string>>): boolean => Object.prototype.hasOwnProperty.call(l, key);
  const one = values[0];
  switch (r.operator) {
    case '=':
    case '==':
      return (l) => has(l) && l[key] === one;
    case 'in':
      return values.length === 1 ? (l) => has(l) && l[key] === one : (l) => has(l) && values.includes(l[key]);
    case '!=':
      return (l) => !has(l) || l[key] !== one;
    case 'notin':
      return (l) => !has(l) || !values.includes(l[key]);
    case 'exists':
      return has;
    case '!':
      return (l) => !has(l);
    case 'gt':
    case 'lt': {
      const bound = Number(one);
      const gt = r.operator === 'gt';
      return (l) => has(l) && /^[+-]?\d+$/.test(l[key]) && (gt ? Number(l[key]) > bound : Number(l[key]) < bound);
    }
  }
}

function requirementString(r: LabelRequirement): string {
  switch (r.operator) {
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    case 'in':
    case 'notin':
      return `${r.key} ${r.operator} (${r.values.join(',')})`;
    case 'gt':
      return `${r.key}>${r.values[0]}`;
    case 'lt':
      return `${r.key}<${r.values[0]}`;
    default:
      return `${r.key}${r.operator}${r.values[0]}`;
  }
}

const EMPTY: Readonly<Record<string, string>> = Object.freeze({});

/** Compiles requirements into a matcher; an empty list matches everything. */
export function selectorFromRequirements(reqs: LabelRequirement[]): LabelSelectorMatcher {
  const sorted = [...reqs].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const fns = sorted.map(compileRequirement);
  return {
    requirements: sorted,
    empty: sorted.length === 0,
    nothing: false,
    matches: (labels) => {
      const l = labels ?? EMPTY;
      for (const f of fns) if (!f(l)) return false;
      return true;
    },
    requiresExactMatch(key) {
      const r = sorted.find((x) => x.key === key);
      return r && (r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1
        ? r.values[0]
        : undefined;
    },
    toString: () => sorted.map(requirementString).join(','),
  };
}

/** A selector that matches everything. */
export const everythingLabels = (): LabelSelectorMatcher => selectorFromRequirements([]);

/** A selector that matches nothing, like labels.Nothing(). */
export function nothingLabels(): LabelSelectorMatcher {
  return {
    requirements: [],
    empty: false,
    nothing: true,
    matches: () => false,
    requiresExactMatch: () => undefined,
    toString: () => '',
  };
}

/** Parses a `labelSelector` query string; throws a 400 StatusError with upstream's parser message. */
export function parseLabelSelector(selector: string): LabelSelectorMatcher {
  try {
    return selectorFromRequirements(new Parser(lex(selector)).parse());
  } catch (e) {
    throw badRequest((e as Error).message);
  }
}

/** Like metav1.LabelSelectorAsSelector: undefined/null matches nothing, {} matches everything. */
export function fromLabelSelector(ls: LabelSelector | null | undefined): LabelSelectorMatcher {
  if (ls === null || ls === undefined) return nothingLabels();
  const reqs: LabelRequirement[] = [];
  try {
    for (const [k, v] of Object.entries(ls.matchLabels ?? {})) reqs.push(newRequirement(k, '=', [v]));
    for (const e of ls.matchExpressions ?? []) {
      const op = ({ In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' } as Record<string, LabelOperator>)[
        e.operator
      ];
      if (!op) throw new Error(`${JSON.stringify(e.operator)} is not a valid label selector operator`);
      const values = op === 'in' || op === 'notin' ? [...new Set(e.values ?? [])].sort() : (e.values ?? []);
      if ((op === 'exists' || op === '!') && values.length)
        throw new Error('values: Invalid value: values set must be empty for exists and does not exist');
      reqs.push(newRequirement(e.key, op, values));
    }
  } catch (e) {
    throw badRequest((e as Error).message);
  }
  return selectorFromRequirements(reqs);
}

/** True when `labels` holds every pair of `set`: labels.SelectorFromSet(set).Matches(labels) without building a selector. */
export function matchesLabelSet(
  set: Readonly<Record<string, string>>,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  for (const [k, v] of Object.entries(set)) if (labels?.[k] !== v) return false;
  return true;
}

/** Like labels.SelectorFromSet: every pair must match exactly; no validation. */
export function selectorFromSet(set: Readonly<Record<string, string>> | undefined): LabelSelectorMatcher {
  return selectorFromRequirements(
    Object.entries(set ?? {}).map(([key, v]) => ({ key, operator: '=' as const, values: [v] })),
  );
}
