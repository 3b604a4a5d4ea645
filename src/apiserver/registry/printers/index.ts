/**
 * Server-side printing: meta.k8s.io/v1 Tables with kubectl's usual columns,
 * as kube-apiserver's pkg/printers. What is shared lives here (the Table
 * builder, column builders and docs, age and cell formatting); each resource's
 * columns live in its registry folder (`<resource>/table.ts`).
 */
export { printTable, printRow, columnDefinitions, defaultTable } from './table.js';
export type { PrintTableOptions } from './table.js';
export type { PrintedRow, ResourcePrinter } from './types.js';
export { ageColumn, column, containerColumns, nameColumn, templateColumns } from './columns.js';
export { docs } from './docs.js';
export { humanDuration, parseTime, shortHumanDuration, timestampSince } from './duration.js';
export {
  formatLabelSelector,
  formatLabels,
  int,
  intOrString,
  joinHostPort,
  keys,
  layoutContainerCells,
  listWithMore,
  selectorString,
  str,
  templateCells,
} from './format.js';
export { desiredReplicas, templatedWorkloadPrinter, type TemplatedWorkload } from './workload.js';
