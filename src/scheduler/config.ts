/**
 * KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1), the parts
 * kscale honours: profiles with plugins enabled/disabled per extension point
 * or multiPoint, score weights, pluginConfig args, percentageOfNodesToScore,
 * backoff, clientConnection QPS/burst and leaderElection. Resolution
 * follows upstream: multiPoint expands to every point a plugin implements;
 * a point's own `enabled` list comes first; `disabled: [{name: '*'}]`
 * clears the defaults.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { SharedInformerFactory, type RESTClient } from '../client/index.js';
import type { PluginFactory } from './framework/interface.js';
import { EXTENSION_POINTS, POINT_METHOD, type ExtensionPoint, type ResolvedPlugins } from './framework/runtime.js';
import { DEFAULT_MULTI_POINT, PRIORITY_SORT } from './plugins/registry.js';
import type { ProfileSpec } from './scheduler.js';

/** A plugin set of one extension point. */
export interface PluginSet {
  enabled?: { name: string; weight?: number }[];
  disabled?: { name: string }[];
}

/** One profile as written in the file. */
export interface ProfileConfig {
  schedulerName?: string;
  percentageOfNodesToScore?: number;
  plugins?: Partial<Record<ExtensionPoint | 'multiPoint', PluginSet>>;
  pluginConfig?: { name: string; args?: Record<string, unknown> }[];
}

/** The configuration file, with defaults applied by `loadSchedulerConfiguration`. */
export interface KubeSchedulerConfiguration {
  apiVersion?: string;
  kind?: string;
  percentageOfNodesToScore?: number;
  podInitialBackoffSeconds?: number;
  podMaxBackoffSeconds?: number;
  clientConnection?: { kubeconfig?: string; qps?: number; burst?: number };
  leaderElection?: {
    leaderElect?: boolean;
    leaseDuration?: string;
    renewDeadline?: string;
    retryPeriod?: string;
    resourceName?: string;
    resourceNamespace?: string;
  };
  profiles?: ProfileConfig[];
}

/** Reads and checks a configuration file; throws a readable error on bad input. */
export function loadSchedulerConfiguration(path: string): KubeSchedulerConfiguration {
  const doc = parse(readFileSync(path, 'utf8')) as unknown;
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
    throw new Error(`${path}: not a KubeSchedulerConfiguration object`);
  const cfg = doc as KubeSchedulerConfiguration;
  if (cfg.kind !== undefined && cfg.kind !== 'KubeSchedulerConfiguration')
    throw new Error(`${path}: kind must be KubeSchedulerConfiguration, got ${cfg.kind}`);
  if (cfg.apiVersion !== undefined && !cfg.apiVersion.startsWith('kubescheduler.config.k8s.io/'))
    throw new Error(`${path}: unsupported apiVersion ${cfg.apiVersion}`);
  const pct = cfg.percentageOfNodesToScore;
  if (pct !== undefined && (typeof pct !== 'number' || pct < 0 || pct > 100))
    throw new Error(`${path}: percentageOfNodesToScore must be between 0 and 100`);
  return cfg;
}

/** Resolves profiles into per-point plugin lists; throws on unknown plugins or a missing QueueSort/Bind. */
export function resolveProfiles(
  cfg: KubeSchedulerConfiguration,
  registry: ReadonlyMap<string, PluginFactory>,
): ProfileSpec[] {
  const profiles = cfg.profiles !== undefined && cfg.profiles.length > 0 ? cfg.profiles : [{}];
  const seen = new Set<string>();
  return profiles.map((p) => {
    const schedulerName = p.schedulerName ?? 'default-scheduler';
    if (seen.has(schedulerName)) throw new Error(`duplicate profile ${schedulerName}`);
    seen.add(schedulerName);
    return {
      schedulerName,
      plugins: resolvePlugins(p, registry),
      ...(p.percentageOfNodesToScore !== undefined ? { percentageOfNodesToScore: p.percentageOfNodesToScore } : {}),
    };
  });
}

function implementsPoint(registry: ReadonlyMap<string, PluginFactory>, name: string, point: ExtensionPoint): boolean {
  // Plugins are probed by building them with a handle that is never used during construction checks.
  const probe = probes.get(name) ?? probeOf(registry, name);
  return typeof probe[POINT_METHOD[point]] === 'function';
}

const probes = new Map<string, Record<string, unknown>>();
function probeOf(registry: ReadonlyMap<string, PluginFactory>, name: string): Record<string, unknown> {
  const f = registry.get(name);
  if (f === undefined) throw new Error(`plugin "${name}" does not exist`);
  // Its informer factory hands out informers that are never started, over a client that is never called.
  const client = { resource: () => ({}) } as unknown as RESTClient;
  const fakeHandle = {
    client,
    informerFactory: () => new SharedInformerFactory(client),
    snapshot: () => ({}),
  } as never;
  const p = f({}, fakeHandle) as unknown as Record<string, unknown>;
  probes.set(name, p);
  return p;
}

function resolvePlugins(p: ProfileConfig, registry: ReadonlyMap<string, PluginFactory>): ResolvedPlugins {
  const sets = p.plugins ?? {};
  const multi = sets.multiPoint ?? {};
  const allOff = (multi.disabled ?? []).some((d) => d.name === '*');
  const off = new Set((multi.disabled ?? []).map((d) => d.name));
  const base = allOff ? [] : DEFAULT_MULTI_POINT.filter((e) => !off.has(e.name));
  const multiList = [...base];
  for (const e of multi.enabled ?? []) {
    const i = multiList.findIndex((x) => x.name === e.name);
    if (i >= 0) multiList[i] = e;
    else multiList.push(e);
  }
  const weights = new Map<string, number>();
  for (const e of multiList) if (e.weight !== undefined) weights.set(e.name, e.weight);
  const points = {} as Record<ExtensionPoint, string[]>;
  for (const point of EXTENSION_POINTS) {
    const own = sets[point] ?? {};
    const disabled = new Set((own.disabled ?? []).map((d) => d.name));
    const explicit = (own.enabled ?? []).map((e) => e.name);
    for (const e of own.enabled ?? []) if (e.weight !== undefined) weights.set(e.name, e.weight);
    const fromMulti = disabled.has('*')
      ? []
      : multiList
          .map((e) => e.name)
          .filter((n) => !disabled.has(n) && !explicit.includes(n) && implementsPoint(registry, n, point));
    points[point] = [...explicit, ...fromMulti];
    for (const n of points[point]) if (!registry.has(n)) throw new Error(`plugin "${n}" does not exist`);
  }
  if (points.queueSort.length === 0) points.queueSort = [PRIORITY_SORT];
  if (points.queueSort.length > 1) points.queueSort = points.queueSort.slice(0, 1);
  const args = new Map<string, Record<string, unknown>>();
  for (const pc of p.pluginConfig ?? []) args.set(pc.name, pc.args ?? {});
  return { args, points, scoreWeights: weights };
}
