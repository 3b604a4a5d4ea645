/** The deployments' Table columns, as upstream's printDeployment: NAME READY UP-TO-DATE AVAILABLE AGE, wide CONTAINERS IMAGES SELECTOR. */
import type { Deployment, KubeObject } from '../../../api/index.js';
import {
  ageColumn,
  column,
  desiredReplicas,
  docs,
  int,
  layoutContainerCells,
  nameColumn,
  selectorString,
  str,
  templateColumns,
  timestampSince,
  type PrintedRow,
  type ResourcePrinter,
} from '../printers/index.js';

function printDeployment(obj: KubeObject, now: number): PrintedRow {
  const d = obj as Deployment;
  const [names, images] = layoutContainerCells(d.spec?.template?.spec?.containers);
  // Upstream prints the raw selector string here ("" when empty), not FormatLabelSelector.
  const selector = selectorString(d.spec?.selector) ?? '<invalid>';
  const desired = desiredReplicas(d.spec);
  return {
    cells: [
      str(d.metadata?.name),
      `${int(d.status?.readyReplicas)}/${desired}`,
      int(d.status?.updatedReplicas),
      int(d.status?.availableReplicas),
      timestampSince(d.metadata?.creationTimestamp, now),
      names,
      images,
      selector,
    ],
  };
}

/** Deployments: NAME READY UP-TO-DATE AVAILABLE AGE, wide CONTAINERS IMAGES SELECTOR. */
export const deploymentTable: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Ready', 'string', 'Number of the pod with ready state'),
    column('Up-to-date', 'string', docs.deploymentStatusUpdatedReplicas),
    column('Available', 'string', docs.deploymentStatusAvailableReplicas),
    ageColumn(),
    ...templateColumns(docs.deploymentSpecSelector),
  ],
  print: printDeployment,
};
