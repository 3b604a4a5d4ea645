/**
 * The schema registry: every definition compiled from the compact
 * descriptions, strict-decoding checks (unknown fields), and OpenAPI v2/v3
 * output with x-kubernetes-group-version-kind and patch-merge extensions.
 */
import { CONVERTED_RESOURCES, RESOURCES, type ResourceInfo } from '../registry.js';
import { badRequest, type StatusError } from '../status.js';
import { isObject } from '../types.js';
import { CERTIFICATES_DEFS } from './defs_certificates.js';
import { CORE_DEFS } from './defs_core.js';
import { FLOWCONTROL_DEFS } from './defs_flowcontrol.js';
import { QUOTA_DEFS } from './defs_quota.js';
import { META_DEFS } from './defs_meta.js';
import { POD_DEFS } from './defs_pod.js';
import { RBAC_DEFS } from './defs_rbac.js';
import { STORAGE_DEFS } from './defs_storage.js';
import { WORKLOAD_DEFS } from './defs_workloads.js';
import { compileStruct, fullName, SCALAR_DEFS, type Schema } from './dsl.js';

const GROUP_PREFIX: Record<string, string> = {
  '': 'core',
  apps: 'apps',
  batch: 'batch',
  'coordination.k8s.io': 'coordination',
  'discovery.k8s.io': 'discovery',
  'scheduling.k8s.io': 'scheduling',
  'rbac.authorization.k8s.io': 'rbac',
  'certificates.k8s.io': 'certificates',
  policy: 'policy',
  autoscaling: 'autoscaling',
  'flowcontrol.apiserver.k8s.io': 'flowcontrol',
  'networking.k8s.io': 'networking',
  'storage.k8s.io': 'storage',
};
// A group-version whose definitions live in their own package (io.k8s.api.autoscaling.v2 beside v1's Scale).
const GROUP_VERSION_PREFIX: Record<string, string> = { 'autoscaling/v2': 'autoscalingv2' };

const prefixOf = (group: string, version?: string): string | undefined =>
  (version === undefined ? undefined : GROUP_VERSION_PREFIX[`${group}/${version}`]) ?? GROUP_PREFIX[group];

/**
 * The OpenAPI definition name of a kind, e.g. ("apps", "Deployment") → io.k8s.api.apps.v1.Deployment; undefined if
 * unknown. `version` picks the package where a group has several (autoscaling v1 and v2); without it, the group's first.
 */
export function definitionName(group: string, kind: string, version?: string): string | undefined {
  const prefix = prefixOf(group, version);
  if (prefix === undefined) return undefined;
  const name = fullName(`${prefix}.${kind}`);
  return DEFINITIONS[name] ? name : undefined;
}

function build(): Record<string, Schema> {
  const defs: Record<string, Schema> = { ...structuredClone(SCALAR_DEFS) };
  for (const src of [
    META_DEFS,
    POD_DEFS,
    CORE_DEFS,
    QUOTA_DEFS,
    WORKLOAD_DEFS,
    RBAC_DEFS,
    CERTIFICATES_DEFS,
    FLOWCONTROL_DEFS,
    STORAGE_DEFS,
  ])
    for (const [short, desc] of Object.entries(src)) defs[fullName(short)] = compileStruct(desc);
  // Top-level kinds, plus the subresource bodies (Binding, Eviction, Scale), carry their GVK.
  const kinds: { group: string; version: string; kind: string }[] = [...RESOURCES, ...CONVERTED_RESOURCES].map((r) => ({
    group: r.group,
    version: r.version,
    kind: r.kind,
  }));
  for (const r of RESOURCES)
    for (const s of r.subresources)
      if (s.kind !== r.kind) kinds.push({ group: s.group, version: s.version, kind: s.kind });
  for (const k of kinds) {
    const prefix = prefixOf(k.group, k.version);
    const def = prefix !== undefined ? defs[fullName(`${prefix}.${k.kind}`)] : undefined;
    if (def) def['x-kubernetes-group-version-kind'] = [{ group: k.group, kind: k.kind, version: k.version }];
  }
  return defs;
}

/** Every definition, keyed by OpenAPI name (io.k8s.api.core.v1.Pod), in OpenAPI v2 form. */
export const DEFINITIONS: Readonly<Record<string, Schema>> = build();

const refName = (s: Schema): string | undefined =>
  typeof s.$ref === 'string' ? s.$ref.slice(s.$ref.lastIndexOf('/') + 1) : undefined;

/** Each schema with its $ref followed (null: a scalar or unknown definition), so a walk slices no $ref strings. */
const resolved = new WeakMap<Schema, Schema | null>();

function resolveRef(schema: Schema): Schema | null {
  let r = resolved.get(schema);
  if (r === undefined) {
    const ref = refName(schema);
    r = ref === undefined ? schema : SCALAR_DEFS[ref] ? null : (DEFINITIONS[ref] ?? null);
    resolved.set(schema, r);
  }
  return r;
}

/** `spec.containers[0].bar` from the walk's stack of keys and indices: built only for an unknown field. */
function pathOf(stack: readonly (string | number)[], last: string): string {
  let out = '';
  for (const s of stack) out += typeof s === 'number' ? `[${s}]` : out === '' ? s : `.${s}`;
  return out === '' ? last : `${out}.${last}`;
}

