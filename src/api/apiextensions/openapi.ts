/**
 * The OpenAPI v3 document of a custom resource group-version, as
 * apiextensions-apiserver's builder publishes at /openapi/v3/apis/<g>/<v>:
 * each kind's schema (its metadata an ObjectMeta reference) tagged with
 * x-kubernetes-group-version-kind, and its GVK-tagged operations, so that
 * `kubectl explain` and kubectl's field validation find it.
 */
import type { ResourceInfo } from '../registry.js';
import { resourcePaths, v3SchemasFrom } from '../schema/index.js';
import type { JSONSchemaProps } from '../types/index.js';

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** The definition name of a custom kind: the group reversed, then version and kind (com.example.stable.v1.CronTab). */
export const customDefinitionName = (group: string, version: string, kind: string): string =>
  `${group.split('.').reverse().join('.')}.${version}.${kind}`;

/** One group-version's document, from its served custom resources and their schemas. */
export function customResourceOpenAPIV3(
  entries: readonly { info: ResourceInfo; schema: JSONSchemaProps | undefined }[],
): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = v3SchemasFrom([OBJECT_META]);
  for (const { info, schema } of entries) {
    const name = customDefinitionName(info.group, info.version, info.kind);
    const s = structuredClone(schema ?? { type: 'object' }) as Record<string, unknown>;
    const props = { ...((s.properties as Record<string, unknown> | undefined) ?? {}) };
    props.apiVersion = {
      type: 'string',
      description:
        'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.',
    };
    props.kind = {
      type: 'string',
      description:
        'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to.',
    };
    props.metadata = { allOf: [{ $ref: `#/components/schemas/${OBJECT_META}` }], default: {} };
    s.properties = props;
    s['x-kubernetes-group-version-kind'] = [{ group: info.group, kind: info.kind, version: info.version }];
    schemas[name] = s;
    Object.assign(paths, resourcePaths(info, `#/components/schemas/${name}`));
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' },
    paths: JSON.parse(JSON.stringify(paths)) as unknown,
    components: { schemas },
  };
}
