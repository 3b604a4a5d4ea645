/**
 * Validation for coordination.k8s.io Lease, discovery.k8s.io EndpointSlice,
 * scheduling.k8s.io PriorityClass and policy PodDisruptionBudget.
 */
import { isDNS1123Label, isDNS1123Subdomain, isValidPortNum, nameIsDNSSubdomain } from '../meta.js';
import { asString, type KubeObject } from '../types.js';
import {
  child,
  forbidden,
  fromMessages,
  immutable,
  index,
  invalidValue,
  notSupported,
  required,
  tooMany,
  validateNonnegative,
  type ErrorList,
} from './field.js';
import { arr, obj, validateIntOrPercent, validateLabelSelector } from './common.js';
import { validateObjectMeta } from './objectmeta.js';

/** Validates a Lease: durations positive, transitions non-negative. */
export function validateLease(lease: KubeObject): ErrorList {
  const errs = validateObjectMeta(lease.metadata, true, nameIsDNSSubdomain);
  const spec = obj(lease.spec);
  const d = spec.leaseDurationSeconds;
  if (typeof d === 'number' && d <= 0)
    errs.push(invalidValue('spec.leaseDurationSeconds', d, 'must be greater than 0'));
  errs.push(...validateNonnegative(spec.leaseTransitions, 'spec.leaseTransitions'));
  return errs;
}

const ADDRESS_TYPES = ['IPv4', 'IPv6', 'FQDN'];
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9a-fA-F:]+(:(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})?$/;

function validateAddress(type: string, a: unknown, path: string): ErrorList {
  const s = asString(a);
  if (type === 'IPv4' && !IPV4.test(s)) return [invalidValue(path, a, 'must be a valid IPv4 address')];
  if (type === 'IPv6' && (!IPV6.test(s) || !s.includes(':')))
    return [invalidValue(path, a, 'must be a valid IPv6 address')];
  if (type === 'FQDN') return fromMessages(path, a, isDNS1123Subdomain(s));
  return [];
}

/** Validates an EndpointSlice: addressType, at most 1000 endpoints with 1..100 addresses each, at most 100 ports. */
export function validateEndpointSlice(es: KubeObject): ErrorList {
  const errs = validateObjectMeta(es.metadata, true, nameIsDNSSubdomain);
  const type = es.addressType as string | undefined;
  if (!type) errs.push(required('addressType'));
  else if (!ADDRESS_TYPES.includes(type)) errs.push(notSupported('addressType', type, ADDRESS_TYPES));
  const endpoints = arr(es.endpoints);
  if (endpoints.length > 1000) errs.push(tooMany('endpoints', endpoints.length, 1000));
  endpoints.forEach((e, i) => {
    const p = index('endpoints', i);
    const addrs = Array.isArray(e.addresses) ? e.addresses : [];
    if (!addrs.length) errs.push(required(child(p, 'addresses'), 'must contain at least 1 address'));
    else if (addrs.length > 100) errs.push(tooMany(child(p, 'addresses'), addrs.length, 100));
    else if (type) addrs.forEach((a, j) => errs.push(...validateAddress(type, a, index(child(p, 'addresses'), j))));
    if (e.hostname) errs.push(...fromMessages(child(p, 'hostname'), e.hostname, isDNS1123Label(e.hostname as string)));
  });
  const ports = arr(es.ports);
  if (ports.length > 100) errs.push(tooMany('ports', ports.length, 100));
  ports.forEach((port, i) => {
    const p = index('ports', i);
    if (port.name) errs.push(...fromMessages(child(p, 'name'), port.name, isDNS1123Label(port.name as string)));
    if (port.port !== undefined && port.port !== null)
      errs.push(...fromMessages(child(p, 'port'), port.port, isValidPortNum(port.port as number)));
    if (port.protocol && !['SCTP', 'TCP', 'UDP'].includes(port.protocol as string))
      errs.push(notSupported(child(p, 'protocol'), port.protocol, ['SCTP', 'TCP', 'UDP']));
  });
  return errs;
}

