/** The Table columns of Roles and ClusterRoles, as upstream's printRole: NAME CREATED AT. */
import { column, nameColumn, str, type ResourcePrinter } from '../printers/index.js';

/** Roles and ClusterRoles: NAME CREATED AT. */
export const roleTable: ResourcePrinter = {
  columns: [nameColumn(), column('Created At', 'date', 'Time when the role was created')],
  print: (obj) => ({ cells: [str(obj.metadata?.name), str(obj.metadata?.creationTimestamp)] }),
};
