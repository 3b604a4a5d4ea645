/**
 * NodeRestriction, as upstream's plugin/pkg/admission/noderestriction: a kubelet (`system:node:<name>` in
 * system:nodes) may write only what is its own. Its Node: only under its name, without changing its taints
 * or ownerReferences, and with labels only from the kubelet's set (never under node-restriction.kubernetes.io/);
 * its Lease in kube-node-lease; mirror pods bound to it that reference nothing; the status of, evictions of,
 * deletes of and tokens for pods bound to it. Every other user passes at the cost of one identity check.
 */
import { forbidden, notFound, semanticEqual } from '../../api/index.js';
import { MIRROR_POD_ANNOTATION, nodeIdentity, podRefs } from '../authorization/index.js';
import type { Obj } from '../object.js';
import type { GenericStore } from '../registry/store.js';
import type { AdmissionPlugin, Attributes } from './chain.js';

// The labels a kubelet may set on its Node (k8s.io/kubelet's kubeletLabels) and the namespaces it may use.
const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
]);
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];
const NODE_RESTRICTION_NAMESPACE = 'node-restriction.kubernetes.io';

/** Builds the plugin; `store` gives the pods and nodes stores it reads (from the watch cache, as upstream's listers). */
export function nodeRestriction(store: (resource: string) => GenericStore): AdmissionPlugin {
  const lookup = (resource: string, namespace: string | undefined, name: string) =>
    cachedGet(store(resource), namespace, name);
  return {
    name: 'NodeRestriction',
    async admit(a) {
      const node = nodeIdentity(a.userInfo);
      if (node === undefined) return;
      if (node === '') throw deny(a, `could not determine node from user ${JSON.stringify(a.userInfo!.username)}`);
      switch (a.resource) {
        case 'pods':
          return admitPod(node, a, lookup);
        case 'nodes':
          return admitNode(node, a);
        case 'serviceaccounts':
          return admitServiceAccount(node, a, lookup);
        case 'leases':
          return admitLease(node, a);
      }
    },
  };
}

type Lookup = (resource: string, namespace: string | undefined, name: string) => Promise<Obj>;

const GROUPS: Record<string, string> = { leases: 'coordination.k8s.io' };

// upstream's admission.NewForbidden: the object's name (or generateName), else "Unknown".
function deny(a: Attributes, why: string): Error {
  const m = (a.object?.metadata ?? {}) as Obj;
  const name =
    typeof m.name === 'string' && m.name !== ''
      ? m.name
      : typeof m.generateName === 'string' && m.generateName !== ''
        ? m.generateName
        : 'Unknown';
  return forbidden({ group: GROUPS[a.resource] ?? '', resource: a.resource }, name, why);
}

async function admitPod(node: string, a: Attributes, lookup: Lookup): Promise<void> {
  const q = JSON.stringify(node);
  switch (a.subresource) {
    case '':
      if (a.operation === 'CREATE') return admitMirrorPod(node, a, lookup);
      if (a.operation === 'DELETE') {
        const pod = await lookup('pods', a.namespace, a.name);
        if (nodeNameOf(pod) !== node) throw deny(a, `node ${q} can only delete pods with spec.nodeName set to itself`);
        return;
      }
      throw deny(
        a,
        `unexpected operation ${JSON.stringify(a.operation)}, node ${q} can only create and delete mirror pods`,
      );
    case 'status': {
      if (a.operation !== 'UPDATE') throw deny(a, `unexpected operation ${JSON.stringify(a.operation)}`);
      if (nodeNameOf(a.oldObject) !== node)
        throw deny(a, `node ${q} can only update pod status for pods with spec.nodeName set to itself`);
      if (!semanticEqual(a.oldObject?.metadata?.labels ?? {}, a.object?.metadata?.labels ?? {}))
        throw deny(a, `node ${q} cannot update labels through pod status`);
      return;
    }
    case 'eviction': {
      if (a.operation !== 'CREATE') throw deny(a, `unexpected operation ${a.operation}`);
      const podName = a.name !== '' ? a.name : String(a.object?.metadata?.name ?? '');
      if (podName === '') throw deny(a, 'could not determine pod from request data');
      const pod = await lookup('pods', a.namespace, podName);
      if (nodeNameOf(pod) !== node) throw deny(a, `node ${node} can only evict pods with spec.nodeName set to itself`);
      return;
    }
    default:
      throw deny(
        a,
        `unexpected pod subresource ${JSON.stringify(a.subresource)}, only 'status' and 'eviction' are allowed`,
      );
  }
}

// A node may create only a mirror pod of its own, owned by its Node, that references no other object.
async function admitMirrorPod(node: string, a: Attributes, lookup: Lookup): Promise<void> {
  const q = JSON.stringify(node);
  const pod = a.object ?? {};
  const annotations = (pod.metadata?.annotations ?? {}) as Obj;
  if (!(MIRROR_POD_ANNOTATION in annotations))
    throw deny(
      a,
      `pod does not have ${JSON.stringify(MIRROR_POD_ANNOTATION)} annotation, node ${q} can only create mirror pods`,
    );
  if (nodeNameOf(pod) !== node) throw deny(a, `node ${q} can only create pods with spec.nodeName set to itself`);
  const owners = Array.isArray(pod.metadata?.ownerReferences) ? (pod.metadata.ownerReferences as Obj[]) : [];
  if (owners.length > 1) throw deny(a, `node ${q} can only create pods with a single owner reference set to itself`);
  const owner = owners[0];
  if (owner === undefined || owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node)
    throw deny(a, `node ${q} can only create pods with an owner reference set to itself`);
  if (owner.controller !== true)
    throw deny(a, `node ${q} can only create pods with a controller owner reference set to itself`);
  if (owner.blockOwnerDeletion === true)
    throw deny(a, `node ${q} must not set blockOwnerDeletion on an owner reference`);
  const uid = String((await lookup('nodes', undefined, node)).metadata?.uid ?? '');
  if (owner.uid !== uid) throw deny(a, `node ${node} UID mismatch: expected ${String(owner.uid)} got ${uid}`);
  const refs = podRefs(pod)!;
  if (refs.serviceAccountName !== '') throw deny(a, `node ${q} can not create pods that reference a service account`);
  if (refs.secrets.length > 0) throw deny(a, `node ${q} can not create pods that reference secrets`);
  if (refs.configMaps.length > 0) throw deny(a, `node ${q} can not create pods that reference configmaps`);
  const volumes = Array.isArray(pod.spec?.volumes) ? (pod.spec.volumes as Obj[]) : [];
  if (volumes.some((v) => (v.projected?.sources as Obj[] | undefined)?.some((s) => s.clusterTrustBundle !== undefined)))
    throw deny(a, `node ${q} can not create pods that reference clustertrustbundles`);
  if (volumes.some((v) => v.persistentVolumeClaim !== undefined))
    throw deny(a, `node ${q} can not create pods that reference persistentvolumeclaims`);
}

