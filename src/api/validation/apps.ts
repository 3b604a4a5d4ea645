/**
 * apps/v1 validation: Deployment and ReplicaSet (selector required and
 * matching the template labels, replicas >= 0, rolling-update parameters),
 * and ControllerRevision (data required and immutable, revision >= 0).
 */
import { fromLabelSelector } from '../labels.js';
import { nameIsDNSSubdomain } from '../meta.js';
import { isObject, type KubeObject } from '../types.js';
import {
  child,
  forbidden,
  immutable,
  invalidValue,
  notSupported,
  required,
  validateNonnegative,
  type ErrorList,
} from './field.js';
import {
  isEmptySelector,
  obj,
  scaledIntOrPercent,
  validateIntOrPercent,
  validateLabelSelector,
  type Obj,
} from './common.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { validatePodTemplateSpec } from './pod.js';
import { semanticEqual } from './semantic.js';

/** Selector plus template checks shared by workloads, like ValidatePodTemplateSpecForReplicaSet. */
export function validateSelectorAndTemplate(spec: Obj, kind: string, restartPolicies: string[]): ErrorList {
  const errs: ErrorList = [];
  if (spec.selector === undefined || spec.selector === null) errs.push(required('spec.selector'));
  else {
    errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
    if (isEmptySelector(spec.selector))
      errs.push(invalidValue('spec.selector', spec.selector, `empty selector is invalid for ${kind}`));
  }
  const template = obj(spec.template);
  const labels = obj(template.metadata).labels as Record<string, string> | undefined;
  if (isObject(spec.selector) && !errs.length) {
    let matches = true;
    try {
      const sel = fromLabelSelector(spec.selector);
      matches = sel.empty || sel.matches(labels);
    } catch {
      errs.push(invalidValue('spec.selector', spec.selector, 'invalid label selector'));
    }
    if (!matches)
      errs.push(
        invalidValue('spec.template.metadata.labels', labels ?? {}, '`selector` does not match template `labels`'),
      );
  }
  errs.push(...validatePodTemplateSpec(spec.template, 'spec.template', { restartPolicies }));
  return errs;
}

/**
 * Selector, template (restartPolicy Always, no activeDeadlineSeconds) and minReadySeconds of a long-running workload;
 * `kind` is the lower-case kind of the selector message, `Kind` upstream's spelling in the deadline message.
 */
export function validateLongRunningSpec(spec: Obj, kind: string, Kind: string): ErrorList {
  const errs = [
    ...validateNonnegative(spec.minReadySeconds, 'spec.minReadySeconds'),
    ...validateSelectorAndTemplate(spec, kind, ['Always']),
  ];
  const tspec = obj(obj(spec.template).spec);
  if (tspec.activeDeadlineSeconds !== undefined && tspec.activeDeadlineSeconds !== null)
    errs.push(
      forbidden('spec.template.spec.activeDeadlineSeconds', `activeDeadlineSeconds in ${Kind} is not Supported`),
    );
  return errs;
}

function validateReplicaSetLikeSpec(spec: Obj, kind: string): ErrorList {
  return [...validateNonnegative(spec.replicas, 'spec.replicas'), ...validateLongRunningSpec(spec, kind, 'ReplicaSet')];
}

