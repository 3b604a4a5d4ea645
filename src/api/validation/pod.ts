/**
 * Pod and PodSpec validation, following pkg/apis/core/validation: containers,
 * ports, volumes, tolerations and enums on create; on update only images,
 * activeDeadlineSeconds, added tolerations and removed scheduling gates may change.
 */
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidPortName,
  isValidPortNum,
  nameIsDNSSubdomain,
} from '../meta.js';
import { asString, isObject, type KubeObject } from '../types.js';
import {
  child,
  duplicate,
  forbidden,
  fromMessages,
  index,
  invalidValue,
  notSupported,
  required,
  validateNonnegative,
  type ErrorList,
} from './field.js';
import { arr, type Obj } from './common.js';
import { validateLabels, validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { validateResourceRequirements } from './resources.js';
import { semanticEqual } from './semantic.js';
import { jsonEqual } from '../managedfields/json.js';

const MAX_INT32 = 2147483647;

/** The PodSpec's optional name fields and the DNS rule each must follow when set, in upstream's check order. */
const DNS_NAME_FIELDS = [
  ['nodeName', isDNS1123Subdomain],
  ['serviceAccountName', isDNS1123Subdomain],
  ['priorityClassName', isDNS1123Subdomain],
  ['hostname', isDNS1123Label],
  ['subdomain', isDNS1123Label],
] as const;

/** Volume source field names; a volume must set exactly one. */
export const VOLUME_SOURCES = [
  'hostPath',
  'emptyDir',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'persistentVolumeClaim',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'downwardAPI',
  'fc',
  'azureFile',
  'configMap',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'projected',
  'portworxVolume',
  'scaleIO',
  'storageos',
  'csi',
  'ephemeral',
  'image',
];

function validateVolumes(volumes: Obj[], path: string): { errs: ErrorList; names: Set<string> } {
  const errs: ErrorList = [];
  const names = new Set<string>();
  volumes.forEach((v, i) => {
    const p = index(path, i);
    const name = typeof v.name === 'string' ? v.name : '';
    if (!name) errs.push(required(child(p, 'name')));
    else {
      errs.push(...fromMessages(child(p, 'name'), name, isDNS1123Label(name)));
      if (names.has(name)) errs.push(duplicate(child(p, 'name'), name));
      names.add(name);
    }
    const n = VOLUME_SOURCES.filter((s) => v[s] !== undefined && v[s] !== null).length;
    if (n === 0) errs.push(required(p, 'must specify a volume type'));
    else if (n > 1) errs.push(forbidden(p, 'may not specify more than 1 volume type'));
  });
  return { errs, names };
}

function validatePorts(ports: Obj[], path: string): ErrorList {
  const errs: ErrorList = [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const p = index(path, i);
    if (typeof port.name === 'string' && port.name) {
      errs.push(...fromMessages(child(p, 'name'), port.name, isValidPortName(port.name)));
      if (names.has(port.name)) errs.push(duplicate(child(p, 'name'), port.name));
      names.add(port.name);
    }
    if (port.containerPort === undefined || port.containerPort === 0) errs.push(required(child(p, 'containerPort')));
    else
      errs.push(
        ...fromMessages(child(p, 'containerPort'), port.containerPort, isValidPortNum(port.containerPort as number)),
      );
    if (port.hostPort !== undefined && port.hostPort !== 0)
      errs.push(...fromMessages(child(p, 'hostPort'), port.hostPort, isValidPortNum(port.hostPort as number)));
    if (!port.protocol) errs.push(required(child(p, 'protocol')));
    else if (!['SCTP', 'TCP', 'UDP'].includes(port.protocol as string))
      errs.push(notSupported(child(p, 'protocol'), port.protocol, ['SCTP', 'TCP', 'UDP']));
  });
  return errs;
}

function validateContainer(c: Obj, p: string, volumes: Set<string>, requireImage: boolean): ErrorList {
  const errs: ErrorList = [];
  if (requireImage && (typeof c.image !== 'string' || !c.image.trim())) errs.push(required(child(p, 'image')));
  errs.push(...validatePorts(arr(c.ports), child(p, 'ports')));
  arr(c.env).forEach((e, j) => {
    const ep = index(child(p, 'env'), j);
    if (!e.name) errs.push(required(child(ep, 'name')));
    else if (asString(e.name).includes('='))
      errs.push(
        invalidValue(
          child(ep, 'name'),
          e.name,
          "a valid environment variable name must consist only of printable ASCII characters other than '='",
        ),
      );
  });
  arr(c.volumeMounts).forEach((m, j) => {
    const mp = index(child(p, 'volumeMounts'), j);
    if (!m.name) errs.push(required(child(mp, 'name')));
    else if (!volumes.has(m.name as string))
      errs.push({ type: 'FieldValueNotFound', field: child(mp, 'name'), badValue: m.name, detail: '' });
    if (!m.mountPath) errs.push(required(child(mp, 'mountPath')));
  });
  errs.push(...validateResourceRequirements(c.resources, child(p, 'resources')));
  if (c.imagePullPolicy !== undefined && !['Always', 'IfNotPresent', 'Never'].includes(c.imagePullPolicy as string))
    errs.push(notSupported(child(p, 'imagePullPolicy'), c.imagePullPolicy, ['Always', 'IfNotPresent', 'Never']));
  if (
    c.terminationMessagePolicy !== undefined &&
    !['File', 'FallbackToLogsOnError'].includes(c.terminationMessagePolicy as string)
  )
    errs.push(
      notSupported(child(p, 'terminationMessagePolicy'), c.terminationMessagePolicy, ['File', 'FallbackToLogsOnError']),
    );
  return errs;
}

