/** The ConfigMaps' Table columns, as upstream's printConfigMap: NAME DATA AGE. */
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

/** ConfigMaps: NAME DATA AGE; DATA counts data and binaryData keys. */
export const configMapTable: ResourcePrinter = {
  columns: [nameColumn(), column('Data', 'string', docs.configMapData), ageColumn()],
  print: (obj, now) => ({
    cells: [
      str(obj.metadata?.name),
      keys(obj.data).length + keys(obj.binaryData).length,
      timestampSince(obj.metadata?.creationTimestamp, now),
    ],
  }),
};
