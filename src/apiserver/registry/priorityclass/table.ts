/** The PriorityClasses' Table columns, as upstream's printPriorityClass. */
import {
  ageColumn,
  column,
  docs,
  int,
  nameColumn,
  str,
  timestampSince,
  type ResourcePrinter,
} from '../printers/index.js';

/** PriorityClasses: NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY (upstream gives the last one priority 0). */
export const priorityClassTable: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Value', 'integer', docs.priorityClassValue),
    column('Global-Default', 'boolean', docs.priorityClassGlobalDefault),
    ageColumn(),
    column('PreemptionPolicy', 'string', docs.priorityClassPreemptionPolicy),
  ],
  print: (obj, now) => ({
    cells: [
      str(obj.metadata?.name),
      int(obj.value),
      obj.globalDefault === true,
      timestampSince(obj.metadata?.creationTimestamp, now),
      str(obj.preemptionPolicy),
    ],
  }),
};
