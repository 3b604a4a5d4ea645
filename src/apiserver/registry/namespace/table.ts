/** The namespaces' Table columns, as upstream's printNamespace: NAME STATUS AGE. */
import type { Namespace } from '../../../api/index.js';
import { ageColumn, column, nameColumn, str, timestampSince, type ResourcePrinter } from '../printers/index.js';

/** Namespaces: NAME STATUS AGE. */
export const namespaceTable: ResourcePrinter = {
  columns: [nameColumn(), column('Status', 'string', 'The status of the namespace'), ageColumn()],
  print: (obj, now) => ({
    cells: [
      str(obj.metadata?.name),
      str((obj as Namespace).status?.phase),
      timestampSince(obj.metadata?.creationTimestamp, now),
    ],
  }),
};
