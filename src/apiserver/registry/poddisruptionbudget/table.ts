/** The PodDisruptionBudgets' Table columns, as upstream's printPodDisruptionBudget. */
import type { PodDisruptionBudget } from '../../../api/index.js';
import {
  ageColumn,
  column,
  int,
  intOrString,
  nameColumn,
  str,
  timestampSince,
  type ResourcePrinter,
} from '../printers/index.js';

/** PodDisruptionBudgets: NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE. */
export const podDisruptionBudgetTable: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Min Available', 'string', 'The minimum number of pods that must be available.'),
    column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
    ageColumn(),
  ],
  print: (obj, now) => {
    const pdb = obj as PodDisruptionBudget;
    const spec = pdb.spec ?? {};
    return {
      cells: [
        str(obj.metadata?.name),
        spec.minAvailable == null ? 'N/A' : intOrString(spec.minAvailable),
        spec.maxUnavailable == null ? 'N/A' : intOrString(spec.maxUnavailable),
        int(pdb.status?.disruptionsAllowed),
        timestampSince(obj.metadata?.creationTimestamp, now),
      ],
    };
  },
};
