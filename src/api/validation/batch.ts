/**
 * batch/v1 Job validation: counts non-negative, selector matching the
 * template, restartPolicy OnFailure or Never, and an immutable selector and
 * template on update.
 */
import { nameIsDNSSubdomain } from '../meta.js';
import type { KubeObject } from '../types.js';
import { immutable, notSupported, required, validateNonnegative, validatePositive, type ErrorList } from './field.js';
import { obj, type Obj } from './common.js';
import { validateSelectorAndTemplate } from './apps.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { semanticEqual } from './semantic.js';

function validateJobSpec(spec: Obj): ErrorList {
  const errs: ErrorList = [];
  for (const f of ['parallelism', 'completions', 'backoffLimit', 'ttlSecondsAfterFinished'])
    errs.push(...validateNonnegative(spec[f], `spec.${f}`));
  errs.push(...validatePositive(spec.activeDeadlineSeconds, 'spec.activeDeadlineSeconds'));
  const mode = spec.completionMode as string | undefined;
  if (mode !== undefined && mode !== 'NonIndexed' && mode !== 'Indexed')
    errs.push(notSupported('spec.completionMode', mode, ['NonIndexed', 'Indexed']));
  if (mode === 'Indexed' && (spec.completions === undefined || spec.completions === null))
    errs.push(required('spec.completions', 'when completion mode is Indexed'));
  // The strategy generates the selector before validation unless manualSelector is true.
  errs.push(...validateSelectorAndTemplate(spec, 'job', ['OnFailure', 'Never']));
  return errs;
}

/** Validates a Job on create. */
export const validateJob = (job: KubeObject): ErrorList => [
  ...validateObjectMeta(job.metadata, true, nameIsDNSSubdomain),
  ...validateJobSpec(obj(job.spec)),
];

/** Validates a Job update: selector, template and completionMode are immutable. */
export function validateJobUpdate(job: KubeObject, old: KubeObject): ErrorList {
  const spec = obj(job.spec);
  const oldSpec = obj(old.spec);
  const errs = [...validateObjectMetaUpdate(job.metadata, old.metadata), ...validateJobSpec(spec)];
  if (!semanticEqual(spec.selector, oldSpec.selector)) errs.push(immutable('spec.selector', spec.selector));
  if (!semanticEqual(spec.template, oldSpec.template)) errs.push(immutable('spec.template', spec.template));
  if ((spec.completionMode ?? 'NonIndexed') !== (oldSpec.completionMode ?? 'NonIndexed'))
    errs.push(immutable('spec.completionMode', spec.completionMode));
  return errs;
}
