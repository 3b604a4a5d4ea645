/**
 * The pod a Job creates from its template, like the Job controller's
 * createPod plus addCompletionIndexEnvVariables: an owner reference to the
 * Job, and for Indexed Jobs the completion index as annotation, label,
 * hostname and the JOB_COMPLETION_INDEX variable in every container.
 */
import { newControllerRef } from '../controllerutil/index.js';
import { JOB_COMPLETION_INDEX, JOB_COMPLETION_INDEX_ENV, KIND_JOB } from './constants.js';
import type { Job, Pod, PodSpec } from '../../api/index.js';

/** A new pod for `job`; `index` is set for Indexed Jobs. */
export function podFromTemplate(job: Job, index: number | undefined): Pod {
  const t = job.spec?.template ?? {};
  const md = t.metadata ?? {};
  const name = job.metadata!.name!;
  const labels: Record<string, string> = { ...md.labels };
  const annotations: Record<string, string> = { ...md.annotations };
  // A template without a spec is passed on as is; the API server's validation rejects the pod.
  const spec = structuredClone(t.spec ?? ({} as PodSpec));
  if (index !== undefined) {
    annotations[JOB_COMPLETION_INDEX] = String(index);
    labels[JOB_COMPLETION_INDEX] = String(index);
    spec.hostname = `${name}-${index}`;
    for (const key of ['containers', 'initContainers'] as const) {
      for (const c of spec[key] ?? []) {
        if ((c.env ?? []).some((e) => e.name === JOB_COMPLETION_INDEX_ENV)) continue;
        c.env = [
          ...(c.env ?? []),
          {
            name: JOB_COMPLETION_INDEX_ENV,
            valueFrom: { fieldRef: { fieldPath: `metadata.labels['${JOB_COMPLETION_INDEX}']` } },
          },
        ];
      }
    }
  }
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: index !== undefined ? `${name}-${index}-` : `${name}-`,
      namespace: job.metadata!.namespace!,
      labels,
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      ...(md.finalizers !== undefined ? { finalizers: [...md.finalizers] } : {}),
      ownerReferences: [newControllerRef(job, KIND_JOB)],
    },
    spec,
  };
}
