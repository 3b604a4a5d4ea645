/**
 * networking.k8s.io/v1 NetworkPolicy validation, like upstream's
 * ValidateNetworkPolicy: label selectors, ports (protocol, number or name,
 * endPort), one kind of peer each, CIDRs, and policyTypes.
 */
import { isValidPortName, nameIsDNSSubdomain } from '../meta.js';
import { isObject, type KubeObject } from '../types.js';
import { validateLabelSelector } from './common.js';
import {
  child,
  forbidden,
  fromMessages,
  index,
  invalidValue,
  notSupported,
  required,
  tooMany,
  type ErrorList,
} from './field.js';
import { validateObjectMeta } from './objectmeta.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isObject(v) ? v : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const POLICY_TYPES = ['Ingress', 'Egress'];

function validatePort(p: Obj, path: string): ErrorList {
  const errs: ErrorList = [];
  if (p.protocol !== undefined && !PROTOCOLS.includes(p.protocol as string))
    errs.push(notSupported(child(path, 'protocol'), p.protocol, PROTOCOLS));
  if (typeof p.port === 'number') {
    if (p.port < 1 || p.port > 65535 || !Number.isInteger(p.port))
      errs.push(invalidValue(child(path, 'port'), p.port, 'must be between 1 and 65535, inclusive'));
    if (typeof p.endPort === 'number' && p.endPort < p.port)
      errs.push(invalidValue(child(path, 'endPort'), p.endPort, 'must be greater than or equal to `port`'));
  } else if (typeof p.port === 'string') {
    errs.push(...fromMessages(child(path, 'port'), p.port, isValidPortName(p.port)));
    if (p.endPort !== undefined)
      errs.push(forbidden(child(path, 'endPort'), 'may not be specified when `port` is non-numeric'));
  } else if (p.endPort !== undefined)
    errs.push(required(child(path, 'port'), 'must be specified when `endPort` is specified'));
  return errs;
}

// A CIDR in the canonical a.b.c.d/n form (IPv4) or an IPv6 prefix.
function isCIDR(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(v);
  if (m) return m.slice(1, 5).every((o) => Number(o) <= 255) && Number(m[5]) <= 32;
  return /^[0-9a-fA-F:]+\/\d{1,3}$/.test(v) && v.includes(':') && Number(v.split('/')[1]) <= 128;
}

function validatePeer(peer: Obj, path: string): ErrorList {
  const errs: ErrorList = [];
  const kinds = ['podSelector', 'namespaceSelector', 'ipBlock'].filter(
    (k) => peer[k] !== undefined && peer[k] !== null,
  );
  if (kinds.length === 0) errs.push(required(path, 'must specify a peer'));
  else if (peer.ipBlock !== undefined && kinds.length > 1)
    errs.push(forbidden(path, 'may not specify more than 1 peer type'));
  errs.push(...validateLabelSelector(peer.podSelector, child(path, 'podSelector')));
  errs.push(...validateLabelSelector(peer.namespaceSelector, child(path, 'namespaceSelector')));
  if (peer.ipBlock !== undefined) {
    const block = obj(peer.ipBlock);
    const bp = child(path, 'ipBlock');
    if (block.cidr === undefined || block.cidr === '') errs.push(required(child(bp, 'cidr')));
    else if (!isCIDR(block.cidr)) errs.push(invalidValue(child(bp, 'cidr'), block.cidr, 'must be a valid CIDR'));
    arr(block.except).forEach((e, i) => {
      if (!isCIDR(e)) errs.push(invalidValue(index(child(bp, 'except'), i), e, 'must be a valid CIDR'));
    });
  }
  return errs;
}

function validateRules(rules: unknown, path: string, peers: string): ErrorList {
  const errs: ErrorList = [];
  arr(rules).forEach((r, i) => {
    const rp = index(path, i);
    arr(obj(r).ports).forEach((p, j) => errs.push(...validatePort(obj(p), index(child(rp, 'ports'), j))));
    arr(obj(r)[peers]).forEach((p, j) => errs.push(...validatePeer(obj(p), index(child(rp, peers), j))));
  });
  return errs;
}

/** Validates a NetworkPolicy on create and update. */
export function validateNetworkPolicy(np: KubeObject): ErrorList {
  const errs = validateObjectMeta(np.metadata, true, nameIsDNSSubdomain);
  const spec = obj(np.spec);
  errs.push(...validateLabelSelector(spec.podSelector, 'spec.podSelector'));
  errs.push(...validateRules(spec.ingress, 'spec.ingress', 'from'));
  errs.push(...validateRules(spec.egress, 'spec.egress', 'to'));
  const types = arr(spec.policyTypes);
  types.forEach((t, i) => {
    if (!POLICY_TYPES.includes(t as string)) errs.push(notSupported(index('spec.policyTypes', i), t, POLICY_TYPES));
  });
  if (types.length > 2) errs.push(tooMany('spec.policyTypes', types.length, 2));
  return errs;
}
