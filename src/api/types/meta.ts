/** meta.k8s.io/v1 kinds the API server answers with: the Table of server-side printing. */
import type { ListMeta } from '../types.js';

/** One column header, as metav1.TableColumnDefinition. */
export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  /** 0 is always shown; 1 only with `kubectl -o wide`. */
  priority: number;
}

/** A row condition, as metav1.TableRowCondition (pods use it for Completed). */
export interface TableRowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** One row, as metav1.TableRow. `object` is null when includeObject=None, like upstream's empty RawExtension. */
export interface TableRow {
  cells: unknown[];
  conditions?: TableRowCondition[];
  object: unknown;
}

/** A server-side Table, as metav1.Table. */
export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1';
  metadata: ListMeta;
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

/** What each row's `object` holds, as the `includeObject` query parameter (metav1.IncludeObjectPolicy). */
export type IncludeObject = 'None' | 'Object' | 'Metadata';