function admitNode(node: string, a: Attributes): void {
  const q = JSON.stringify(node);
  const name = a.operation === 'CREATE' ? String(a.object?.metadata?.name ?? '') : a.name;
  if (name !== node) throw deny(a, `node ${q} is not allowed to modify node ${JSON.stringify(name)}`);
  if (a.operation === 'CREATE') {
    if (a.object?.spec?.configSource != null)
      throw deny(a, `node ${q} is not allowed to create pods with a non-nil configSource`);
    const bad = forbiddenLabels(labelsOf(a.object), {});
    if (bad.length > 0) throw deny(a, `node ${q} is not allowed to set the following labels: ${bad.join(', ')}`);
    if (listOf(a.object?.metadata?.ownerReferences).length > 0)
      throw deny(a, `node ${q} is not allowed to set ownerReferences`);
  } else if (a.operation === 'UPDATE') {
    const next = a.object?.spec?.configSource;
    if (next != null && !semanticEqual(next, a.oldObject?.spec?.configSource))
      throw deny(a, `node ${q} is not allowed to update configSource to a new non-nil configSource`);
    if (!semanticEqual(listOf(a.object?.spec?.taints), listOf(a.oldObject?.spec?.taints)))
      throw deny(a, `node ${q} is not allowed to modify taints`);
    if (!semanticEqual(listOf(a.object?.metadata?.ownerReferences), listOf(a.oldObject?.metadata?.ownerReferences)))
      throw deny(a, `node ${q} is not allowed to modify ownerReferences`);
    const bad = forbiddenLabels(labelsOf(a.object), labelsOf(a.oldObject));
    if (bad.length > 0) throw deny(a, `is not allowed to modify labels: ${bad.join(', ')}`);
  }
}

// TokenRequests from a node must be bound to a pod (with its uid) that runs on that node.
async function admitServiceAccount(node: string, a: Attributes, lookup: Lookup): Promise<void> {
  if (a.operation !== 'CREATE' || a.subresource !== 'token') return;
  const ref = a.object?.spec?.boundObjectRef as Obj | undefined;
  if (ref == null || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || typeof ref.name !== 'string' || ref.name === '')
    throw deny(a, 'node requested token not bound to a pod');
  if (typeof ref.uid !== 'string' || ref.uid === '')
    throw deny(a, 'node requested token with a pod binding without a uid');
  const pod = await lookup('pods', a.namespace, ref.name);
  if (ref.uid !== pod.metadata?.uid)
    throw deny(
      a,
      `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  if (nodeNameOf(pod) !== node) throw deny(a, 'node requested token bound to a pod scheduled on a different node');
}

function admitLease(node: string, a: Attributes): void {
  if (a.namespace !== 'kube-node-lease')
    throw deny(a, 'can only access leases in the "kube-node-lease" system namespace');
  const name = a.operation === 'CREATE' ? a.object?.metadata?.name : a.name;
  if (name !== node) throw deny(a, 'can only access node lease with the same name as the requesting node');
}

// Label keys added, removed or changed that a kubelet may not touch (upstream's getForbiddenLabels), sorted.
function forbiddenLabels(next: Record<string, string>, old: Record<string, string>): string[] {
  const bad: string[] = [];
  for (const k of new Set([...Object.keys(next), ...Object.keys(old)])) {
    if (next[k] === old[k]) continue;
    const ns = k.includes('/') ? k.slice(0, k.indexOf('/')) : '';
    const restricted = ns === NODE_RESTRICTION_NAMESPACE || ns.endsWith(`.${NODE_RESTRICTION_NAMESPACE}`);
    const kubernetes = ['kubernetes.io', 'k8s.io'].some((d) => ns === d || ns.endsWith(`.${d}`));
    const kubelet = KUBELET_LABELS.has(k) || KUBELET_LABEL_NAMESPACES.some((d) => ns === d || ns.endsWith(`.${d}`));
    if (restricted || (kubernetes && !kubelet)) bad.push(k);
  }
  return bad.sort();
}

const labelsOf = (o: Obj | null): Record<string, string> => (o?.metadata?.labels ?? {}) as Record<string, string>;
const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const nodeNameOf = (pod: Obj | null): string => String(pod?.spec?.nodeName ?? '');

// From the watch cache when it holds the object (upstream reads listers); otherwise from storage, 404 if missing.
async function cachedGet(store: GenericStore, namespace: string | undefined, name: string): Promise<Obj> {
  try {
    return await store.getCached(namespace, name);
  } catch {
    throw notFound(store.gr, name);
  }
}
