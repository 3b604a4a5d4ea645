/**
 * The FlowSchemas' Table columns, as upstream's printFlowSchema: MISSINGPL
 * from the Dangling condition ("?" until set).
 */
import { ageColumn, column, nameColumn, str, timestampSince, type ResourcePrinter } from '../printers/index.js';

/** FlowSchemas: NAME PRIORITYLEVEL MATCHINGPRECEDENCE DISTINGUISHERMETHOD AGE MISSINGPL. */
export const flowSchemaTable: ResourcePrinter = {
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
