/**
 * API Priority and Fairness printers, with upstream's columns
 * (printFlowSchema, printPriorityLevelConfiguration): "<none>" where a level
 * has no limit or no queuing, MISSINGPL from the Dangling condition ("?" until set).
 */
import { ageColumn, column, nameColumn } from './columns.js';
import { timestampSince } from './duration.js';
import { str } from './format.js';
import type { ResourcePrinter } from './types.js';

/** FlowSchemas: NAME PRIORITYLEVEL MATCHINGPRECEDENCE DISTINGUISHERMETHOD AGE MISSINGPL. */
export const flowSchemaPrinter: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('PriorityLevel', 'string', "The name of the priority level configuration this schema's requests go to."),
    column('MatchingPrecedence', 'string', 'The precedence of this schema when several match a request.'),
    column('DistinguisherMethod', 'string', 'How requests of this schema split into flows.'),
    ageColumn(),
    column('MissingPL', 'string', "Whether the schema's priority level configuration is missing."),
  ],
  print: (obj, now) => {
    const spec = (obj.spec ?? {}) as {
      priorityLevelConfiguration?: { name?: string };
      matchingPrecedence?: number;
      distinguisherMethod?: { type?: string };
    };
    const conds = ((obj.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ??
      []) as { type?: string; status?: string }[];
    const dangling = conds.find((c) => c.type === 'Dangling');
    return {
      cells: [
        str(obj.metadata?.name),
        str(spec.priorityLevelConfiguration?.name),
        spec.matchingPrecedence ?? 0,
        spec.distinguisherMethod === undefined ? '<none>' : str(spec.distinguisherMethod.type),
        timestampSince(obj.metadata?.creationTimestamp, now),
        dangling === undefined ? '?' : str(dangling.status),
      ],
    };
  },
};

/** PriorityLevelConfigurations: NAME TYPE NOMINALCONCURRENCYSHARES QUEUES HANDSIZE QUEUELENGTHLIMIT AGE. */
export const priorityLevelConfigurationPrinter: ResourcePrinter = {
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