/** EndpointSlice update: addressType may not change. */
export const validateEndpointSliceUpdate = (es: KubeObject, old: KubeObject): ErrorList =>
  es.addressType !== old.addressType ? [immutable('addressType', es.addressType)] : [];

/** The largest priority a user-defined PriorityClass may have; above it is reserved for system- classes. */
export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
/** The built-in system priority classes and their values. */
export const SYSTEM_PRIORITY_CLASSES: Record<string, number> = {
  'system-node-critical': 2_000_001_000,
  'system-cluster-critical': 2_000_000_000,
};

/** Validates a PriorityClass: user values up to 1e9, "system-" names reserved. */
export function validatePriorityClass(pc: KubeObject): ErrorList {
  const errs = validateObjectMeta(pc.metadata, false, nameIsDNSSubdomain);
  const name = pc.metadata?.name ?? '';
  const value = pc.value as number | undefined;
  if (name.startsWith('system-')) {
    if (SYSTEM_PRIORITY_CLASSES[name] === undefined)
      errs.push(forbidden('metadata.name', "priority class names with 'system-' prefix are reserved"));
  } else if (typeof value === 'number' && value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errs.push(
      forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`),
    );
  }
  if (typeof value !== 'number') errs.push(required('value'));
  const pp = pc.preemptionPolicy as string | undefined;
  if (pp !== undefined && pp !== 'Never' && pp !== 'PreemptLowerPriority')
    errs.push(notSupported('preemptionPolicy', pp, ['Never', 'PreemptLowerPriority']));
  return errs;
}

/** PriorityClass update: value and preemptionPolicy are fixed. */
export function validatePriorityClassUpdate(pc: KubeObject, old: KubeObject): ErrorList {
  const errs: ErrorList = [];
  if (pc.value !== old.value) errs.push(forbidden('value', 'may not be changed in an update.'));
  if ((pc.preemptionPolicy ?? '') !== (old.preemptionPolicy ?? ''))
    errs.push(immutable('preemptionPolicy', pc.preemptionPolicy));
  return errs;
}

/** Validates a PodDisruptionBudget: one of minAvailable/maxUnavailable, each a count or percentage. */
export function validatePodDisruptionBudget(pdb: KubeObject): ErrorList {
  const errs = validateObjectMeta(pdb.metadata, true, nameIsDNSSubdomain);
  const spec = obj(pdb.spec);
  const has = (v: unknown): boolean => v !== undefined && v !== null;
  if (has(spec.minAvailable) && has(spec.maxUnavailable))
    errs.push(invalidValue('spec', spec, 'minAvailable and maxUnavailable cannot be both set'));
  errs.push(...validateIntOrPercent(spec.minAvailable, 'spec.minAvailable'));
  errs.push(...validateIntOrPercent(spec.maxUnavailable, 'spec.maxUnavailable'));
  errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const policy = spec.unhealthyPodEvictionPolicy as string | undefined;
  if (policy !== undefined && policy !== 'AlwaysAllow' && policy !== 'IfHealthyBudget')
    errs.push(notSupported('spec.unhealthyPodEvictionPolicy', policy, ['AlwaysAllow', 'IfHealthyBudget']));
  return errs;
}

/** Validates a scheduling.x-k8s.io PodGroup: minMember and scheduleTimeoutSeconds are non-negative integers. */
export function validatePodGroup(pg: KubeObject): ErrorList {
  const errs = validateObjectMeta(pg.metadata, true, nameIsDNSSubdomain);
  const spec = obj(pg.spec);
  for (const f of ['minMember', 'scheduleTimeoutSeconds']) {
    const v = spec[f];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v)) errs.push(invalidValue(`spec.${f}`, v, 'must be an integer'));
    else errs.push(...validateNonnegative(v, `spec.${f}`));
  }
  return errs;
}
