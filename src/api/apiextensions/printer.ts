/**
 * Table columns of a custom resource, like apiextensions-apiserver's
 * tableconvertor: Name, then each additionalPrinterColumn read by its JSONPath
 * (a dotted path with list indices), dates shown as an age; without columns,
 * Name and Age.
 */
import { timestampSince } from '../printers/duration.js';
import type { ResourcePrinter, TableColumnDefinition } from '../printers/index.js';
import type { CustomResourceColumnDefinition } from '../types/index.js';

const NAME: TableColumnDefinition = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  priority: 0,
};

/** Reads a simple JSONPath (`.spec.replicas`, `.status.conditions[0].type`, `{.spec.x}`) from an object. */
export function readJSONPath(obj: unknown, path: string): unknown {
  const p = path.replace(/^\{|\}$/g, '').replace(/^\./, '');
  if (p === '') return obj;
  let cur: unknown = obj;
  for (const seg of p.match(/[^.[\]]+|\[\d+\]/g) ?? []) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = seg.startsWith('[') ? (cur as unknown[])[Number(seg.slice(1, -1))] : (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

/** The printer of a custom resource version's additionalPrinterColumns. */
export function customResourcePrinter(columns: readonly CustomResourceColumnDefinition[]): ResourcePrinter {
  if (columns.length === 0) {
    return {
      columns: [NAME, { name: 'Age', type: 'date', format: '', description: 'Creation timestamp', priority: 0 }],
      print: (o, now) => ({ cells: [o.metadata?.name ?? '', timestampSince(o.metadata?.creationTimestamp, now)] }),
    };
  }
  const defs: TableColumnDefinition[] = [
    NAME,
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

/** CustomResourceDefinitions: NAME and CREATED AT (the timestamp itself), as kube-apiserver's default table for them. */
export const customResourceDefinitionPrinter: ResourcePrinter = {
  columns: [
    NAME,
    {
      name: 'Created At',
      type: 'date',
      format: '',
      description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
      priority: 0,
    },
  ],
  print: (o) => ({ cells: [o.metadata?.name ?? '', o.metadata?.creationTimestamp ?? ''] }),
};
