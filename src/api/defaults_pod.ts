/**
 * Pod defaulting, like SetDefaults_PodSpec, SetDefaults_Pod and
 * SetDefaults_Container in pkg/apis/core/v1/defaults.go. Pod templates get
 * only the PodSpec and container defaults, as upstream.
 */
import { asString, isObject } from './types.js';

type Obj = Record<string, unknown>;
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]).filter(isObject) : []);

/** The tag of an image reference: "latest" when it has neither tag nor digest, "" when only a digest. */
export function imageTag(image: string): string {
  const at = image.indexOf('@');
  const name = at >= 0 ? image.slice(0, at) : image;
  const colon = name.lastIndexOf(':');
  if (colon > name.lastIndexOf('/')) return name.slice(colon + 1);
  return at >= 0 ? '' : 'latest';
}

function defaultProbe(p: unknown): void {
  if (!isObject(p)) return;
  p.timeoutSeconds ||= 1;
  p.periodSeconds ||= 10;
  p.successThreshold ||= 1;
  p.failureThreshold ||= 3;
  if (isObject(p.httpGet)) {
    p.httpGet.path ||= '/';
    p.httpGet.scheme ||= 'HTTP';
  }
}

/** Defaults one container: pull policy from the tag, termination message path/policy, port protocol, probes. */
export function defaultContainer(c: Obj): void {
  if (!c.imagePullPolicy) c.imagePullPolicy = imageTag(asString(c.image)) === 'latest' ? 'Always' : 'IfNotPresent';
  c.terminationMessagePath ||= '/dev/termination-log';
  c.terminationMessagePolicy ||= 'File';
  for (const p of arr(c.ports)) p.protocol ||= 'TCP';
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) defaultProbe(c[probe]);
  for (const e of arr(c.env)) {
    const ref = isObject(e.valueFrom) ? e.valueFrom.fieldRef : undefined;
    if (isObject(ref)) ref.apiVersion ||= 'v1';
  }
}

function defaultVolume(v: Obj): void {
  const sources = Object.keys(v).filter((k) => k !== 'name');
  if (!sources.length) v.emptyDir = {};
  // 0644 for secret, configMap, downwardAPI and projected volumes, like upstream's DefaultMode constants.
  for (const k of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    const src = v[k];
    if (isObject(src) && src.defaultMode === undefined) src.defaultMode = 420;
  }
  if (isObject(v.hostPath) && v.hostPath.type === undefined) v.hostPath.type = '';
}

/** SetDefaults_PodSpec plus container and volume defaults; used for pods and every pod template. */
export function defaultPodSpec(spec: Obj): void {
  spec.dnsPolicy ||= 'ClusterFirst';
  spec.restartPolicy ||= 'Always';
  if (!isObject(spec.securityContext)) spec.securityContext = {};
  if (spec.terminationGracePeriodSeconds === undefined || spec.terminationGracePeriodSeconds === null)
    spec.terminationGracePeriodSeconds = 30;
  spec.schedulerName ||= 'default-scheduler';
  for (const f of ['initContainers', 'containers', 'ephemeralContainers'])
    for (const c of arr(spec[f])) defaultContainer(c);
  for (const v of arr(spec.volumes)) defaultVolume(v);
}

/** SetDefaults_Pod: PodSpec defaults, requests from limits, enableServiceLinks, host-network host ports. */
export function defaultPod(pod: Obj): void {
  if (!isObject(pod.spec)) pod.spec = {};
  const spec = pod.spec as Obj;
  defaultPodSpec(spec);
  for (const f of ['initContainers', 'containers']) {
    for (const c of arr(spec[f])) {
      const res = isObject(c.resources) ? c.resources : undefined;
      if (!res || !isObject(res.limits)) continue;
      const requests = isObject(res.requests) ? res.requests : (res.requests = {});
      for (const [k, v] of Object.entries(res.limits)) if (!(k in requests)) requests[k] = v;
    }
  }
  if (spec.enableServiceLinks === undefined || spec.enableServiceLinks === null) spec.enableServiceLinks = true;
  if (spec.hostNetwork === true)
    for (const f of ['initContainers', 'containers'])
      for (const c of arr(spec[f])) for (const p of arr(c.ports)) if (!p.hostPort) p.hostPort = p.containerPort;
}
