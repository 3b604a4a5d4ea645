/**
 * The fields of a CustomResourceDefinition body that apiextensions/v1 does not
 * define, for field validation (Strict: 400, Warn: a Warning header, and the
 * field dropped), as upstream's strict decoding of the typed CRD does. Schema
 * nodes are walked recursively; metadata is checked as every kind's.
 */
import { findUnknownFields } from '../schema/index.js';
import { child, index, key } from '../validation/index.js';
import { VALUE_KEYWORDS } from './schema_validation.js';

/** A node of the CRD type: its known fields, each with the node of its value ('' for a leaf). */
type Node = { [field: string]: Node | 'leaf' | 'schema' | [Node] };

const RULE: Node = {
  rule: 'leaf',
  message: 'leaf',
  messageExpression: 'leaf',
  reason: 'leaf',
  fieldPath: 'leaf',
  optionalOldSelf: 'leaf',
};
const SCHEMA_LEAVES: readonly string[] = [
  ...VALUE_KEYWORDS,
  'id',
  '$schema',
  '$ref',
  'description',
  'type',
  'title',
  'default',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'example',
  'nullable',
  'externalDocs',
  'dependencies',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
];
const SCHEMA_NODES: Record<string, 'schema' | 'schemas' | 'schemaMap'> = {
  items: 'schema',
  not: 'schema',
  additionalProperties: 'schema',
  additionalItems: 'schema',
  allOf: 'schemas',
  anyOf: 'schemas',
  oneOf: 'schemas',
  properties: 'schemaMap',
  patternProperties: 'schemaMap',
  definitions: 'schemaMap',
};
const NAMES: Node = {
  plural: 'leaf',
  singular: 'leaf',
  shortNames: 'leaf',
  kind: 'leaf',
  listKind: 'leaf',
  categories: 'leaf',
};
const VERSION: Node = {
  name: 'leaf',
  served: 'leaf',
  storage: 'leaf',
  deprecated: 'leaf',
  deprecationWarning: 'leaf',
  schema: { openAPIV3Schema: 'schema' },
  subresources: {
    status: 'leaf',
    scale: { specReplicasPath: 'leaf', statusReplicasPath: 'leaf', labelSelectorPath: 'leaf' },
  },
  additionalPrinterColumns: [
    { name: 'leaf', type: 'leaf', format: 'leaf', description: 'leaf', priority: 'leaf', jsonPath: 'leaf' },
  ],
  selectableFields: [{ jsonPath: 'leaf' }],
};
const CRD: Node = {
  apiVersion: 'leaf',
  kind: 'leaf',
  status: 'leaf',
  spec: {
    group: 'leaf',
    names: NAMES,
    scope: 'leaf',
    versions: [VERSION],
    preserveUnknownFields: 'leaf',
    conversion: {
      strategy: 'leaf',
      webhook: {
        conversionReviewVersions: 'leaf',
        clientConfig: {
          url: 'leaf',
          caBundle: 'leaf',
          service: { namespace: 'leaf', name: 'leaf', path: 'leaf', port: 'leaf' },
        },
      },
    },
  },
};

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The unknown fields of an object's metadata (ObjectMeta), as `metadata.<field>` paths. */
export function metadataUnknownFields(obj: unknown): string[] {
  const m = (obj as { metadata?: unknown } | null)?.metadata;
  if (!isObj(m)) return [];
  return findUnknownFields('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', m).map((p) => child('metadata', p));
}

/** The unknown fields of a CRD body (`spec.versionz`, `spec.versions[0].schema.openAPIV3Schema.properties[a].typo`). */
export function crdUnknownFields(obj: unknown): string[] {
  const out = metadataUnknownFields(obj);
  walk(CRD, obj, '', out);
  return out;
}

function walk(node: Node, v: unknown, path: string, out: string[]): void {
  if (!isObj(v)) return;
  for (const [k, x] of Object.entries(v)) {
    if (path === '' && k === 'metadata') continue;
    const n = node[k];
    const p = child(path, k);
    if (n === undefined) out.push(p);
    else if (n === 'schema') walkSchema(x, p, out);
    else if (Array.isArray(n)) {
      if (Array.isArray(x)) x.forEach((item, i) => walk(n[0], item, index(p, i), out));
    } else if (typeof n === 'object') walk(n, x, p, out);
  }
}

function walkSchema(s: unknown, path: string, out: string[]): void {
  if (!isObj(s)) return;
  for (const [k, x] of Object.entries(s)) {
    const p = child(path, k);
    if (k === 'x-kubernetes-validations') {
      if (Array.isArray(x)) x.forEach((r, i) => walk(RULE, r, index(p, i), out));
      continue;
    }
    const kind = SCHEMA_NODES[k];
    if (kind === 'schema') walkSchema(x, p, out);
    else if (kind === 'schemas') {
      if (Array.isArray(x)) x.forEach((item, i) => walkSchema(item, index(p, i), out));
    } else if (kind === 'schemaMap') {
      if (isObj(x)) for (const [name, sub] of Object.entries(x)) walkSchema(sub, key(p, name), out);
    } else if (!SCHEMA_LEAVES.includes(k)) out.push(p);
  }
}
