/**
 * Builds meta.k8s.io/v1 Tables, as kube-apiserver's TableConvertor and the
 * handlers' asTable: the server always prints every column (wide included),
 * and kubectl hides priority-1 columns unless asked for -o wide.
 */
import type {
  IncludeObject,
  KubeObject,
  ListMeta,
  Table,
  TableColumnDefinition,
  TableRow,
} from '../../../api/index.js';
import { ageColumn, nameColumn } from './columns.js';
import { timestampSince } from './duration.js';
import { str } from './format.js';
import type { ResourcePrinter } from './types.js';

/** Name and Age: the columns of a resource without its own, as upstream's default table convertor. */
export const defaultTable: ResourcePrinter = {
  columns: [nameColumn(), ageColumn()],
  print: (obj, now) => ({ cells: [str(obj.metadata?.name), timestampSince(obj.metadata?.creationTimestamp, now)] }),
};

/** Options for printTable; `now` is milliseconds since the epoch, injected so output is deterministic. */
export interface PrintTableOptions {
  now: number;
  /** What rows[].object carries; upstream's default is Metadata. */
  includeObject?: IncludeObject;
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  /** Omit column definitions, as the API server does for watch events after the first. */
  noHeaders?: boolean;
}

/** A printer's column definitions; a fresh copy each call. */
export function columnDefinitions(printer: ResourcePrinter): TableColumnDefinition[] {
  return printer.columns.map((c) => ({ ...c }));
}

/** What a row carries as `object`, as the handlers do for each includeObject value. */
function rowObject(obj: KubeObject, includeObject: IncludeObject): unknown {
  switch (includeObject) {
    case 'None':
      return null;
    case 'Object':
      return obj;
    default:
      // metadata.namespace must survive: kubectl -A fills its NAMESPACE column from it.
      return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata ?? {} };
  }
}

/** One row for one object, with cells for every column; a watch sends it as a one-row Table. */
export function printRow(
  printer: ResourcePrinter,
  obj: object,
  now: number,
  includeObject: IncludeObject = 'Metadata',
): TableRow {
  const printed = printer.print(obj as KubeObject, now);
  const row: TableRow = { cells: printed.cells, object: rowObject(obj as KubeObject, includeObject) };
  if (printed.conditions) row.conditions = printed.conditions.map((c) => ({ ...c }));
  return row;
}

/** A meta.k8s.io/v1 Table for a list (or a single object, or one watch event) of one resource. */
export function printTable(printer: ResourcePrinter, objects: readonly object[], opts: PrintTableOptions): Table {
  const metadata: ListMeta = {};
  if (opts.resourceVersion !== undefined) metadata.resourceVersion = opts.resourceVersion;
  if (opts.continue) metadata.continue = opts.continue;
  if (opts.remainingItemCount !== undefined) metadata.remainingItemCount = opts.remainingItemCount;
  const includeObject = opts.includeObject ?? 'Metadata';
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    columnDefinitions: opts.noHeaders ? [] : columnDefinitions(printer),
    rows: objects.map((o) => printRow(printer, o, opts.now, includeObject)),
  };
}
