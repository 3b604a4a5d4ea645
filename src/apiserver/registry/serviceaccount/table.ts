/** The ServiceAccounts' Table columns, as upstream's printServiceAccount: NAME SECRETS AGE. */
import { ageColumn, column, docs, nameColumn, str, timestampSince, type ResourcePrinter } from '../printers/index.js';

/** ServiceAccounts: NAME SECRETS AGE. */
export const serviceAccountTable: ResourcePrinter = {
  columns: [nameColumn(), column('Secrets', 'string', docs.serviceAccountSecrets), ageColumn()],
  print: (obj, now) => ({
    cells: [
      str(obj.metadata?.name),
      Array.isArray(obj.secrets) ? obj.secrets.length : 0,
      timestampSince(obj.metadata?.creationTimestamp, now),
    ],
  }),
};
