/**
 * Per-resource selectable fields, like upstream's ToSelectableFields /
 * GetAttrs in pkg/registry/<group>/<resource>/strategy.go. Every value is a
 * string; a missing field reads as "".
 */

/** Reads one selectable field from an object. */
export type FieldGetter = (obj: unknown) => string;

// Walks a dotted path through plain JSON; booleans and numbers print like Go's strconv.
function at(...path: string[]): FieldGetter {
  return (obj) => {
    let v: unknown = obj;
    for (const p of path) {
      if (typeof v !== 'object' || v === null) return '';
      v = (v as Record<string, unknown>)[p];
    }
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    return '';
  };
}

// Fields whose zero value upstream prints rather than omits.
const atBool = (...path: string[]): FieldGetter => {
  const g = at(...path);
  return (o) => g(o) || 'false';
};
const atInt = (...path: string[]): FieldGetter => {
  const g = at(...path);
  return (o) => g(o) || '0';
};

const PER_RESOURCE: Record<string, Record<string, FieldGetter>> = {
  pods: {
    'spec.nodeName': at('spec', 'nodeName'),
    'spec.restartPolicy': at('spec', 'restartPolicy'),
    'spec.schedulerName': at('spec', 'schedulerName'),
    'spec.serviceAccountName': at('spec', 'serviceAccountName'),
    'spec.hostNetwork': atBool('spec', 'hostNetwork'),
    'status.phase': at('status', 'phase'),
    // Like upstream, the first of status.podIPs (it equals status.podIP when both are set).
    'status.podIP': (o) => at('status', 'podIPs', '0', 'ip')(o) || at('status', 'podIP')(o),
    'status.nominatedNodeName': at('status', 'nominatedNodeName'),
  },
  nodes: { 'spec.unschedulable': atBool('spec', 'unschedulable') },
  events: {
    'involvedObject.kind': at('involvedObject', 'kind'),
    'involvedObject.namespace': at('involvedObject', 'namespace'),
    'involvedObject.name': at('involvedObject', 'name'),
    'involvedObject.uid': at('involvedObject', 'uid'),
    'involvedObject.apiVersion': at('involvedObject', 'apiVersion'),
    'involvedObject.resourceVersion': at('involvedObject', 'resourceVersion'),
    'involvedObject.fieldPath': at('involvedObject', 'fieldPath'),
    reason: at('reason'),
    reportingComponent: at('reportingComponent'),
    source: at('source', 'component'),
    type: at('type'),
  },
  secrets: { type: at('type') },
  namespaces: { 'status.phase': at('status', 'phase') },
  replicasets: { 'status.replicas': atInt('status', 'replicas') },
  jobs: { 'status.successful': atInt('status', 'succeeded') },
};

const cache = new Map<string, Record<string, FieldGetter>>();

/** The getters for every selectable field of a resource (metadata.name, metadata.namespace if namespaced, plus its own). */
export function selectableFieldGetters(resource: string, namespaced = true): Record<string, FieldGetter> {
  const key = `${resource}/${namespaced}`;
  let g = cache.get(key);
  if (!g) {
    g = { 'metadata.name': at('metadata', 'name') };
    if (namespaced) g['metadata.namespace'] = at('metadata', 'namespace');
    Object.assign(g, PER_RESOURCE[resource] ?? {});
    cache.set(key, g);
  }
  return g;
}

/** The selectable field map of one object, for field-selector matching and watch-cache indexes (spec.nodeName). */
export function selectableFields(resource: string, obj: unknown, namespaced = true): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [f, get] of Object.entries(selectableFieldGetters(resource, namespaced))) out[f] = get(obj);
  return out;
}

/** The field labels a resource accepts in fieldSelector. */
export const supportedFieldLabels = (resource: string, namespaced = true): string[] =>
  Object.keys(selectableFieldGetters(resource, namespaced));
