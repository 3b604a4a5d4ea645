import type { LimitRange } from '../../../api/index.js';
import { column, docs, nameColumn, type ResourcePrinter, str } from '../printers/index.js';

/** LimitRanges: NAME CREATED AT (RFC 3339, UTC). */
export const limitRangeTable: ResourcePrinter = {
  columns: [nameColumn(), column('Created At', 'date', docs.objectMetaCreationTimestamp)],
  print: (obj) => {
    const lr = obj as LimitRange;
    const ts = lr.metadata?.creationTimestamp;
    return {
      cells: [
        str(lr.metadata?.name),
        ts === undefined || ts === null ? '' : new Date(ts).toISOString().replace(/\.\d+Z$/, 'Z'),
      ],
    };
  },
};
