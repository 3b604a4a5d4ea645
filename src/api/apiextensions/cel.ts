/**
 * x-kubernetes-validations, after apiextensions-apiserver's pkg/apiserver/schema/cel:
 * each rule is a CEL expression over `self` (the value at its schema node) and, in a
 * transition rule, `oldSelf` (the value before the update). Rules run on
 * @bufbuild/cel with its strings extension. A rule calling a function that library
 * does not have (Kubernetes' own libraries: quantity, url, isSorted, ...) is refused
 * when the CRD is written, naming the function, so no rule is ever skipped.
 */
import { celEnv, isCelError, parse, plan, type CelResult } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import type { JSONSchemaProps, ValidationRule } from '../types/index.js';
import { child, index, invalidValue, key, type ErrorList, type FieldError } from '../validation/index.js';

const ENV = celEnv({ funcs: strings });
/** Operators the planner implements itself rather than through the function resolver. */
const BUILTIN_CALLS = new Set(['_&&_', '_||_', '_?_:_', '_[_]', '@not_strictly_false', '_[?_]', '_?._']);

type Program = (vars: Record<string, unknown>) => CelResult;

/** One compiled rule. */
interface CompiledRule {
  rule: ValidationRule;
  program: Program;
  message?: Program;
  usesOldSelf: boolean;
}

/** The compiled rules of a schema, keyed by the schema node they sit on. */
export interface CompiledRules {
  errors: ErrorList;
  byNode: Map<JSONSchemaProps, CompiledRule[]>;
}

const cache = new WeakMap<JSONSchemaProps, CompiledRules>();

/** The compiled rules of a (CRD version's) schema, compiled once and kept while the schema object lives. */
export function rulesFor(schema: JSONSchemaProps): CompiledRules {
  let c = cache.get(schema);
  if (c === undefined) {
    c = compileRules(schema, 'openAPIV3Schema');
    cache.set(schema, c);
  }
  return c;
}

/** Compiles every x-kubernetes-validations rule of `schema`; errors name the rule's path and problem. */
export function compileRules(schema: JSONSchemaProps, path: string): CompiledRules {
  const out: CompiledRules = { errors: [], byNode: new Map() };
  walkSchema(schema, path, (node, p) => {
    const rules = node['x-kubernetes-validations'];
    if (!Array.isArray(rules) || rules.length === 0) return;
    const compiled: CompiledRule[] = [];
    rules.forEach((r, i) => {
      const rp = index(child(p, 'x-kubernetes-validations'), i);
      const c = compileOne(r, rp, out.errors);
      if (c !== undefined) compiled.push(c);
    });
    out.byNode.set(node, compiled);
  });
  return out;
}

function compileOne(r: ValidationRule, path: string, errs: ErrorList): CompiledRule | undefined {
  if (typeof r?.rule !== 'string' || r.rule.trim() === '') {
    errs.push({ type: 'FieldValueRequired', field: child(path, 'rule'), detail: '' });
    return undefined;
  }
  const program = compileExpr(r.rule, child(path, 'rule'), errs);
  let message: Program | undefined;
  if (r.messageExpression !== undefined && r.messageExpression !== '')
    message = compileExpr(r.messageExpression, child(path, 'messageExpression'), errs);
  if (program === undefined) return undefined;
  return { rule: r, program, ...(message === undefined ? {} : { message }), usesOldSelf: /\boldSelf\b/.test(r.rule) };
}

function compileExpr(src: string, path: string, errs: ErrorList): Program | undefined {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(src);
  } catch (err) {
    errs.push(invalidValue(path, src, `compilation failed: ${(err as Error).message}`));
    return undefined;
  }
  const missing = new Set<string>();
  collectCalls(parsed.expr, (fn) => {
    if (!BUILTIN_CALLS.has(fn) && ENV.funcs.find(fn) === undefined) missing.add(fn);
  });
  if (missing.size > 0) {
    errs.push(
      invalidValue(
        path,
        src,
        `compilation failed: undeclared reference to ${[...missing].map((m) => `'${m}'`).join(', ')} (not supported by kscale's CEL library)`,
      ),
    );
    return undefined;
  }
  return plan(ENV, parsed) as Program;
}

/** Calls `fn` with each function name the expression calls. */
function collectCalls(e: unknown, fn: (name: string) => void): void {
  if (e === null || typeof e !== 'object') return;
  if (Array.isArray(e)) {
    for (const x of e) collectCalls(x, fn);
    return;
  }
  const o = e as Record<string, unknown>;
  const kind = o.exprKind as { case?: string; value?: Record<string, unknown> } | undefined;
  if (kind?.case === 'callExpr' && typeof kind.value?.function === 'string') fn(kind.value.function);
  for (const [k, v] of Object.entries(o)) if (k !== '$typeName' && typeof v === 'object') collectCalls(v, fn);
}

