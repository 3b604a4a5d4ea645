/**
 * What a resource's Table columns are: its column definitions and the
 * function that fills one row, like an entry of upstream's TableGenerator.
 * Printers take plain JSON (what storage holds), never classes, so they read
 * every field defensively.
 */
import type { KubeObject, TableColumnDefinition, TableRowCondition } from '../../../api/index.js';

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
