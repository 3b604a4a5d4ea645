/**
 * The layout upstream's printers share for the workloads that stamp out a pod
 * template (ReplicaSet, DaemonSet, Job, CronJob): NAME, the kind's own
 * columns, AGE, then wide CONTAINERS IMAGES SELECTOR.
 */
import type { KubeObject, LabelSelector, PodTemplateSpec, TableColumnDefinition } from '../../../api/index.js';
import { ageColumn, nameColumn, templateColumns } from './columns.js';
import { timestampSince } from './duration.js';
import { str, templateCells } from './format.js';
import type { ResourcePrinter } from './types.js';

/** How one templated workload kind prints between NAME and AGE, and where its pod template is. */
export interface TemplatedWorkload<T extends KubeObject> {
  /** The kind's columns between NAME and AGE. */
  columns: TableColumnDefinition[];
  /** The documentation of the wide Selector column. */
  selectorDoc: string;
  /** The cells of `columns` for one object. */
  cells(obj: T, now: number): unknown[];
  /** The spec holding the pod template and selector. */
  templateSpec(obj: T): { template?: PodTemplateSpec; selector?: LabelSelector } | undefined;
}

/** A printer of NAME, the kind's own columns, AGE, and the wide template columns. */
export function templatedWorkloadPrinter<T extends KubeObject>(w: TemplatedWorkload<T>): ResourcePrinter {
  return {
    columns: [nameColumn(), ...w.columns, ageColumn(), ...templateColumns(w.selectorDoc)],
    print: (obj, now) => {
      const o = obj as T;
      return {
        cells: [
          str(o.metadata?.name),
          ...w.cells(o, now),
          timestampSince(o.metadata?.creationTimestamp, now),
          ...templateCells(w.templateSpec(o)),
        ],
      };
    },
  };
}

/** spec.replicas, or 1 when unset, as the v1 defaulter sets it. */
export function desiredReplicas(spec: { replicas?: number } | undefined): number {
  return typeof spec?.replicas === 'number' ? spec.replicas : 1;
}
