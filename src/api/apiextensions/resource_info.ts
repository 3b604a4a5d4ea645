/** The scheme entries an established CustomResourceDefinition adds: one ResourceInfo per served version. */
import type { ResourceInfo, SubresourceInfo } from '../registry.js';
import type { CustomResourceDefinition, CustomResourceDefinitionVersion } from '../types/index.js';

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const SUB_VERBS = ['get', 'patch', 'update'];

/** Upstream's etcd key prefix of a custom resource: `/registry/<group>/<plural>/`. */
export const customResourcePrefix = (group: string, plural: string): string => `/registry/${group}/${plural}/`;

/** The ResourceInfo of one served version of a CRD (its names as accepted). */
export function customResourceInfo(crd: CustomResourceDefinition, v: CustomResourceDefinitionVersion): ResourceInfo {
  const { group, names } = crd.spec;
  const subresources: SubresourceInfo[] = [];
  if (v.subresources?.status !== undefined)
    subresources.push({ name: 'status', group, version: v.name, kind: names.kind, verbs: SUB_VERBS });
  if (v.subresources?.scale !== undefined)
    subresources.push({ name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: SUB_VERBS });
  return {
    group,
    version: v.name,
    kind: names.kind,
    listKind: names.listKind ?? `${names.kind}List`,
    resource: names.plural,
    singularName: names.singular ?? names.kind.toLowerCase(),
    shortNames: names.shortNames ?? [],
    namespaced: crd.spec.scope === 'Namespaced',
    verbs: ALL_VERBS,
    categories: names.categories ?? [],
    subresources,
    storagePrefix: customResourcePrefix(group, names.plural),
    custom: true,
  };
}

/** The version objects are stored in (exactly one, by validation). */
export function storageVersion(crd: CustomResourceDefinition): CustomResourceDefinitionVersion {
  return crd.spec.versions.find((v) => v.storage) ?? crd.spec.versions[0];
}
