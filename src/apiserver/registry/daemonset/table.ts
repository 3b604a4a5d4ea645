/**
 * The DaemonSets' Table columns, as upstream's printDaemonSet: NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE
 * NODE SELECTOR AGE, wide CONTAINERS IMAGES SELECTOR.
 */
import type { DaemonSet } from '../../../api/index.js';
import { column, docs, formatLabels, int, templatedWorkloadPrinter, type ResourcePrinter } from '../printers/index.js';

/** DaemonSets: NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE, wide CONTAINERS IMAGES SELECTOR. */
export const daemonSetTable: ResourcePrinter = templatedWorkloadPrinter<DaemonSet>({
  columns: [
    column('Desired', 'integer', docs.daemonSetStatusDesiredNumberScheduled),
    column('Current', 'integer', docs.daemonSetStatusCurrentNumberScheduled),
    column('Ready', 'integer', docs.daemonSetStatusNumberReady),
    column('Up-to-date', 'integer', docs.daemonSetStatusUpdatedNumberScheduled),
    column('Available', 'integer', docs.daemonSetStatusNumberAvailable),
    column('Node Selector', 'string', docs.podSpecNodeSelector),
  ],
  selectorDoc: docs.daemonSetSpecSelector,
  cells: (ds) => {
    const s = ds.status ?? {};
    return [
      int(s.desiredNumberScheduled),
      int(s.currentNumberScheduled),
      int(s.numberReady),
      int(s.updatedNumberScheduled),
      int(s.numberAvailable),
      formatLabels(ds.spec?.template?.spec?.nodeSelector),
    ];
  },
  templateSpec: (ds) => ds.spec,
});
