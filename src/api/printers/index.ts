/**
 * Server-side printing: meta.k8s.io/v1 Tables with kubectl's usual columns,
 * as kube-apiserver's pkg/printers/internalversion. Plain JSON objects in,
 * Table JSON out; time is always passed in.
 */
export { printTable, printRow, columnDefinitions, printedResources } from './table.js';
export type { PrintTableOptions } from './table.js';
export { humanDuration, shortHumanDuration } from './duration.js';
export type {
  IncludeObject,
  ResourcePrinter,
  Table,
  TableColumnDefinition,
  TableListMeta,
  TableRow,
  TableRowCondition,
} from './types.js';
