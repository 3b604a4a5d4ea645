/** The Leases' Table columns, as upstream's printLease: NAME HOLDER AGE. */
import type { Lease } from '../../../api/index.js';
import { ageColumn, column, docs, nameColumn, str, timestampSince, type ResourcePrinter } from '../printers/index.js';

/** Leases: NAME HOLDER AGE. */
export const leaseTable: ResourcePrinter = {
  columns: [nameColumn(), column('Holder', 'string', docs.leaseSpecHolderIdentity), ageColumn()],
  print: (obj, now) => ({
    cells: [
      str(obj.metadata?.name),
      str((obj as Lease).spec?.holderIdentity),
      timestampSince(obj.metadata?.creationTimestamp, now),
    ],
  }),
};
