/**
 * The EndpointSlice reconciler, like k8s.io/endpointslice's Reconciler:
 * compares a Service's existing slices with its desired endpoints, port
 * mapping by port mapping, and plans the fewest writes. Slices that lost or
 * changed endpoints are updated; new endpoints first fill those slices, then
 * the fullest unchanged slice they fit in, and only then new slices. A
 * Service with no endpoints keeps one empty placeholder slice. Planning is
 * pure; the controller performs the writes.
 */
import { deepCopy } from '../nodeutil/index.js';
import {
  ENDPOINTSLICE_CONTROLLER_MANAGED_BY,
  LABEL_HEADLESS,
  LABEL_MANAGED_BY,
  LABEL_SERVICE_NAME,
} from '../endpointutil/index.js';
import { endpointKey, endpointsEqual, portMapKey, type DesiredPortMapping } from './endpoint.js';
import type { Endpoint, EndpointPort, EndpointSlice, Service } from '../../api/index.js';

/** The writes one sync makes. */
export interface ReconcilePlan {
  toCreate: EndpointSlice[];
  toUpdate: EndpointSlice[];
  toDelete: EndpointSlice[];
  unchanged: EndpointSlice[];
}

/** The labels a managed slice carries: the Service's own, plus the service name, managed-by and headless labels. */
export function sliceLabels(svc: Service): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(svc.metadata?.labels ?? {}))
    if (k !== LABEL_SERVICE_NAME && k !== LABEL_MANAGED_BY && k !== LABEL_HEADLESS) labels[k] = v;
  labels[LABEL_SERVICE_NAME] = svc.metadata?.name ?? '';
  labels[LABEL_MANAGED_BY] = ENDPOINTSLICE_CONTROLLER_MANAGED_BY;
  if (svc.spec?.clusterIP === 'None') labels[LABEL_HEADLESS] = '';
  return labels;
}

const sameLabels = (a: Record<string, string> | undefined, b: Record<string, string>): boolean => {
  const ka = Object.keys(a ?? {});
  return ka.length === Object.keys(b).length && ka.every((k) => a![k] === b[k]);
};

/** True when `slice` is owned (as controller) by this incarnation of the Service. */
export function ownedBy(slice: EndpointSlice, svc: Service): boolean {
  return (slice.metadata?.ownerReferences ?? []).some(
    (o) => o.kind === 'Service' && o.uid === svc.metadata?.uid && o.controller === true,
  );
}