// Every write walks its whole body here, so the walk allocates nothing for known fields.
function walk(schema: Schema, value: unknown, stack: (string | number)[], out: string[]): void {
  const s = resolveRef(schema);
  if (s === null || value === null || typeof value !== 'object') return;
  if (s.type === 'array') {
    if (!Array.isArray(value)) return;
    const items = s.items as Schema;
    for (let i = 0; i < value.length; i++) {
      stack.push(i);
      walk(items, value[i], stack, out);
      stack.pop();
    }
    return;
  }
  if (s.type !== 'object' || Array.isArray(value)) return;
  const props = s.properties as Record<string, Schema> | undefined;
  const extra = props === undefined && isObject(s.additionalProperties) ? s.additionalProperties : undefined;
  if (props === undefined && extra === undefined) return;
  const obj = value as Record<string, unknown>;
  for (const k in obj) {
    if (!Object.prototype.hasOwnProperty.call(obj, k)) continue;
    const sub = props === undefined ? extra! : Object.prototype.hasOwnProperty.call(props, k) ? props[k] : undefined;
    if (sub === undefined) {
      out.push(pathOf(stack, k));
      continue;
    }
    stack.push(k);
    walk(sub, obj[k], stack, out);
    stack.pop();
  }
}

/**
 * The paths of fields the kind's schema does not know (`spec.foo`, `spec.containers[0].bar`),
 * for fieldValidation=Strict/Warn. `kind` is a kind name ("Pod") or a definition name; unknown kinds report nothing.
 */
export function findUnknownFields(kind: string, obj: unknown, group?: string, version?: string): string[] {
  let name: string | undefined;
  if (DEFINITIONS[kind]) name = kind;
  else if (group !== undefined) name = definitionName(group, kind, version);
  else name = RESOURCES.map((r) => definitionName(r.group, kind)).find((n) => n !== undefined);
  if (!name) return [];
  const out: string[] = [];
  walk(DEFINITIONS[name], obj, [], out);
  return out;
}

/** The 400 that fieldValidation=Strict returns: `strict decoding error: unknown field "spec.foo", unknown field ...`. */
export function strictDecodingError(paths: string[]): StatusError {
  return badRequest(`strict decoding error: ${paths.map((p) => `unknown field "${p}"`).join(', ')}`);
}

/** The warning texts fieldValidation=Warn sends in Warning headers, one per unknown field. */
export const unknownFieldWarnings = (paths: string[]): string[] => paths.map((p) => `unknown field "${p}"`);

/** All definitions for /openapi/v2 (`definitions`). */
export const openapiV2Definitions = (): Record<string, Schema> => structuredClone(DEFINITIONS);

// OpenAPI v3 keeps the same schemas under components/schemas.
function toV3(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(toV3);
  if (!isObject(s)) return s;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s))
    out[k] = k === '$ref' && typeof v === 'string' ? v.replace('#/definitions/', '#/components/schemas/') : toV3(v);
  return out;
}

function closure(roots: string[]): string[] {
  const seen = new Set<string>();
  const visit = (s: unknown): void => {
    if (Array.isArray(s)) return s.forEach(visit);
    if (!isObject(s)) return;
    const ref = refName(s);
    if (ref && !seen.has(ref)) {
      seen.add(ref);
      visit(DEFINITIONS[ref]);
    }
    for (const v of Object.values(s)) visit(v);
  };
  for (const r of roots) visit({ $ref: `#/definitions/${r}` });
  return [...seen].sort();
}

/** The paths of a resource's create, read, replace and patch operations, each tagged with its GVK, referring to `ref`. */
export function resourcePaths(r: ResourceInfo, ref: string): Record<string, unknown> {
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  const coll = r.namespaced ? `${base}/namespaces/{namespace}/${r.resource}` : `${base}/${r.resource}`;
  const gvk = { group: r.group, kind: r.kind, version: r.version };
  const body = { content: { 'application/json': { schema: { $ref: ref } } } };
  const params = [
    { name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } },
    { name: 'dryRun', in: 'query', schema: { type: 'string' } },
  ];
  const op = (action: string, id: string): Record<string, unknown> => ({
    operationId: `${id}${r.kind}`,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
    parameters: params,
    requestBody: body,
    responses: { '200': body },
  });
  return {
    [coll]: { post: op('post', 'create') },
    [`${coll}/{name}`]: {
      get: { ...op('get', 'read'), parameters: [], requestBody: undefined },
      put: op('put', 'replace'),
      patch: op('patch', 'patch'),
    },
  };
}

/** The built-in definitions `roots` name and every one they reach, in OpenAPI v3 form (for custom resources' ObjectMeta). */
export function v3SchemasFrom(roots: string[]): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  for (const n of closure(roots)) schemas[n] = toV3(DEFINITIONS[n]);
  return schemas;
}

/** The /openapi/v3/<api|apis/group>/<version> document: paths with GVK-tagged operations, and the schemas they reach. */
export function openapiV3Document(group: string, version: string): Record<string, unknown> | undefined {
  const rs = [...RESOURCES, ...CONVERTED_RESOURCES].filter((r) => r.group === group && r.version === version);
  if (!rs.length) return undefined;
  const paths: Record<string, unknown> = {};
  const roots: string[] = [];
  for (const r of rs) {
    const name = definitionName(r.group, r.kind, r.version);
    if (!name) continue;
    roots.push(name);
    Object.assign(paths, JSON.parse(JSON.stringify(resourcePaths(r, `#/components/schemas/${name}`))));
  }
  const schemas: Record<string, unknown> = {};
  for (const n of closure(roots)) schemas[n] = toV3(DEFINITIONS[n]);
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths,
    components: { schemas },
  };
}
