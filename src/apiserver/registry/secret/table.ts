/** The Secrets' Table columns, as upstream's printSecret: NAME TYPE DATA AGE. */
import {
  ageColumn,
  column,
  docs,
  keys,
  nameColumn,
  str,
  timestampSince,
  type ResourcePrinter,
} from '../printers/index.js';

/** Secrets: NAME TYPE DATA AGE; stringData keys count too, as they merge into data on write. */
export const secretTable: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Type', 'string', docs.secretType),
    column('Data', 'string', docs.secretData),
    ageColumn(),
  ],
  print: (obj, now) => {
    const dataKeys = new Set([...keys(obj.data), ...keys(obj.stringData)]);
    return {
      cells: [
        str(obj.metadata?.name),
        str(obj.type),
        dataKeys.size,
        timestampSince(obj.metadata?.creationTimestamp, now),
      ],
    };
  },
};
