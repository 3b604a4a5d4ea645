/**
 * Printers for resources whose rows are a few direct fields: namespaces,
 * configmaps, secrets, serviceaccounts, leases, priorityclasses,
 * poddisruptionbudgets, and the Name/Age fallback for everything else.
 */
import { ageColumn, column, nameColumn } from './columns.js';
import { docs } from './docs.js';
import { timestampSince } from './duration.js';
import { int, str } from './format.js';
import type { KubeObject, ResourcePrinter } from './types.js';

function keys(v: unknown): string[] {
  return v && typeof v === 'object' ? Object.keys(v) : [];
}

function name(obj: KubeObject): string {
  return str(obj.metadata?.name);
}

function age(obj: KubeObject, now: number): string {
  return timestampSince(obj.metadata?.creationTimestamp, now);
}

/** Like intstr.IntOrString.String(). */
function intOrString(v: unknown): string {
  return typeof v === 'number' ? String(Math.trunc(v)) : str(v);
}

/** Namespaces: NAME STATUS AGE. */
export const namespacePrinter: ResourcePrinter = {
  columns: [nameColumn(), column('Status', 'string', 'The status of the namespace'), ageColumn()],
  print: (obj, now) => ({
    cells: [name(obj), str((obj.status as { phase?: string } | undefined)?.phase), age(obj, now)],
  }),
};

/** ConfigMaps: NAME DATA AGE; DATA counts data and binaryData keys. */
export const configMapPrinter: ResourcePrinter = {
  columns: [nameColumn(), column('Data', 'string', docs.configMapData), ageColumn()],
  print: (obj, now) => ({ cells: [name(obj), keys(obj.data).length + keys(obj.binaryData).length, age(obj, now)] }),
};

/** Secrets: NAME TYPE DATA AGE; stringData keys count too, as they merge into data on write. */
export const secretPrinter: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Type', 'string', docs.secretType),
    column('Data', 'string', docs.secretData),
    ageColumn(),
  ],
  print: (obj, now) => {
    const dataKeys = new Set([...keys(obj.data), ...keys(obj.stringData)]);
    return { cells: [name(obj), str(obj.type), dataKeys.size, age(obj, now)] };
  },
};

/** ServiceAccounts: NAME SECRETS AGE. */
export const serviceAccountPrinter: ResourcePrinter = {
  columns: [nameColumn(), column('Secrets', 'string', docs.serviceAccountSecrets), ageColumn()],
  print: (obj, now) => ({
    cells: [name(obj), Array.isArray(obj.secrets) ? obj.secrets.length : 0, age(obj, now)],
  }),
};

/** Leases: NAME HOLDER AGE. */
export const leasePrinter: ResourcePrinter = {
  columns: [nameColumn(), column('Holder', 'string', docs.leaseSpecHolderIdentity), ageColumn()],
  print: (obj, now) => ({
    cells: [name(obj), str((obj.spec as { holderIdentity?: string } | undefined)?.holderIdentity), age(obj, now)],
  }),
};

/** PriorityClasses: NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY (upstream gives the last one priority 0). */
export const priorityClassPrinter: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Value', 'integer', docs.priorityClassValue),
    column('Global-Default', 'boolean', docs.priorityClassGlobalDefault),
    ageColumn(),
    column('PreemptionPolicy', 'string', docs.priorityClassPreemptionPolicy),
  ],
  print: (obj, now) => ({
    cells: [name(obj), int(obj.value), obj.globalDefault === true, age(obj, now), str(obj.preemptionPolicy)],
  }),
};

/** PodDisruptionBudgets: NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE. */
export const podDisruptionBudgetPrinter: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Min Available', 'string', 'The minimum number of pods that must be available.'),
    column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
    ageColumn(),
  ],
  print: (obj, now) => {
    const spec = (obj.spec ?? {}) as { minAvailable?: unknown; maxUnavailable?: unknown };
    const status = (obj.status ?? {}) as { disruptionsAllowed?: number };
    return {
      cells: [
        name(obj),
        spec.minAvailable == null ? 'N/A' : intOrString(spec.minAvailable),
        spec.maxUnavailable == null ? 'N/A' : intOrString(spec.maxUnavailable),
        int(status.disruptionsAllowed),
        age(obj, now),
      ],
    };
  },
};

/** Any other resource: NAME AGE. */
export const genericPrinter: ResourcePrinter = {
  columns: [nameColumn(), ageColumn()],
  print: (obj, now) => ({ cells: [name(obj), age(obj, now)] }),
};
