/**
 * Discovery documents built from the registry: legacy /api, /apis, /api[s]/G/V,
 * and the aggregated apidiscovery.k8s.io/v2 APIGroupDiscoveryList that kubectl
 * 1.29+ asks for (shapes in shared/reference/kubectl-wire.md).
 */
import {
  DISCOVERY_RESOURCES,
  groupVersionString,
  resourcesIn,
  servedGroupVersions,
  type ResourceInfo,
} from './registry.js';

/** The Content-Type to echo when serving the aggregated document; plain JSON makes kubectl see zero resources. */
export const AGGREGATED_DISCOVERY_CONTENT_TYPE = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/** What discovery lists: the built-in resources, then `extra` (custom resources). */
function listed(extra: readonly ResourceInfo[]): readonly ResourceInfo[] {
  return extra.length === 0 ? DISCOVERY_RESOURCES : [...DISCOVERY_RESOURCES, ...extra];
}

/** GET /api: the legacy core versions. */
export function apiVersions(serverAddress = ''): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupsWithVersions(extra: readonly ResourceInfo[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const { group, version } of servedGroupVersions(listed(extra))) {
    if (!group) continue;
    const vs = groups.get(group) ?? [];
    vs.push(version);
    groups.set(group, vs);
  }
  return groups;
}

/** GET /apis: every named group with its versions, the first listed being preferred; `extra` are custom resources. */
export function apiGroupList(extra: readonly ResourceInfo[] = []): Record<string, unknown> {
  const groups = [...groupsWithVersions(extra)].map(([name, versions]) => ({
    name,
    versions: versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
    preferredVersion: { groupVersion: `${name}/${versions[0]}`, version: versions[0] },
  }));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

/** GET /apis/<group>: one APIGroup, or undefined for an unknown group. */
export function apiGroup(group: string, extra: readonly ResourceInfo[] = []): Record<string, unknown> | undefined {
  const versions = groupsWithVersions(extra).get(group);
  if (!versions) return undefined;
  return {
    kind: 'APIGroup',
    apiVersion: 'v1',
    name: group,
    versions: versions.map((v) => ({ groupVersion: `${group}/${v}`, version: v })),
    preferredVersion: { groupVersion: `${group}/${versions[0]}`, version: versions[0] },
  };
}

/** GET /api/v1 or /apis/<g>/<v>: the APIResourceList, subresources listed as "pods/status"; undefined if not served. */
export function apiResourceList(
  group: string,
  version: string,
  extra: readonly ResourceInfo[] = [],
): Record<string, unknown> | undefined {
  const rs = resourcesIn(group, version, listed(extra));
  if (!rs.length) return undefined;
  const resources: Record<string, unknown>[] = [];
  for (const r of rs) {
    const entry: Record<string, unknown> = {
      name: r.resource,
      singularName: r.singularName,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: r.verbs,
    };
    if (r.shortNames.length) entry.shortNames = r.shortNames;
    if (r.categories.length) entry.categories = r.categories;
    resources.push(entry);
    for (const s of r.subresources) {
      const sub: Record<string, unknown> = {
        name: `${r.resource}/${s.name}`,
        singularName: '',
        namespaced: r.namespaced,
      };
      // Like upstream, group/version appear only when the subresource's kind lives elsewhere (pods/eviction is policy/v1).
      if (s.group !== r.group || s.version !== r.version) Object.assign(sub, { group: s.group, version: s.version });
      Object.assign(sub, { kind: s.kind, verbs: s.verbs });
      resources.push(sub);
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupVersionString(group, version), resources };
}

function discoveryResource(r: ResourceInfo): Record<string, unknown> {
  const out: Record<string, unknown> = {
    resource: r.resource,
    responseKind: { group: r.group, version: r.version, kind: r.kind },
    scope: r.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: r.singularName,
    verbs: r.verbs,
  };
  if (r.shortNames.length) out.shortNames = r.shortNames;
  if (r.categories.length) out.categories = r.categories;
  if (r.subresources.length) {
    out.subresources = r.subresources.map((s) => ({
      subresource: s.name,
      responseKind: { group: s.group, version: s.version, kind: s.kind },
      verbs: s.verbs,
    }));
  }
  return out;
}

/** The aggregated v2 document: `legacy` for GET /api (core group, no name), otherwise GET /apis. */
export function aggregatedDiscovery(legacy: boolean, extra: readonly ResourceInfo[] = []): Record<string, unknown> {
  const byGroup = new Map<string, string[]>();
  for (const { group, version } of servedGroupVersions(listed(extra))) {
    if ((group === '') !== legacy) continue;
    byGroup.set(group, [...(byGroup.get(group) ?? []), version]);
  }
  const items = [...byGroup].map(([group, versions]) => ({
    metadata: legacy ? {} : { name: group },
    versions: versions.map((version) => ({
      version,
      resources: resourcesIn(group, version, listed(extra)).map(discoveryResource),
      freshness: 'Current',
    })),
  }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items };
}
