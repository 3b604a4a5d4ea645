/**
 * apps/v1 DaemonSet validation, like upstream's ValidateDaemonSet: the
 * long-running workload template, and an update strategy of RollingUpdate
 * (exactly one of maxUnavailable and maxSurge non-zero) or OnDelete.
 */
import { nameIsDNSSubdomain } from '../meta.js';
import { isObject, type KubeObject } from '../types.js';
import { validateLongRunningSpec, validateStatusCounts } from './apps.js';
import { scaledIntOrPercent, validateIntOrPercent } from './common.js';
import { invalidValue, notSupported, required, validateNonnegative, type ErrorList } from './field.js';
import { validateObjectMeta } from './objectmeta.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isObject(v) ? v : {});
const PATH = 'spec.updateStrategy';

function validateUpdateStrategy(strategy: Obj): ErrorList {
  const errs: ErrorList = [];
  if (strategy.type === 'OnDelete') return errs;
  if (strategy.type !== 'RollingUpdate')
    return [notSupported(`${PATH}.type`, strategy.type ?? '', ['OnDelete', 'RollingUpdate'])];
  const ru = strategy.rollingUpdate;
  if (!isObject(ru)) return [required(`${PATH}.rollingUpdate`)];
  errs.push(...validateIntOrPercent(ru.maxUnavailable, `${PATH}.rollingUpdate.maxUnavailable`));
  errs.push(...validateIntOrPercent(ru.maxSurge, `${PATH}.rollingUpdate.maxSurge`));
  // A percentage's own value decides here, as upstream's getIntOrPercentValue does.
  const hasUnavailable = scaledIntOrPercent(ru.maxUnavailable, 100, true) !== 0;
  const hasSurge = scaledIntOrPercent(ru.maxSurge, 100, true) !== 0;
  if (hasUnavailable && hasSurge)
    errs.push(
      invalidValue(`${PATH}.rollingUpdate.maxSurge`, ru.maxSurge, 'may not be set when maxUnavailable is non-zero'),
    );
  else if (!hasUnavailable && !hasSurge)
    errs.push(required(`${PATH}.rollingUpdate.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
  return errs;
}

/** Validates a DaemonSet on create (and, with the selector rule added, on update). */
export function validateDaemonSet(ds: KubeObject): ErrorList {
  const spec = obj(ds.spec);
  return [
    ...validateObjectMeta(ds.metadata, true, nameIsDNSSubdomain),
    ...validateLongRunningSpec(spec, 'daemonset', 'DaemonSet'),
    ...validateUpdateStrategy(obj(spec.updateStrategy)),
    ...validateNonnegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'),
  ];
}

/** Validates a DaemonSet status: every count non-negative. */
export const validateDaemonSetStatus = (ds: KubeObject): ErrorList =>
  validateStatusCounts(ds, [
    'currentNumberScheduled',
    'numberMisscheduled',
    'desiredNumberScheduled',
    'numberReady',
    'observedGeneration',
    'updatedNumberScheduled',
    'numberAvailable',
    'numberUnavailable',
    'collisionCount',
  ]);
