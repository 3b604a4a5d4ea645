/**
 * Table columns of a custom resource, like apiextensions-apiserver's
 * tableconvertor: Name, then each additionalPrinterColumn read by its JSONPath
 * (a dotted path with list indices), dates shown as an age; without columns,
 * Name and Age.
 */
import { readJSONPath, type CustomResourceColumnDefinition, type TableColumnDefinition } from '../../api/index.js';
import { nameColumn, timestampSince, type ResourcePrinter } from '../registry/printers/index.js';

/** The printer of a custom resource version's additionalPrinterColumns. */
export function customResourcePrinter(columns: readonly CustomResourceColumnDefinition[]): ResourcePrinter {
  if (columns.length === 0) {
    return {
      columns: [
        nameColumn(),
        { name: 'Age', type: 'date', format: '', description: 'Creation timestamp', priority: 0 },
      ],
      print: (o, now) => ({ cells: [o.metadata?.name ?? '', timestampSince(o.metadata?.creationTimestamp, now)] }),
    };
  }
  const defs: TableColumnDefinition[] = [
    nameColumn(),
    ...columns.map((c) => ({
      name: c.name,
      type: c.type,
      format: c.format ?? '',
      description: c.description ?? '',
      priority: c.priority ?? 0,
    })),
  ];
  return {
    columns: defs,
    print: (o, now) => ({
      cells: [
        o.metadata?.name ?? '',
        ...columns.map((c) => {
          const v = readJSONPath(o, c.jsonPath);
          if (v === undefined || v === null) return null;
          if (c.type === 'date') return timestampSince(v, now);
          if (typeof v === 'object') return JSON.stringify(v);
          return v;
        }),
      ],
    }),
  };
}
