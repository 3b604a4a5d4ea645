/**
 * The PriorityLevelConfigurations' Table columns, as upstream's
 * printPriorityLevelConfiguration: "<none>" where a level has no limit or no queuing.
 */
import { ageColumn, column, nameColumn, str, timestampSince, type ResourcePrinter } from '../printers/index.js';

/** PriorityLevelConfigurations: NAME TYPE NOMINALCONCURRENCYSHARES QUEUES HANDSIZE QUEUELENGTHLIMIT AGE. */
export const priorityLevelConfigurationTable: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Type', 'string', 'Whether the level is Exempt or Limited.'),
    column('NominalConcurrencyShares', 'string', "The level's share of the server's concurrency limit."),
    column('Queues', 'string', 'The number of queues.'),
    column('HandSize', 'string', 'The number of queues each flow is shuffle-sharded onto.'),
    column('QueueLengthLimit', 'string', 'The most requests one queue may hold.'),
    ageColumn(),
  ],
  print: (obj, now) => {
    const spec = (obj.spec ?? {}) as {
      type?: string;
      limited?: {
        nominalConcurrencyShares?: number;
        limitResponse?: { queuing?: { queues?: number; handSize?: number; queueLengthLimit?: number } };
      };
    };
    const l = spec.limited;
    const q = l?.limitResponse?.queuing;
    const cell = (v: number | undefined, present: boolean): number | string => (present ? (v ?? 0) : '<none>');
    return {
      cells: [
        str(obj.metadata?.name),
        str(spec.type),
        cell(l?.nominalConcurrencyShares, l !== undefined),
        cell(q?.queues, q !== undefined),
        cell(q?.handSize, q !== undefined),
        cell(q?.queueLengthLimit, q !== undefined),
        timestampSince(obj.metadata?.creationTimestamp, now),
      ],
    };
  },
};
