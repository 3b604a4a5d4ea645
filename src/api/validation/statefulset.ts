/**
 * apps/v1 StatefulSet validation, like upstream's ValidateStatefulSet: pod
 * management and update strategies, the claim retention policy, the
 * long-running workload template; on update only replicas, ordinals,
 * template, updateStrategy, persistentVolumeClaimRetentionPolicy and
 * minReadySeconds may change.
 */
import { nameIsDNSSubdomain } from '../meta.js';
import { isObject, type KubeObject } from '../types.js';
import { validateLongRunningSpec, validateStatusCounts } from './apps.js';
import { validateIntOrPercent } from './common.js';
import { forbidden, invalidValue, notSupported, required, validateNonnegative, type ErrorList } from './field.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { semanticEqual } from './semantic.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isObject(v) ? v : {});

function validatePodManagementPolicy(v: unknown): ErrorList {
  if (v === 'OrderedReady' || v === 'Parallel') return [];
  if (v === undefined || v === null || v === '') return [required('spec.podManagementPolicy')];
  return [notSupported('spec.podManagementPolicy', v, ['OrderedReady', 'Parallel'])];
}

function validateUpdateStrategy(strategy: Obj): ErrorList {
  const path = 'spec.updateStrategy';
  const ru = strategy.rollingUpdate;
  switch (strategy.type) {
    case 'OnDelete':
      return ru === undefined || ru === null
        ? []
        : [invalidValue(`${path}.rollingUpdate`, ru, "only allowed for updateStrategy 'RollingUpdate'")];
    case 'RollingUpdate':
      if (!isObject(ru)) return [];
      return [
        ...validateNonnegative(ru.partition, `${path}.rollingUpdate.partition`),
        ...validateIntOrPercent(ru.maxUnavailable, `${path}.rollingUpdate.maxUnavailable`),
      ];
    case undefined:
    case null:
    case '':
      return [required(`${path}.type`)];
    default:
      return [notSupported(`${path}.type`, strategy.type, ['OnDelete', 'RollingUpdate'])];
  }
}

function validateRetentionPolicy(policy: unknown): ErrorList {
  if (!isObject(policy)) return [];
  const errs: ErrorList = [];
  for (const f of ['whenDeleted', 'whenScaled']) {
    const v = policy[f];
    if (v !== undefined && v !== 'Retain' && v !== 'Delete')
      errs.push(notSupported(`spec.persistentVolumeClaimRetentionPolicy.${f}`, v, ['Retain', 'Delete']));
  }
  return errs;
}

function validateSpec(spec: Obj): ErrorList {
  return [
    ...validatePodManagementPolicy(spec.podManagementPolicy),
    ...validateUpdateStrategy(obj(spec.updateStrategy)),
    ...validateRetentionPolicy(spec.persistentVolumeClaimRetentionPolicy),
    ...validateNonnegative(spec.replicas, 'spec.replicas'),
    ...validateNonnegative(obj(spec.ordinals).start, 'spec.ordinals.start'),
    ...validateLongRunningSpec(spec, 'statefulset', 'StatefulSet'),
    ...validateNonnegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'),
  ];
}

/** Validates a StatefulSet on create. */
export const validateStatefulSet = (sts: KubeObject): ErrorList => [
  ...validateObjectMeta(sts.metadata, true, nameIsDNSSubdomain),
  ...validateSpec(obj(sts.spec)),
];

// The spec fields an update may change, as upstream's ValidateStatefulSetUpdate lists them.
const MUTABLE = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy'];

/** Validates a StatefulSet update: the spec again, and no change outside the mutable fields. */
export function validateStatefulSetUpdate(sts: KubeObject, old: KubeObject): ErrorList {
  const errs = [...validateObjectMetaUpdate(sts.metadata, old.metadata), ...validateSpec(obj(sts.spec))];
  const strip = (s: unknown): Obj => {
    const c = { ...obj(s) };
    for (const f of [...MUTABLE, 'minReadySeconds']) delete c[f];
    return c;
  };
  if (!semanticEqual(strip(sts.spec), strip(old.spec)))
    errs.push(
      forbidden(
        'spec',
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      ),
    );
  return errs;
}

/** Validates a StatefulSet status: counts non-negative, ready and current within replicas. */
export function validateStatefulSetStatus(sts: KubeObject): ErrorList {
  const s = obj(sts.status);
  const errs = validateStatusCounts(sts, [
    'replicas',
    'readyReplicas',
    'currentReplicas',
    'updatedReplicas',
    'availableReplicas',
    'observedGeneration',
    'collisionCount',
  ]);
  const replicas = typeof s.replicas === 'number' ? s.replicas : 0;
  for (const f of ['readyReplicas', 'currentReplicas', 'updatedReplicas'])
    if (typeof s[f] === 'number' && s[f] > replicas)
      errs.push(invalidValue(`status.${f}`, s[f], 'cannot be greater than status.replicas'));
  return errs;
}
