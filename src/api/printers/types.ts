/**
 * The meta.k8s.io/v1 Table wire types, and the loose object shapes the
 * printers read. Printers take plain JSON (what storage holds), never classes,
 * so every field is optional and read defensively.
 */

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

/** The list metadata a Table carries, as metav1.ListMeta. */
export interface TableListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

/** A server-side Table, as metav1.Table. */
export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1';
  metadata: TableListMeta;
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

/** What each row's `object` holds, as the `includeObject` query parameter. */
export type IncludeObject = 'None' | 'Object' | 'Metadata';

/** The cells and optional row conditions a printer derives from one object. */
export interface PrintedRow {
  cells: unknown[];
  conditions?: TableRowCondition[];
}

/** A resource's columns and the function that fills them; `now` is milliseconds since the epoch. */
export interface ResourcePrinter {
  columns: TableColumnDefinition[];
  print(obj: KubeObject, now: number): PrintedRow;
}

/** ObjectMeta fields the printers read. */
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  creationTimestamp?: string | null;
  deletionTimestamp?: string | null;
  labels?: Record<string, string>;
  [key: string]: unknown;
}

/** Any Kubernetes object as plain JSON. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [key: string]: unknown;
}

/** A metav1.LabelSelector. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** The container fields layoutContainerCells reads. */
export interface Container {
  name?: string;
  image?: string;
  restartPolicy?: string;
}

/** A pod template, as embedded in workloads. */
export interface PodTemplateSpec {
  metadata?: ObjectMeta;
  spec?: { containers?: Container[] };
}
