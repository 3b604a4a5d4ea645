/**
 * Validation for the core/v1 kinds other than Pod: Service, Node, Namespace,
 * ConfigMap, Secret, ServiceAccount, Event and Endpoints.
 */
import {
  isConfigMapKey,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidPortName,
  isValidPortNum,
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
} from '../meta.js';
import { asString, type KubeObject } from '../types.js';
import {
  child,
  duplicate,
  forbidden,
  fromMessages,
  immutable,
  index,
  invalidValue,
  notSupported,
  required,
  tooLong,
  type ErrorList,
} from './field.js';
import { arr, obj } from './common.js';
import { validateObjectMeta } from './objectmeta.js';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

/** Validates a Service on create. */
export function validateService(svc: KubeObject): ErrorList {
  const errs = validateObjectMeta(svc.metadata, true, nameIsDNS1035Label);
  const spec = obj(svc.spec);
  const type = (spec.type as string | undefined) ?? 'ClusterIP';
  const types = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
  if (!types.includes(type)) errs.push(notSupported('spec.type', type, types));
  const ports = arr(spec.ports);
  const headless = spec.clusterIP === 'None';
  if (type === 'ExternalName') {
    if (!spec.externalName) errs.push(required('spec.externalName'));
    else
      errs.push(
        ...fromMessages(
          'spec.externalName',
          spec.externalName,
          isDNS1123Subdomain(asString(spec.externalName).replace(/\.$/, '')),
        ),
      );
  } else if (!ports.length && !headless) {
    errs.push(required('spec.ports'));
  }
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const pp = index('spec.ports', i);
    if (ports.length > 1 && !p.name) errs.push(required(child(pp, 'name')));
    if (p.name) {
      errs.push(...fromMessages(child(pp, 'name'), p.name, isDNS1123Label(p.name as string)));
      if (names.has(p.name as string)) errs.push(duplicate(child(pp, 'name'), p.name));
      names.add(p.name as string);
    }
    errs.push(...fromMessages(child(pp, 'port'), p.port ?? 0, isValidPortNum(p.port as number)));
    if (!p.protocol) errs.push(required(child(pp, 'protocol')));
    else if (!PROTOCOLS.includes(p.protocol as string))
      errs.push(notSupported(child(pp, 'protocol'), p.protocol, PROTOCOLS));
    if (typeof p.targetPort === 'number' && p.targetPort !== 0)
      errs.push(...fromMessages(child(pp, 'targetPort'), p.targetPort, isValidPortNum(p.targetPort)));
    else if (typeof p.targetPort === 'string')
      errs.push(...fromMessages(child(pp, 'targetPort'), p.targetPort, isValidPortName(p.targetPort)));
    if (p.nodePort !== undefined && p.nodePort !== 0) {
      if (type === 'ClusterIP')
        errs.push(forbidden(child(pp, 'nodePort'), "may not be used when `type` is 'ClusterIP'"));
      else errs.push(...fromMessages(child(pp, 'nodePort'), p.nodePort, isValidPortNum(p.nodePort as number)));
    }
  });
  const affinity = spec.sessionAffinity as string | undefined;
  if (affinity !== undefined && !['ClientIP', 'None'].includes(affinity))
    errs.push(notSupported('spec.sessionAffinity', affinity, ['ClientIP', 'None']));
  if (spec.selector !== undefined) {
    for (const k of Object.keys(obj(spec.selector))) errs.push(...fromMessages('spec.selector', k, isQualifiedName(k)));
  }
  return errs;
}

/**
 * The update-only rules of a Service: like upstream's validateUpgradeDowngradeClusterIPs, the primary and
 * secondary cluster IPs may not change once set (unless the type moves to or from ExternalName).
 */
export function validateServiceUpdate(svc: KubeObject, old: KubeObject): ErrorList {
  const errs: ErrorList = [];
  const spec = obj(svc.spec);
  const oldSpec = obj(old.spec);
  if (oldSpec.type === 'ExternalName' || spec.type === 'ExternalName') return errs;
  // An empty or omitted clusterIP on update means "keep the allocated one"; the strategy copies it over.
  const oldIPs = clusterIPsOf(oldSpec);
  let ips = clusterIPsOf(spec);
  // Like upstream's normalizeClusterIPs: a changed clusterIP with clusterIPs left as they were stands for both.
  if (
    typeof spec.clusterIP === 'string' &&
    spec.clusterIP !== '' &&
    spec.clusterIP !== oldSpec.clusterIP &&
    sameList(ips, oldIPs)
  )
    ips = [spec.clusterIP];
  for (const i of [0, 1]) {
    if (oldIPs.length > i && ips.length > i && oldIPs[i] !== ips[i])
      errs.push(invalidValue(index('spec.clusterIPs', i), ips, 'may not change once set'));
  }
  return errs;
}

function clusterIPsOf(spec: Record<string, unknown>): string[] {
  if (Array.isArray(spec.clusterIPs) && spec.clusterIPs.length > 0) return spec.clusterIPs.map(String);
  return typeof spec.clusterIP === 'string' && spec.clusterIP !== '' ? [spec.clusterIP] : [];
}

