/**
 * autoscaling/v2 HorizontalPodAutoscaler validation, like upstream's
 * ValidateHorizontalPodAutoscaler: a named scale target, minReplicas ≥ 1,
 * maxReplicas > 0 and ≥ minReplicas, and each metric of a known type.
 */
import { nameIsDNSSubdomain } from '../meta.js';
import { isObject, type KubeObject } from '../types.js';
import { child, index, invalidValue, notSupported, required, type ErrorList } from './field.js';
import { validateObjectMeta } from './objectmeta.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isObject(v) ? v : {});
const METRIC_TYPES = ['Object', 'Pods', 'Resource', 'ContainerResource', 'External'];
const SOURCE_FIELD: Record<string, string> = {
  Object: 'object',
  Pods: 'pods',
  Resource: 'resource',
  ContainerResource: 'containerResource',
  External: 'external',
};

function validateMetrics(metrics: unknown): ErrorList {
  const errs: ErrorList = [];
  if (!Array.isArray(metrics)) return errs;
  metrics.forEach((m: unknown, i) => {
    const path = index('spec.metrics', i);
    const type = obj(m).type;
    if (type === undefined || type === '')
      errs.push(required(child(path, 'type'), 'must specify a metric source type'));
    else if (!METRIC_TYPES.includes(type as string)) errs.push(notSupported(child(path, 'type'), type, METRIC_TYPES));
    else if (!isObject(obj(m)[SOURCE_FIELD[type as string]]))
      errs.push(
        required(child(path, SOURCE_FIELD[type as string]), `must populate information for the given metric source`),
      );
  });
  return errs;
}

/** Validates a HorizontalPodAutoscaler on create and update. */
export function validateHorizontalPodAutoscaler(hpa: KubeObject): ErrorList {
  const errs = validateObjectMeta(hpa.metadata, true, nameIsDNSSubdomain);
  const spec = obj(hpa.spec);
  const ref = obj(spec.scaleTargetRef);
  if (!ref.kind) errs.push(required('spec.scaleTargetRef.kind'));
  if (!ref.name) errs.push(required('spec.scaleTargetRef.name'));
  const min = spec.minReplicas;
  const max = spec.maxReplicas;
  if (typeof min === 'number' && min < 1)
    errs.push(invalidValue('spec.minReplicas', min, 'must be greater than or equal to 1'));
  if (typeof max !== 'number' || max < 1)
    errs.push(invalidValue('spec.maxReplicas', max ?? 0, 'must be greater than 0'));
  else if (typeof min === 'number' && max < min)
    errs.push(invalidValue('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  errs.push(...validateMetrics(spec.metrics));
  return errs;
}
