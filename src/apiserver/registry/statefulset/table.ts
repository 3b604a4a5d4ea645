/** The StatefulSets' Table columns, as upstream's printStatefulSet: NAME READY AGE, wide CONTAINERS IMAGES. */
import type { KubeObject, StatefulSet } from '../../../api/index.js';
import {
  ageColumn,
  column,
  desiredReplicas,
  containerColumns,
  int,
  layoutContainerCells,
  nameColumn,
  str,
  timestampSince,
  type PrintedRow,
  type ResourcePrinter,
} from '../printers/index.js';

function printStatefulSet(obj: KubeObject, now: number): PrintedRow {
  const sts = obj as StatefulSet;
  const [names, images] = layoutContainerCells(sts.spec?.template?.spec?.containers);
  const replicas = desiredReplicas(sts.spec);
  return {
    cells: [
      str(sts.metadata?.name),
      `${int(sts.status?.readyReplicas)}/${replicas}`,
      timestampSince(sts.metadata?.creationTimestamp, now),
      names,
      images,
    ],
  };
}

/** StatefulSets: NAME READY AGE, wide CONTAINERS IMAGES (upstream prints no selector for them). */
export const statefulSetTable: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Ready', 'string', 'Number of the pod with ready state'),
    ageColumn(),
    ...containerColumns(),
  ],
  print: printStatefulSet,
};
