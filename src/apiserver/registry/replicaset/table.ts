/** The ReplicaSets' Table columns, as upstream's printReplicaSet: NAME DESIRED CURRENT READY AGE, wide CONTAINERS IMAGES SELECTOR. */
import type { KubeObject, ReplicaSet } from '../../../api/index.js';
import {
  ageColumn,
  column,
  docs,
  int,
  nameColumn,
  str,
  templateCells,
  templateColumns,
  timestampSince,
  type PrintedRow,
  type ResourcePrinter,
} from '../printers/index.js';

function printReplicaSet(obj: KubeObject, now: number): PrintedRow {
  const rs = obj as ReplicaSet;
  return {
    cells: [
      str(rs.metadata?.name),
      // spec.replicas defaults to 1, as the v1 defaulter does.
      typeof rs.spec?.replicas === 'number' ? rs.spec.replicas : 1,
      int(rs.status?.replicas),
      int(rs.status?.readyReplicas),
      timestampSince(rs.metadata?.creationTimestamp, now),
      ...templateCells(rs.spec),
    ],
  };
}

/** ReplicaSets: NAME DESIRED CURRENT READY AGE, wide CONTAINERS IMAGES SELECTOR. */
export const replicaSetTable: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Desired', 'integer', docs.replicaSetSpecReplicas),
    column('Current', 'integer', docs.replicaSetStatusReplicas),
    column('Ready', 'integer', docs.replicaSetStatusReadyReplicas),
    ageColumn(),
    ...templateColumns(docs.replicaSetSpecSelector),
  ],
  print: printReplicaSet,
};
