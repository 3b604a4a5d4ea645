/**
 * Printers for DaemonSets, StatefulSets and ControllerRevisions, like
 * upstream's printDaemonSet, printStatefulSet and printControllerRevision.
 */
import type { ControllerRevision, DaemonSet, StatefulSet } from '../types/apps.js';
import { CONTAINERS_DESCRIPTION, IMAGES_DESCRIPTION, ageColumn, column, nameColumn } from './columns.js';
import { docs } from './docs.js';
import { timestampSince } from './duration.js';
import { formatLabelSelector, formatLabels, int, layoutContainerCells, str } from './format.js';
import type { Container, KubeObject, PrintedRow, ResourcePrinter } from './types.js';

const containers = (o: DaemonSet | StatefulSet): [string, string] =>
  layoutContainerCells(o.spec?.template?.spec?.containers as Container[] | undefined);

function printDaemonSet(obj: KubeObject, now: number): PrintedRow {
  const ds = obj as DaemonSet;
  const s = ds.status ?? {};
  const [names, images] = containers(ds);
  return {
    cells: [
      str(ds.metadata?.name),
      int(s.desiredNumberScheduled),
      int(s.currentNumberScheduled),
      int(s.numberReady),
      int(s.updatedNumberScheduled),
      int(s.numberAvailable),
      formatLabels(ds.spec?.template?.spec?.nodeSelector),
      timestampSince(ds.metadata?.creationTimestamp, now),
      names,
      images,
      formatLabelSelector(ds.spec?.selector),
    ],
  };
}

function printStatefulSet(obj: KubeObject, now: number): PrintedRow {
  const sts = obj as StatefulSet;
  const [names, images] = containers(sts);
  const replicas = typeof sts.spec?.replicas === 'number' ? sts.spec.replicas : 1;
  return {
    cells: [
      str(sts.metadata?.name),
      `${int(sts.status?.readyReplicas)}/${replicas}`,
      timestampSince(sts.metadata?.creationTimestamp, now),
      names,
      images,
    ],
  };
}

/** Upstream's formatResourceName with kind: `daemonset.apps/name`, or `<none>` without a controller. */
function controllerName(cr: ControllerRevision): string {
  const ref = cr.metadata?.ownerReferences?.find((r) => r.controller === true);
  if (ref === undefined) return '<none>';
  const slash = ref.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
  return `${(group ? `${ref.kind}.${group}` : ref.kind).toLowerCase()}/${ref.name}`;
}

function printControllerRevision(obj: KubeObject, now: number): PrintedRow {
  const cr = obj as ControllerRevision;
  return {
    cells: [
      str(cr.metadata?.name),
      controllerName(cr),
      int(cr.revision),
      timestampSince(cr.metadata?.creationTimestamp, now),
    ],
  };
}

/** DaemonSets: NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE, wide CONTAINERS IMAGES SELECTOR. */
export const daemonSetPrinter: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Desired', 'integer', docs.daemonSetStatusDesiredNumberScheduled),
    column('Current', 'integer', docs.daemonSetStatusCurrentNumberScheduled),
    column('Ready', 'integer', docs.daemonSetStatusNumberReady),
    column('Up-to-date', 'integer', docs.daemonSetStatusUpdatedNumberScheduled),
    column('Available', 'integer', docs.daemonSetStatusNumberAvailable),
    column('Node Selector', 'string', docs.podSpecNodeSelector),
    ageColumn(),
    column('Containers', 'string', CONTAINERS_DESCRIPTION, { wide: true }),
    column('Images', 'string', IMAGES_DESCRIPTION, { wide: true }),
    column('Selector', 'string', docs.daemonSetSpecSelector, { wide: true }),
  ],
  print: printDaemonSet,
};

/** StatefulSets: NAME READY AGE, wide CONTAINERS IMAGES. */
export const statefulSetPrinter: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Ready', 'string', 'Number of the pod with ready state'),
    ageColumn(),
    column('Containers', 'string', CONTAINERS_DESCRIPTION, { wide: true }),
    column('Images', 'string', IMAGES_DESCRIPTION, { wide: true }),
  ],
  print: printStatefulSet,
};

/** ControllerRevisions: NAME CONTROLLER REVISION AGE. */
export const controllerRevisionPrinter: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Controller', 'string', 'Controller of the object'),
    column('Revision', 'string', docs.controllerRevisionRevision),
    ageColumn(),
  ],
  print: printControllerRevision,
};