const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** Validates a Node on create or update. */
export function validateNode(node: KubeObject): ErrorList {
  const errs = validateObjectMeta(node.metadata, false, nameIsDNSSubdomain);
  const spec = obj(node.spec);
  arr(spec.taints).forEach((t, i) => {
    const p = index('spec.taints', i);
    if (!t.key) errs.push(required(child(p, 'key')));
    else errs.push(...fromMessages(child(p, 'key'), t.key, isQualifiedName(t.key as string)));
    const effects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
    if (!t.effect) errs.push(required(child(p, 'effect')));
    else if (!effects.includes(t.effect as string)) errs.push(notSupported(child(p, 'effect'), t.effect, effects));
  });
  if (spec.podCIDR && !/^[0-9a-fA-F.:]+\/\d{1,3}$/.test(spec.podCIDR as string))
    errs.push(
      invalidValue('spec.podCIDR', spec.podCIDR, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'),
    );
  return errs;
}

/** Validates a Namespace: a DNS-1123 label name and qualified finalizers. */
export function validateNamespace(ns: KubeObject): ErrorList {
  const errs = validateObjectMeta(ns.metadata, false, nameIsDNSLabel);
  for (const f of (obj(ns.spec).finalizers as string[] | undefined) ?? [])
    errs.push(...fromMessages('spec.finalizers', f, isQualifiedName(f)));
  return errs;
}

const MAX_SECRET_SIZE = 1024 * 1024;

function validateDataKeys(o: KubeObject, fields: string[]): ErrorList {
  const errs: ErrorList = [];
  const seen = new Set<string>();
  let total = 0;
  for (const f of fields) {
    for (const [k, v] of Object.entries(obj(o[f]))) {
      errs.push(...fromMessages(`${f}[${k}]`, k, isConfigMapKey(k)));
      if (seen.has(k))
        errs.push(
          invalidValue(`${f}[${k}]`, k, 'duplicate of key present in ' + fields.filter((x) => x !== f).join(', ')),
        );
      seen.add(k);
      total += typeof v === 'string' ? Buffer.byteLength(v) : 0;
    }
  }
  if (total > MAX_SECRET_SIZE) errs.push(tooLong(fields[0], MAX_SECRET_SIZE));
  return errs;
}

/** Validates a ConfigMap on create. */
export const validateConfigMap = (cm: KubeObject): ErrorList => [
  ...validateObjectMeta(cm.metadata, true, nameIsDNSSubdomain),
  ...validateDataKeys(cm, ['data', 'binaryData']),
];

/** Validates a Secret on create. */
export const validateSecret = (s: KubeObject): ErrorList => {
  const errs = [
    ...validateObjectMeta(s.metadata, true, nameIsDNSSubdomain),
    ...validateDataKeys(s, ['data', 'stringData']),
  ];
  const data = obj(s.data);
  if (s.type === 'kubernetes.io/service-account-token') {
    const ann = s.metadata?.annotations ?? {};
    if (!ann['kubernetes.io/service-account.name'])
      errs.push(required('metadata.annotations[kubernetes.io/service-account.name]'));
  } else if (s.type === 'kubernetes.io/dockerconfigjson' && data['.dockerconfigjson'] === undefined) {
    errs.push(required('data[.dockerconfigjson]'));
  } else if (s.type === 'kubernetes.io/tls') {
    if (data['tls.crt'] === undefined) errs.push(required('data[tls.crt]'));
    if (data['tls.key'] === undefined) errs.push(required('data[tls.key]'));
  }
  return errs;
};

/** ConfigMap/Secret update: once `immutable: true`, data and the flag itself are frozen; a Secret's type never changes. */
export function validateImmutableDataUpdate(o: KubeObject, old: KubeObject, dataFields: string[]): ErrorList {
  const errs: ErrorList = [];
  if (old.immutable === true) {
    if (o.immutable !== true) errs.push(forbidden('immutable', 'field is immutable when `immutable` is set'));
    for (const f of dataFields)
      if (JSON.stringify(o[f] ?? {}) !== JSON.stringify(old[f] ?? {}))
        errs.push(forbidden(f, 'field is immutable when `immutable` is set'));
  }
  if (old.kind === 'Secret' || o.kind === 'Secret')
    if ((o.type ?? 'Opaque') !== (old.type ?? 'Opaque')) errs.push(immutable('type', o.type ?? ''));
  return errs;
}

/** Validates a ServiceAccount. */
export const validateServiceAccount = (sa: KubeObject): ErrorList =>
  validateObjectMeta(sa.metadata, true, nameIsDNSSubdomain);

/** Validates a core/v1 Event: it must name the object it is about. */
export function validateEvent(ev: KubeObject): ErrorList {
  const errs = validateObjectMeta(ev.metadata, true, nameIsDNSSubdomain);
  const io = obj(ev.involvedObject);
  if (io.namespace && ev.metadata?.namespace && io.namespace !== ev.metadata.namespace)
    errs.push(invalidValue('involvedObject.namespace', io.namespace, 'does not match event.namespace'));
  if (ev.type !== undefined && ev.type !== '' && !['Normal', 'Warning'].includes(ev.type as string))
    errs.push(notSupported('type', ev.type, ['Normal', 'Warning']));
  return errs;
}

/** Validates Endpoints: addresses carry IPs, ports are in range. */
export function validateEndpoints(ep: KubeObject): ErrorList {
  const errs = validateObjectMeta(ep.metadata, true, nameIsDNSSubdomain);
  arr(ep.subsets).forEach((s, i) => {
    const p = index('subsets', i);
    for (const f of ['addresses', 'notReadyAddresses'])
      arr(s[f]).forEach((a, j) => {
        if (!a.ip) errs.push(required(child(index(child(p, f), j), 'ip')));
      });
    arr(s.ports).forEach((port, j) => {
      const pp = index(child(p, 'ports'), j);
      errs.push(...fromMessages(child(pp, 'port'), port.port ?? 0, isValidPortNum(port.port as number)));
      if (port.protocol && !PROTOCOLS.includes(port.protocol as string))
        errs.push(notSupported(child(pp, 'protocol'), port.protocol, PROTOCOLS));
    });
  });
  return errs;
}
