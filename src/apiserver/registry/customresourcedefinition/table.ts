/** CustomResourceDefinitions: NAME and CREATED AT (the timestamp itself), as kube-apiserver's default table for them. */
import { nameColumn, type ResourcePrinter } from '../printers/index.js';

/** The Table columns of CustomResourceDefinitions. */
export const customResourceDefinitionTable: ResourcePrinter = {
  columns: [
    nameColumn(),
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
