/** The ReplicationControllers' Table columns: the ReplicaSet columns, the label-map selector printed as labels. */
import { replicaSetTable } from '../replicaset/table.js';
import type { ResourcePrinter } from '../printers/index.js';

/** ReplicationControllers, as upstream's printReplicationController: NAME DESIRED CURRENT READY AGE, wide CONTAINERS IMAGES SELECTOR. */
export const replicationControllerTable: ResourcePrinter = {
  columns: replicaSetTable.columns,
  print: (obj, now) => {
    const sel = (obj as { spec?: { selector?: Record<string, string> } }).spec?.selector;
    return replicaSetTable.print({ ...obj, spec: { ...(obj.spec as object), selector: { matchLabels: sel } } }, now);
  },
};
