import type { NetworkPolicy } from '../../../api/index.js';
import {
  ageColumn,
  column,
  formatLabelSelector,
  nameColumn,
  type ResourcePrinter,
  str,
  timestampSince,
} from '../printers/index.js';

/** NetworkPolicies: NAME POD-SELECTOR AGE. */
export const networkPolicyTable: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Pod-Selector', 'string', 'podSelector selects the pods to which this NetworkPolicy object applies.'),
    ageColumn(),
  ],
  print: (obj, now) => {
    const np = obj as NetworkPolicy;
    return {
      cells: [
        str(np.metadata?.name),
        formatLabelSelector(np.spec?.podSelector),
        timestampSince(np.metadata?.creationTimestamp, now),
      ],
    };
  },
};