/** Validates a Deployment on create. */
export function validateDeployment(d: KubeObject): ErrorList {
  const spec = obj(d.spec);
  const errs = [
    ...validateObjectMeta(d.metadata, true, nameIsDNSSubdomain),
    ...validateReplicaSetLikeSpec(spec, 'deployment'),
  ];
  const strategy = obj(spec.strategy);
  const ru = strategy.rollingUpdate;
  if (strategy.type === 'Recreate') {
    if (ru !== undefined && ru !== null)
      errs.push(forbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'"));
  } else if (strategy.type === 'RollingUpdate') {
    if (!isObject(ru)) errs.push(required('spec.strategy.rollingUpdate', 'this should be defaulted and never be nil'));
    else {
      errs.push(...validateIntOrPercent(ru.maxUnavailable, 'spec.strategy.rollingUpdate.maxUnavailable'));
      errs.push(...validateIntOrPercent(ru.maxSurge, 'spec.strategy.rollingUpdate.maxSurge'));
      // Both zero would let a rollout make no progress at all.
      if (scaledIntOrPercent(ru.maxSurge, 100, true) === 0 && scaledIntOrPercent(ru.maxUnavailable, 100, false) === 0)
        errs.push(
          invalidValue(
            'spec.strategy.rollingUpdate.maxUnavailable',
            ru.maxUnavailable,
            'may not be 0 when `maxSurge` is 0',
          ),
        );
    }
  } else errs.push(notSupported('spec.strategy.type', strategy.type ?? '', ['Recreate', 'RollingUpdate']));
  errs.push(...validateNonnegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  const pds = spec.progressDeadlineSeconds as number | undefined;
  if (pds !== undefined && pds !== null) {
    errs.push(...validateNonnegative(pds, 'spec.progressDeadlineSeconds'));
    if (pds <= ((spec.minReadySeconds as number | undefined) ?? 0))
      errs.push(invalidValue('spec.progressDeadlineSeconds', pds, 'must be greater than minReadySeconds'));
  }
  return errs;
}

/** spec.selector may not change (apps/v1). */
export function selectorImmutable(o: KubeObject, old: KubeObject): ErrorList {
  const sel = obj(o.spec).selector;
  return semanticEqual(sel, obj(old.spec).selector) ? [] : [immutable('spec.selector', sel)];
}

/** Validates a Deployment update: apps/v1 selectors are immutable. */
export const validateDeploymentUpdate = (d: KubeObject, old: KubeObject): ErrorList => [
  ...validateObjectMetaUpdate(d.metadata, old.metadata),
  ...validateDeployment(d).filter((e) => !e.field.startsWith('metadata.')),
  ...selectorImmutable(d, old),
];

/** Validates a ReplicaSet on create. */
export const validateReplicaSet = (rs: KubeObject): ErrorList => [
  ...validateObjectMeta(rs.metadata, true, nameIsDNSSubdomain),
  ...validateReplicaSetLikeSpec(obj(rs.spec), 'replicaset'),
];

/** Validates a ReplicaSet update: apps/v1 selectors are immutable. */
export const validateReplicaSetUpdate = (rs: KubeObject, old: KubeObject): ErrorList => [
  ...validateObjectMetaUpdate(rs.metadata, old.metadata),
  ...validateReplicaSetLikeSpec(obj(rs.spec), 'replicaset'),
  ...selectorImmutable(rs, old),
];

/** Validates a ReplicationController on create and update: its label-map selector is checked as matchLabels (v1 lets it change). */
export function validateReplicationController(rc: KubeObject): ErrorList {
  const spec = obj(rc.spec);
  const sel = isObject(spec.selector) && Object.keys(spec.selector).length ? { matchLabels: spec.selector } : undefined;
  return [
    ...validateObjectMeta(rc.metadata, true, nameIsDNSSubdomain),
    ...validateReplicaSetLikeSpec({ ...spec, selector: sel }, 'replicationcontroller'),
  ];
}

/** Each named status count of `o` is non-negative (the apps/v1 status validators). */
export function validateStatusCounts(o: KubeObject, fields: readonly string[]): ErrorList {
  const s = obj(o.status);
  return fields.flatMap((f) => validateNonnegative(s[f], child('status', f)));
}

/** Validates a Deployment or ReplicaSet status (counts non-negative). */
export const validateReplicaStatus = (o: KubeObject): ErrorList =>
  validateStatusCounts(o, [
    'replicas',
    'readyReplicas',
    'availableReplicas',
    'updatedReplicas',
    'fullyLabeledReplicas',
    'unavailableReplicas',
    'observedGeneration',
  ]);

/** Validates a ControllerRevision, like ValidateControllerRevision. */
export function validateControllerRevision(cr: KubeObject): ErrorList {
  const o = cr as Obj;
  const errs = validateObjectMeta(cr.metadata, true, nameIsDNSSubdomain);
  if (o.data === undefined || o.data === null) errs.push(required('data', 'data is mandatory'));
  errs.push(...validateNonnegative(o.revision, 'revision'));
  return errs;
}

/** A ControllerRevision's data never changes; only its revision number may (a rollback renumbers it). */
export function validateControllerRevisionUpdate(cr: KubeObject, old: KubeObject): ErrorList {
  const data = (cr as Obj).data;
  return semanticEqual(data, (old as Obj).data) ? [] : [immutable('data', data)];
}
