/**
 * A compact description language for the built-in types, compiled into
 * OpenAPI v2 definitions. One source serves strict decoding (unknown fields)
 * and /openapi/v2 and /openapi/v3.
 *
 * A field type is one of:
 *   string | int | int64 | number | boolean | bytes | object (free-form JSON)
 *   Quantity | IntOrString | Time | MicroTime      (apimachinery scalars)
 *   <prefix>.<Name>                                 (a definition, e.g. core.Container)
 *   []<type>[@<mergeKey>[+retainKeys]]             (a list; "@" alone means strategy merge without a key)
 *   map[<type>]                                     (string-keyed map)
 */

/** A struct description: field name → type expression. */
export type StructDesc = Record<string, string>;

/** OpenAPI schema object (the subset we produce). */
export type Schema = Record<string, unknown>;

/** Short prefixes → OpenAPI definition-name prefixes, like upstream's Go package paths. */
export const PREFIXES: Record<string, string> = {
  core: 'io.k8s.api.core.v1',
  apps: 'io.k8s.api.apps.v1',
  batch: 'io.k8s.api.batch.v1',
  coordination: 'io.k8s.api.coordination.v1',
  discovery: 'io.k8s.api.discovery.v1',
  scheduling: 'io.k8s.api.scheduling.v1',
  rbac: 'io.k8s.api.rbac.v1',
  certificates: 'io.k8s.api.certificates.v1',
  policy: 'io.k8s.api.policy.v1',
  autoscaling: 'io.k8s.api.autoscaling.v1',
  autoscalingv2: 'io.k8s.api.autoscaling.v2',
  networking: 'io.k8s.api.networking.v1',
  storage: 'io.k8s.api.storage.v1',
  flowcontrol: 'io.k8s.api.flowcontrol.v1',
  meta: 'io.k8s.apimachinery.pkg.apis.meta.v1',
};

const SCALARS: Record<string, Schema> = {
  string: { type: 'string' },
  int: { type: 'integer', format: 'int32' },
  int64: { type: 'integer', format: 'int64' },
  number: { type: 'number', format: 'double' },
  boolean: { type: 'boolean' },
  bytes: { type: 'string', format: 'byte' },
  object: { type: 'object' },
};

/** The special scalar types and their definitions. */
export const SCALAR_DEFS: Record<string, Schema> = {
  'io.k8s.apimachinery.pkg.api.resource.Quantity': { type: 'string', format: 'quantity' },
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { type: 'string', format: 'int-or-string' },
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': { type: 'string', format: 'date-time' },
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': { type: 'string', format: 'date-time' },
};
const SCALAR_REFS: Record<string, string> = {
  Quantity: 'io.k8s.apimachinery.pkg.api.resource.Quantity',
  IntOrString: 'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
  Time: 'io.k8s.apimachinery.pkg.apis.meta.v1.Time',
  MicroTime: 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime',
};

/** Expands a short definition name ("core.Pod") to its full OpenAPI name. */
export function fullName(short: string): string {
  const dot = short.indexOf('.');
  const prefix = PREFIXES[short.slice(0, dot)];
  if (!prefix) throw new Error(`schema: unknown prefix in ${short}`);
  return `${prefix}.${short.slice(dot + 1)}`;
}

/** Compiles one type expression into an OpenAPI v2 property schema. */
export function compileType(expr: string): Schema {
  if (expr.startsWith('[]')) {
    const at = expr.indexOf('@');
    const items = compileType(at < 0 ? expr.slice(2) : expr.slice(2, at));
    const out: Schema = { type: 'array', items };
    if (at >= 0) {
      const [key, extra] = expr.slice(at + 1).split('+');
      if (key) out['x-kubernetes-patch-merge-key'] = key;
      out['x-kubernetes-patch-strategy'] = extra ? `merge,${extra}` : 'merge';
    }
    return out;
  }
  if (expr.startsWith('map[') && expr.endsWith(']'))
    return { type: 'object', additionalProperties: compileType(expr.slice(4, -1)) };
  if (SCALARS[expr]) return { ...SCALARS[expr] };
  if (SCALAR_REFS[expr]) return { $ref: `#/definitions/${SCALAR_REFS[expr]}` };
  return { $ref: `#/definitions/${fullName(expr)}` };
}

/** A top-level kind: apiVersion, kind and metadata, then its spec and status types when it has them. */
export function top(spec?: string, status?: string): StructDesc {
  return {
    apiVersion: 'string',
    kind: 'string',
    metadata: 'meta.ObjectMeta',
    ...(spec ? { spec } : {}),
    ...(status ? { status } : {}),
  };
}

/** A condition (type, status, `extra`, then lastTransitionTime, reason, message), in upstream's field order. */
export function condition(extra: StructDesc = {}): StructDesc {
  return {
    type: 'string',
    status: 'string',
    ...extra,
    lastTransitionTime: 'Time',
    reason: 'string',
    message: 'string',
  };
}

/** Compiles a struct description into an OpenAPI object definition. */
export function compileStruct(desc: StructDesc): Schema {
  const properties: Record<string, Schema> = {};
  for (const [field, expr] of Object.entries(desc)) properties[field] = compileType(expr);
  return { type: 'object', properties };
}