/** A new, unnamed slice of the Service (the server names it from generateName). */
export function newEndpointSlice(
  svc: Service,
  ports: EndpointPort[] | null,
  labels: Record<string, string>,
): EndpointSlice {
  const name = svc.metadata?.name ?? '';
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      generateName: `${name.slice(0, 62)}-`,
      namespace: svc.metadata?.namespace ?? '',
      labels: { ...labels },
      ownerReferences: [
        {
          apiVersion: 'v1',
          kind: 'Service',
          name,
          uid: svc.metadata?.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    addressType: 'IPv4',
    endpoints: [],
    ports,
  };
}

/** Plans the writes that turn `existing` (managed slices of the Service) into `desired`. */
export function reconcile(
  svc: Service,
  existing: readonly EndpointSlice[],
  desired: Map<string, DesiredPortMapping>,
  maxEndpointsPerSlice: number,
): ReconcilePlan {
  const labels = sliceLabels(svc);
  const plan: ReconcilePlan = { toCreate: [], toUpdate: [], toDelete: [], unchanged: [] };
  const existingByPorts = new Map<string, EndpointSlice[]>();
  for (const s of existing) {
    if (s.addressType !== 'IPv4' || !ownedBy(s, svc)) {
      plan.toDelete.push(s);
      continue;
    }
    const k = portMapKey(s.ports);
    existingByPorts.set(k, [...(existingByPorts.get(k) ?? []), s]);
  }
  for (const [k, mapping] of desired)
    reconcilePortMapping(plan, svc, existingByPorts.get(k) ?? [], mapping, labels, maxEndpointsPerSlice);
  // Port mappings no pod has any more: their slices go.
  for (const [k, slices] of existingByPorts) if (!desired.has(k)) plan.toDelete.push(...slices);
  keepPlaceholder(plan, svc, labels);
  reuseDeletedNames(plan);
  return plan;
}

function reconcilePortMapping(
  plan: ReconcilePlan,
  svc: Service,
  slices: EndpointSlice[],
  mapping: DesiredPortMapping,
  labels: Record<string, string>,
  max: number,
): void {
  const want = new Map(mapping.endpoints);
  const toUpdate: EndpointSlice[] = [];
  let unchanged: EndpointSlice[] = [];
  // 1. Existing slices keep the endpoints still wanted; a slice that lost or changed any is updated.
  for (const slice of slices) {
    const kept: Endpoint[] = [];
    let changed = !sameLabels(slice.metadata?.labels, labels);
    for (const ep of slice.endpoints ?? []) {
      const key = endpointKey(ep);
      const w = want.get(key);
      if (w === undefined) {
        changed = true;
        continue;
      }
      if (!endpointsEqual(ep, w)) changed = true;
      kept.push(w);
      want.delete(key);
    }
    if (!changed) unchanged.push(slice);
    else if (kept.length === 0) plan.toDelete.push(slice);
    else toUpdate.push(withEndpoints(slice, kept, labels));
  }
  // 2. New endpoints fill the slices already being updated, fullest first.
  const remaining = [...want.values()];
  toUpdate.sort((a, b) => b.endpoints.length - a.endpoints.length);
  for (const s of toUpdate)
    while (remaining.length > 0 && s.endpoints.length < max) s.endpoints.push(remaining.shift()!);
  // 3. The rest goes into the fullest unchanged slice it fits in, else into new slices.
  while (remaining.length > 0) {
    let fill: EndpointSlice | undefined;
    if (remaining.length < max && unchanged.length > 0) {
      const fits = unchanged
        .filter((s) => s.endpoints.length + remaining.length <= max)
        .sort((a, b) => b.endpoints.length - a.endpoints.length);
      if (fits[0] !== undefined) {
        unchanged = unchanged.filter((s) => s !== fits[0]);
        fill = withEndpoints(fits[0], [...fits[0].endpoints], labels);
        toUpdate.push(fill);
      }
    }
    if (fill === undefined) {
      fill = newEndpointSlice(svc, mapping.ports, labels);
      plan.toCreate.push(fill);
    }
    while (remaining.length > 0 && fill.endpoints.length < max) fill.endpoints.push(remaining.shift()!);
  }
  plan.toUpdate.push(...toUpdate);
  plan.unchanged.push(...unchanged);
}

function withEndpoints(slice: EndpointSlice, endpoints: Endpoint[], labels: Record<string, string>): EndpointSlice {
  // The old endpoints are replaced whole, so they are left out of the copy (they are most of a slice).
  const { endpoints: _replaced, ...rest } = slice;
  const copy = { ...deepCopy(rest), endpoints } as EndpointSlice;
  copy.metadata = { ...copy.metadata, labels: { ...labels } };
  return copy;
}

/** A Service without endpoints keeps exactly one empty slice, so consumers can tell "no endpoints" from "not yet synced". */
function keepPlaceholder(plan: ReconcilePlan, svc: Service, labels: Record<string, string>): void {
  if (plan.toCreate.length > 0 || plan.toUpdate.length > 0 || plan.unchanged.some((s) => s.endpoints.length > 0))
    return;
  if (plan.unchanged.length > 0) return;
  const i = plan.toDelete.findIndex(
    (s) =>
      s.endpoints.length === 0 &&
      (s.ports ?? []).length === 0 &&
      ownedBy(s, svc) &&
      sameLabels(s.metadata?.labels, labels),
  );
  if (i >= 0) plan.unchanged.push(...plan.toDelete.splice(i, 1));
  else plan.toCreate.push(newEndpointSlice(svc, null, labels));
}

/** Like the reconciler's finalize: a create and a delete in one sync become one update of the deleted slice's name. */
function reuseDeletedNames(plan: ReconcilePlan): void {
  for (;;) {
    const i = plan.toDelete.findIndex((s) => s.addressType === 'IPv4');
    if (plan.toCreate.length === 0 || i < 0) return;
    const old = plan.toDelete.splice(i, 1)[0]!;
    const created = plan.toCreate.shift()!;
    plan.toUpdate.push({
      ...created,
      metadata: {
        ...created.metadata,
        name: old.metadata?.name,
        generateName: undefined,
        resourceVersion: old.metadata?.resourceVersion,
      },
    });
  }
}
