/** The ReplicaSets' Table columns, as upstream's printReplicaSet: NAME DESIRED CURRENT READY AGE, wide CONTAINERS IMAGES SELECTOR. */
import type { ReplicaSet } from '../../../api/index.js';
import {
  column,
  desiredReplicas,
  docs,
  int,
  templatedWorkloadPrinter,
  type ResourcePrinter,
} from '../printers/index.js';

/** ReplicaSets: NAME DESIRED CURRENT READY AGE, wide CONTAINERS IMAGES SELECTOR. */
export const replicaSetTable: ResourcePrinter = templatedWorkloadPrinter<ReplicaSet>({
  columns: [
    column('Desired', 'integer', docs.replicaSetSpecReplicas),
    column('Current', 'integer', docs.replicaSetStatusReplicas),
    column('Ready', 'integer', docs.replicaSetStatusReadyReplicas),
  ],
  selectorDoc: docs.replicaSetSpecSelector,
  cells: (rs) => [desiredReplicas(rs.spec), int(rs.status?.replicas), int(rs.status?.readyReplicas)],
  templateSpec: (rs) => rs.spec,
});