function validateContainers(spec: Obj, path: string, volumes: Set<string>, requireImage: boolean): ErrorList {
  const errs: ErrorList = [];
  const names = new Set<string>();
  for (const field of ['initContainers', 'containers']) {
    arr(spec[field]).forEach((c, i) => {
      const p = index(child(path, field), i);
      const name = typeof c.name === 'string' ? c.name : '';
      if (!name) errs.push(required(child(p, 'name')));
      else {
        errs.push(...fromMessages(child(p, 'name'), name, isDNS1123Label(name)));
        if (names.has(name)) errs.push(duplicate(child(p, 'name'), name));
        names.add(name);
      }
      errs.push(...validateContainer(c, p, volumes, requireImage));
    });
  }
  return errs;
}

/** Validates tolerations, like validateTolerations upstream. */
export function validateTolerations(tolerations: Obj[], path: string): ErrorList {
  const errs: ErrorList = [];
  tolerations.forEach((t, i) => {
    const p = index(path, i);
    const op = (t.operator as string | undefined) ?? 'Equal';
    if (t.key) errs.push(...fromMessages(child(p, 'key'), t.key, isQualifiedName(t.key as string)));
    else if (op !== 'Exists')
      errs.push(
        invalidValue(
          child(p, 'operator'),
          op,
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      );
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && t.effect !== 'NoExecute')
      errs.push(
        invalidValue(child(p, 'effect'), t.effect ?? '', "effect must be 'NoExecute' when `tolerationSeconds` is set"),
      );
    if (op === 'Exists' && t.value)
      errs.push(invalidValue(child(p, 'operator'), t.value, "value must be empty when `operator` is 'Exists'"));
    else if (op !== 'Equal' && op !== 'Exists') errs.push(notSupported(child(p, 'operator'), op, ['Equal', 'Exists']));
    if (t.effect && !['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(t.effect as string))
      errs.push(notSupported(child(p, 'effect'), t.effect, ['NoExecute', 'NoSchedule', 'PreferNoSchedule']));
  });
  return errs;
}

/** Options that differ between a Pod and a pod template. */
export interface PodSpecOptions {
  /** Allowed restartPolicy values; undefined means any of Always, OnFailure, Never. */
  restartPolicies?: string[];
}

/** Validates a PodSpec at `path` ("spec" for pods, "spec.template.spec" for workloads). */
export function validatePodSpec(spec: unknown, path: string, opts: PodSpecOptions = {}): ErrorList {
  if (!isObject(spec)) return [required(path)];
  const errs: ErrorList = [];
  const vols = validateVolumes(arr(spec.volumes), child(path, 'volumes'));
  errs.push(...vols.errs);
  if (!arr(spec.containers).length) errs.push(required(child(path, 'containers')));
  errs.push(...validateContainers(spec, path, vols.names, true));
  const restart = spec.restartPolicy as string | undefined;
  const allowed = opts.restartPolicies ?? ['Always', 'OnFailure', 'Never'];
  if (!restart) errs.push(required(child(path, 'restartPolicy')));
  else if (!allowed.includes(restart)) errs.push(notSupported(child(path, 'restartPolicy'), restart, allowed));
  const dns = spec.dnsPolicy as string | undefined;
  const dnsPolicies = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
  if (!dns) errs.push(required(child(path, 'dnsPolicy')));
  else if (!dnsPolicies.includes(dns)) errs.push(notSupported(child(path, 'dnsPolicy'), dns, dnsPolicies));
  errs.push(...validateLabels(spec.nodeSelector, child(path, 'nodeSelector')));
  for (const [field, isValid] of DNS_NAME_FIELDS) {
    const v = spec[field];
    if (v) errs.push(...fromMessages(child(path, field), v, isValid(v as string)));
  }
  const ads = spec.activeDeadlineSeconds;
  if (ads !== undefined && ads !== null && (typeof ads !== 'number' || ads < 1 || ads > MAX_INT32))
    errs.push(invalidValue(child(path, 'activeDeadlineSeconds'), ads, `must be between 1 and ${MAX_INT32}, inclusive`));
  errs.push(...validateNonnegative(spec.terminationGracePeriodSeconds, child(path, 'terminationGracePeriodSeconds')));
  errs.push(...validateTolerations(arr(spec.tolerations), child(path, 'tolerations')));
  const gates = new Set<string>();
  arr(spec.schedulingGates).forEach((g, i) => {
    const p = index(child(path, 'schedulingGates'), i);
    errs.push(...fromMessages(child(p, 'name'), g.name, isQualifiedName(asString(g.name))));
    if (gates.has(g.name as string)) errs.push(duplicate(child(p, 'name'), g.name));
    gates.add(g.name as string);
  });
  return errs;
}

/** Validates a pod template (metadata labels plus spec) at `path`. */
export function validatePodTemplateSpec(template: unknown, path: string, opts: PodSpecOptions = {}): ErrorList {
  if (!isObject(template)) return [required(path)];
  const meta = isObject(template.metadata) ? template.metadata : {};
  const errs = [...validateLabels(meta.labels, child(path, 'metadata', 'labels'))];
  errs.push(...validatePodSpec(template.spec, child(path, 'spec'), opts));
  return errs;
}

/** Validates a Pod on create. */
export function validatePod(pod: KubeObject): ErrorList {
  return [...validateObjectMeta(pod.metadata, true, nameIsDNSSubdomain), ...validatePodSpec(pod.spec, 'spec')];
}

const MUTABLE_FIELDS_MSG =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** Validates a Pod update: the spec is immutable except for the mutable subset upstream allows. */
export function validatePodUpdate(pod: KubeObject, old: KubeObject): ErrorList {
  // The common update (labels, annotations, owners) leaves the spec exactly as stored: it passed
  // validation when it was written, and every immutability rule below holds trivially, so skip
  // both walks of it. Exact equality only: a semantically equal but differently spelled spec is validated.
  if (jsonEqual(pod.spec, old.spec)) return validateObjectMetaUpdate(pod.metadata, old.metadata);
  const errs = [...validateObjectMetaUpdate(pod.metadata, old.metadata), ...validatePodSpec(pod.spec, 'spec')];
  const spec = (isObject(pod.spec) ? pod.spec : {}) as Obj;
  const oldSpec = (isObject(old.spec) ? old.spec : {}) as Obj;
  const newAds = spec.activeDeadlineSeconds as number | undefined;
  const oldAds = oldSpec.activeDeadlineSeconds as number | undefined;
  if (oldAds !== undefined && oldAds !== null) {
    if (newAds === undefined || newAds === null)
      errs.push(
        invalidValue('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'),
      );
    else if (newAds > oldAds)
      errs.push(invalidValue('spec.activeDeadlineSeconds', newAds, 'must be less than or equal to previous value'));
  }
  // Existing tolerations must stay; only their tolerationSeconds may change.
  const newTols = arr(spec.tolerations);
  arr(oldSpec.tolerations).forEach((t, i) => {
    const { tolerationSeconds: _a, ...rest } = t;
    if (!newTols.some(({ tolerationSeconds: _b, ...n }) => semanticEqual(n, rest)))
      errs.push(
        forbidden(index('spec.tolerations', i), 'existing toleration can not be modified except its tolerationSeconds'),
      );
  });
  const oldGates = new Set(arr(oldSpec.schedulingGates).map((g) => g.name));
  for (const g of arr(spec.schedulingGates))
    if (!oldGates.has(g.name))
      errs.push(
        forbidden(
          'spec.schedulingGates',
          `only deletion is allowed, but found new scheduling gate '${asString(g.name)}'`,
        ),
      );
  // Mask the mutable fields with the old values, then anything left that differs is forbidden.
  const munged: Obj = {
    ...spec,
    activeDeadlineSeconds: oldSpec.activeDeadlineSeconds,
    tolerations: oldSpec.tolerations,
    schedulingGates: oldSpec.schedulingGates,
  };
  for (const f of ['containers', 'initContainers', 'ephemeralContainers']) {
    const olds = arr(oldSpec[f]);
    if (Array.isArray(spec[f])) munged[f] = arr(spec[f]).map((c, i) => (olds[i] ? { ...c, image: olds[i].image } : c));
  }
  const oldTgp = oldSpec.terminationGracePeriodSeconds as number | undefined;
  if (oldTgp !== undefined && oldTgp < 0 && spec.terminationGracePeriodSeconds === 1)
    munged.terminationGracePeriodSeconds = oldTgp;
  if (!semanticEqual(munged, oldSpec)) errs.push(forbidden('spec', MUTABLE_FIELDS_MSG));
  return errs;
}

/** Validates a pods/status update: metadata identity only; the spec is carried over by the strategy. */
export function validatePodStatusUpdate(pod: KubeObject, old: KubeObject): ErrorList {
  const errs = validateObjectMetaUpdate(pod.metadata, old.metadata);
  const status = isObject(pod.status) ? pod.status : {};
  if (status.nominatedNodeName)
    errs.push(
      ...fromMessages(
        'status.nominatedNodeName',
        status.nominatedNodeName,
        isDNS1123Subdomain(status.nominatedNodeName as string),
      ),
    );
  return errs;
}
