/**
 * The shape of the generated message table, the kinds a protobuf body may
 * carry, and the apimachinery messages that have their own JSON form.
 */

/** One field of a message: [field number, JSON name, type, FLAG bits]. A type is a scalar, a message's full name, or `map:<value type>` (keys are strings). */
export type FieldDescriptor = readonly [number, string, string, number];

/** Field facts from the Go types, which decide the JSON form as encoding/json would. */
export const FLAG = {
  /** A repeated field (a JSON array). */
  repeated: 1,
  /** `json:",omitempty"`: a zero scalar or an empty list or map is left out. */
  omitempty: 2,
  /** A Go pointer: present on the wire means present in JSON, even when zero. */
  pointer: 4,
  /** `json:",inline"`: the message's fields are merged into the parent object. */
  inline: 8,
} as const;

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/** Messages decoded by hand, as upstream's custom Marshal/Unmarshal and MarshalJSON methods define them. */
export const SPECIAL = {
  quantity: 'k8s.io.apimachinery.pkg.api.resource.Quantity',
  intOrString: 'k8s.io.apimachinery.pkg.util.intstr.IntOrString',
  rawExtension: 'k8s.io.apimachinery.pkg.runtime.RawExtension',
  time: `${META}.Time`,
  microTime: `${META}.MicroTime`,
  duration: `${META}.Duration`,
  fieldsV1: `${META}.FieldsV1`,
} as const;

/** The set of SPECIAL message names. */
export const SPECIAL_MESSAGES: ReadonlySet<string> = new Set(Object.values(SPECIAL));

/** The proto package of an API group version: "apps/v1" is k8s.io.api.apps.v1, "v1" is k8s.io.api.core.v1. */
export function protoPackage(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  if (slash < 0) return `k8s.io.api.core.${apiVersion}`;
  const group = apiVersion.slice(0, slash);
  const version = apiVersion.slice(slash + 1);
  if (group === 'meta.k8s.io') return `k8s.io.apimachinery.pkg.apis.meta.${version}`;
  // The package is the group's first label: rbac.authorization.k8s.io is k8s.io.api.rbac.
  return `k8s.io.api.${group.replace(/\.k8s\.io$/, '').split('.')[0]}.${version}`;
}

/** The kinds a request body may carry ("apiVersion Kind" to message), and the roots of the generated table. */
export const ROOT_KINDS: Readonly<Record<string, string>> = Object.fromEntries(
  [
    [
      'v1',
      [
        'Namespace',
        'Node',
        'Pod',
        'Service',
        'Endpoints',
        'Event',
        'ConfigMap',
        'Secret',
        'ServiceAccount',
        'Binding',
        'ResourceQuota',
        'LimitRange',
        'ReplicationController',
      ],
    ],
    ['coordination.k8s.io/v1', ['Lease']],
    ['discovery.k8s.io/v1', ['EndpointSlice']],
    ['apps/v1', ['Deployment', 'ReplicaSet']],
    ['autoscaling/v1', ['Scale']],
    ['autoscaling/v2', ['HorizontalPodAutoscaler']],
    ['batch/v1', ['Job', 'CronJob']],
    ['networking.k8s.io/v1', ['NetworkPolicy']],
    ['scheduling.k8s.io/v1', ['PriorityClass']],
    ['policy/v1', ['PodDisruptionBudget', 'Eviction']],
    ['authentication.k8s.io/v1', ['TokenRequest', 'SelfSubjectReview', 'TokenReview']],
    [
      'authorization.k8s.io/v1',
      ['SelfSubjectAccessReview', 'SelfSubjectRulesReview', 'SubjectAccessReview', 'LocalSubjectAccessReview'],
    ],
    ['rbac.authorization.k8s.io/v1', ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']],
    ['certificates.k8s.io/v1', ['CertificateSigningRequest']],
    ['meta.k8s.io/v1', ['DeleteOptions']],
  ].flatMap(([gv, kinds]) =>
    (kinds as string[]).map((k) => [`${gv as string} ${k}`, `${protoPackage(gv as string)}.${k}`]),
  ),
);
