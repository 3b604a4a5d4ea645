/**
 * Builds meta.k8s.io/v1 Tables, as kube-apiserver's TableConvertor and the
 * handlers' asTable: the server always prints every column (wide included),
 * and kubectl hides priority-1 columns unless asked for -o wide.
 */
import { customResourceDefinitionPrinter } from '../apiextensions/printer.js';
import { controllerRevisionPrinter, daemonSetPrinter, statefulSetPrinter } from './apps.js';
import { deploymentPrinter, jobPrinter, replicaSetPrinter } from './workloads.js';
import { endpointSlicePrinter, endpointsPrinter, servicePrinter } from './service.js';
import { eventPrinter } from './event.js';
import { flowSchemaPrinter, priorityLevelConfigurationPrinter } from './flowcontrol.js';
import { nodePrinter } from './node.js';
import { podPrinter } from './pod.js';
import { roleBindingPrinter, rolePrinter } from './rbac.js';
import { csrPrinter } from './certificates.js';
import {
  configMapPrinter,
  genericPrinter,
  leasePrinter,
  namespacePrinter,
  podDisruptionBudgetPrinter,
  priorityClassPrinter,
  secretPrinter,
  serviceAccountPrinter,
} from './simple.js';
import type {
  IncludeObject,
  KubeObject,
  ResourcePrinter,
  Table,
  TableColumnDefinition,
  TableListMeta,
  TableRow,
} from './types.js';

const printers = new Map<string, ResourcePrinter>([
  ['pods', podPrinter],
  ['nodes', nodePrinter],
  ['namespaces', namespacePrinter],
  ['services', servicePrinter],
  ['endpoints', endpointsPrinter],
  ['events', eventPrinter],
  ['configmaps', configMapPrinter],
  ['secrets', secretPrinter],
  ['serviceaccounts', serviceAccountPrinter],
  ['leases', leasePrinter],
  ['endpointslices', endpointSlicePrinter],
  ['deployments', deploymentPrinter],
  ['replicasets', replicaSetPrinter],
  ['statefulsets', statefulSetPrinter],
  ['daemonsets', daemonSetPrinter],
  ['controllerrevisions', controllerRevisionPrinter],
  ['jobs', jobPrinter],
  ['priorityclasses', priorityClassPrinter],
  ['poddisruptionbudgets', podDisruptionBudgetPrinter],
  ['roles', rolePrinter],
  ['clusterroles', rolePrinter],
  ['rolebindings', roleBindingPrinter],
  ['clusterrolebindings', roleBindingPrinter],
  ['certificatesigningrequests', csrPrinter],
  ['flowschemas', flowSchemaPrinter],
  ['prioritylevelconfigurations', priorityLevelConfigurationPrinter],
  ['customresourcedefinitions', customResourceDefinitionPrinter],
]);

/** Options for printTable; `now` is milliseconds since the epoch, injected so output is deterministic. */
export interface PrintTableOptions {
  now: number;
  /** What rows[].object carries; upstream's default is Metadata. */
  includeObject?: IncludeObject;
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  /** Omit column definitions, as the API server does for watch events after the first. */
  noHeaders?: boolean;
}

/** A resource's printer by plural, or the given one (a custom resource's additionalPrinterColumns). */
function printerFor(resource: string | ResourcePrinter): ResourcePrinter {
  return typeof resource === 'string' ? (printers.get(resource) ?? genericPrinter) : resource;
}

/** The resources (by plural) with their own columns; any other resource gets Name and Age. */
export function printedResources(): string[] {
  return [...printers.keys()];
}

/** The column definitions for a resource (by plural); a fresh copy each call. */
export function columnDefinitions(resource: string | ResourcePrinter): TableColumnDefinition[] {
  return printerFor(resource).columns.map((c) => ({ ...c }));
}

/** What a row carries as `object`, as the handlers do for each includeObject value. */
function rowObject(obj: KubeObject, includeObject: IncludeObject): unknown {
  switch (includeObject) {
    case 'None':
      return null;
    case 'Object':
      return obj;
    default:
      // metadata.namespace must survive: kubectl -A fills its NAMESPACE column from it.
      return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata ?? {} };
  }
}

/** One row for one object, with cells for every column; a watch sends it as a one-row Table. */
export function printRow(
  resource: string | ResourcePrinter,
  obj: object,
  now: number,
  includeObject: IncludeObject = 'Metadata',
): TableRow {
  const printed = printerFor(resource).print(obj as KubeObject, now);
  const row: TableRow = { cells: printed.cells, object: rowObject(obj as KubeObject, includeObject) };
  if (printed.conditions) row.conditions = printed.conditions.map((c) => ({ ...c }));
  return row;
}

/** A meta.k8s.io/v1 Table for a list (or a single object, or one watch event) of one resource. */
export function printTable(
  resource: string | ResourcePrinter,
  objects: readonly object[],
  opts: PrintTableOptions,
): Table {
  const metadata: TableListMeta = {};
  if (opts.resourceVersion !== undefined) metadata.resourceVersion = opts.resourceVersion;
  if (opts.continue) metadata.continue = opts.continue;
  if (opts.remainingItemCount !== undefined) metadata.remainingItemCount = opts.remainingItemCount;
  const includeObject = opts.includeObject ?? 'Metadata';
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    columnDefinitions: opts.noHeaders ? [] : columnDefinitions(resource),
    rows: objects.map((o) => printRow(resource, o, opts.now, includeObject)),
  };
}