/** Visits every schema node with its field path. */
function walkSchema(s: JSONSchemaProps, path: string, visit: (s: JSONSchemaProps, path: string) => void): void {
  if (s === null || typeof s !== 'object') return;
  visit(s, path);
  for (const [n, p] of Object.entries(s.properties ?? {})) walkSchema(p, key(child(path, 'properties'), n), visit);
  if (typeof s.additionalProperties === 'object')
    walkSchema(s.additionalProperties, child(path, 'additionalProperties'), visit);
  if (s.items !== undefined) walkSchema(s.items, child(path, 'items'), visit);
}

/**
 * Evaluates the compiled rules against `obj` (and `old` on update), returning one Invalid
 * error per failing rule at its value's path. Transition rules (those naming oldSelf) run only
 * where an old value exists at the same place, as upstream's correlation by field name and map key.
 */
export function evaluateRules(schema: JSONSchemaProps, compiled: CompiledRules, obj: unknown, old: unknown): ErrorList {
  const errs: ErrorList = [];
  if (compiled.byNode.size === 0) return errs;
  evalNode(schema, compiled, obj, old, '', errs);
  return errs;
}

function evalNode(s: JSONSchemaProps, c: CompiledRules, v: unknown, old: unknown, path: string, errs: ErrorList): void {
  if (v === undefined || v === null) return;
  const rules = c.byNode.get(s);
  if (rules !== undefined) {
    const self = toCel(s, v);
    const oldSelf = old === undefined ? undefined : toCel(s, old);
    for (const r of rules) {
      if (r.usesOldSelf && oldSelf === undefined && r.rule.optionalOldSelf !== true) continue;
      const vars: Record<string, unknown> = { self };
      if (r.usesOldSelf) vars.oldSelf = oldSelf ?? null;
      const res = r.program(vars);
      if (res === true) continue;
      errs.push(ruleError(r, vars, isCelError(res) ? res.message : undefined, path, s, v));
    }
  }
  if (Array.isArray(v)) {
    if (s.items !== undefined) v.forEach((x, i) => evalNode(s.items!, c, x, undefined, index(path, i), errs));
    return;
  }
  if (typeof v !== 'object') return;
  const o = v as Record<string, unknown>;
  const oo =
    old !== null && typeof old === 'object' && !Array.isArray(old) ? (old as Record<string, unknown>) : undefined;
  if (s.properties !== undefined) {
    for (const [n, ps] of Object.entries(s.properties)) evalNode(ps, c, o[n], oo?.[n], child(path, n), errs);
  } else if (typeof s.additionalProperties === 'object') {
    for (const [n, x] of Object.entries(o)) evalNode(s.additionalProperties, c, x, oo?.[n], key(path, n), errs);
  }
}

function ruleError(
  r: CompiledRule,
  vars: Record<string, unknown>,
  evalErr: string | undefined,
  path: string,
  s: JSONSchemaProps,
  v: unknown,
): FieldError {
  let msg = r.rule.message !== undefined && r.rule.message !== '' ? r.rule.message : `failed rule: ${r.rule.rule}`;
  if (evalErr !== undefined) msg = `${msg}: ${evalErr}`;
  if (evalErr === undefined && r.message !== undefined) {
    const m = r.message(vars);
    if (typeof m === 'string' && m.trim() !== '') msg = m;
  }
  const field = r.rule.fieldPath ? `${path}${r.rule.fieldPath}` : path;
  const type = typeOf(s, v);
  const err = invalidValue(field === '' ? '<nil>' : field, type, msg);
  if (r.rule.reason === 'FieldValueForbidden') return { ...err, type: 'FieldValueForbidden', badValue: undefined };
  if (r.rule.reason === 'FieldValueRequired') return { ...err, type: 'FieldValueRequired', badValue: undefined };
  if (r.rule.reason === 'FieldValueDuplicate') return { ...err, type: 'FieldValueDuplicate' };
  return err;
}

/** Upstream reports the bad value of a failed rule as its type name ("object", "string", ...). */
function typeOf(s: JSONSchemaProps, v: unknown): string {
  if (s.type !== undefined) return s.type;
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}

/** A JSON value as CEL sees it: integers of integer-typed fields are CEL ints (bigint). */
function toCel(s: JSONSchemaProps | undefined, v: unknown): unknown {
  if (typeof v === 'number') {
    const intLike = s?.type === 'integer' || s?.['x-kubernetes-int-or-string'] === true;
    return intLike && Number.isInteger(v) ? BigInt(v) : v;
  }
  if (Array.isArray(v)) return v.map((x) => toCel(s?.items, x));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const ps =
        s?.properties?.[k] ?? (typeof s?.additionalProperties === 'object' ? s.additionalProperties : undefined);
      out[k] = toCel(ps, x);
    }
    return out;
  }
  return v;
}
