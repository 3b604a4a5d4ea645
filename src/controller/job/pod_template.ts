/**
 * The pod a Job creates from its template, like the Job controller's
 * createPod plus addCompletionIndexEnvVariables: an owner reference to the
 * Job, and for Indexed Jobs the completion index as annotation, label,
 * hostname and the JOB_COMPLETION_INDEX variable in every container.
 */
import { newControllerRef } from '../controllerutil/index.js';
import { JOB_COMPLETION_INDEX, JOB_COMPLETION_INDEX_ENV, KIND_JOB, type Job, type JobPod } from './types.js';

type Container = { env?: { name: string; [k: string]: unknown }[]; [k: string]: unknown };

/** A new pod for `job`; `index` is set for Indexed Jobs. */
export function podFromTemplate(job: Job, index: number | undefined): JobPod {
  const t = job.spec?.template ?? {};
  const md = t.metadata ?? {};
  const name = job.metadata!.name!;
  const labels: Record<string, string> = { ...md.labels };
  const annotations: Record<string, string> = { ...md.annotations };
  const spec = structuredClone(t.spec ?? {});
  if (index !== undefined) {
    annotations[JOB_COMPLETION_INDEX] = String(index);
    labels[JOB_COMPLETION_INDEX] = String(index);
    spec.hostname = `${name}-${index}`;
    for (const key of ['containers', 'initContainers']) {
      for (const c of (spec[key] as Container[] | undefined) ?? []) {
        if ((c.env ?? []).some((e) => e.name === JOB_COMPLETION_INDEX_ENV)) continue;
        c.env = [...(c.env ?? []), { name: JOB_COMPLETION_INDEX_ENV, valueFrom: { fieldRef: { fieldPath: `metadata.labels['${JOB_COMPLETION_INDEX}']` } } }];
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
