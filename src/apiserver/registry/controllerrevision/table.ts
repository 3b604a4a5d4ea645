/** The ControllerRevisions' Table columns, as upstream's printControllerRevision: NAME CONTROLLER REVISION AGE. */
import type { ControllerRevision, KubeObject } from '../../../api/index.js';
import {
  ageColumn,
  column,
  docs,
  int,
  nameColumn,
  str,
  timestampSince,
  type PrintedRow,
  type ResourcePrinter,
} from '../printers/index.js';

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

/** ControllerRevisions: NAME CONTROLLER REVISION AGE. */
export const controllerRevisionTable: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Controller', 'string', 'Controller of the object'),
    column('Revision', 'string', docs.controllerRevisionRevision),
    ageColumn(),
  ],
  print: printControllerRevision,
};
